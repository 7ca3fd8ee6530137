// Package tlsfault tells a TLS fault of a connection to a server in one line that says what is
// wrong and what to change in the DSN, never showing the DSN: the drivers' own errors say it in
// their words ("x509: certificate signed by unknown authority", several lines for pgx's
// fallbacks, a whole topology for the MongoDB driver). Each server family names its DSN's
// options in Words and adds the faults only its protocol tells (sqldb, doc).
package tlsfault

import (
	"crypto/x509"
	"errors"
	"strings"
)

// Words names a family's DSN options in the hints.
type Words struct {
	// CA is the option that names the CA file ("sslrootcert=FILE"), Cert the options of a
	// client certificate, NoTLS how to ask for no TLS and On how to ask for verified TLS.
	CA, Cert, NoTLS, On string
}

// Error is a TLS fault told as a hint; it wraps the driver's error.
type Error struct {
	msg string
	err error
}

// New returns the hint as an error wrapping err.
func New(hint string, err error) *Error { return &Error{msg: hint, err: err} }

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.err }

// CertHint returns the hint for a certificate the client or the server refused in err, or "".
// It matches the crypto/x509 and crypto/tls errors by type and, where a driver keeps only their
// text (the MongoDB driver's topology), by their words.
func CertHint(err error, w Words) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	msg := err.Error()
	switch {
	case errors.As(err, &unknown) || strings.Contains(msg, "certificate signed by unknown authority"):
		return "the server's certificate is not signed by a CA the DSN trusts (x509: unknown authority): give the CA that signed it in " + w.CA + " (a cloud's CA bundle)"
	case errors.As(err, &host) || strings.Contains(msg, "x509: certificate is valid for") || strings.Contains(msg, "x509: certificate is not valid for any names") ||
		strings.Contains(msg, "x509: cannot validate certificate for"):
		return "the server's certificate is not for the host the DSN connects to (" + x509Reason(msg, host) + "): connect by a name the certificate holds"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired || strings.Contains(msg, "x509: certificate has expired or is not yet valid"):
		return "the server's certificate has expired or is not yet valid: the server needs a new certificate (or this host's clock is wrong)"
	case strings.Contains(msg, "tls: certificate required") || strings.Contains(msg, "tls: bad certificate") || strings.Contains(msg, "tls: unknown certificate authority"):
		return "the server asks for a client certificate signed by its CA: give one with " + w.Cert
	}
	return ""
}

// x509Reason is the x509 error's own words, one line.
func x509Reason(msg string, host x509.HostnameError) string {
	if host.Certificate != nil {
		return host.Error()
	}
	if i := strings.Index(msg, "x509: "); i >= 0 {
		rest := msg[i:]
		// The line, or up to the end of the server's entry in the MongoDB driver's topology.
		for _, end := range []string{"\n", " }"} {
			if j := strings.Index(rest, end); j >= 0 {
				rest = rest[:j]
			}
		}
		return rest
	}
	return "x509: host name mismatch"
}
