package sqldb

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// TLS faults of a connection to an existing server, told in one line that says what is wrong
// and what to change in the DSN, never showing the DSN: the drivers' own errors say it in
// their words (several lines for pgx's fallbacks), e.g. "x509: certificate signed by unknown
// authority" or MariaDB's "Access denied" for a TCP connection without TLS to a server with
// require_secure_transport.

// tlsWords names a family's DSN options in the hints.
type tlsWords struct {
	ca, cert, noTLS, on string
}

var (
	pgTLSWords = tlsWords{ca: "sslrootcert=FILE", cert: "sslcert=FILE and sslkey=FILE",
		noTLS: "sslmode=disable", on: "sslmode=verify-full with sslrootcert=FILE (or sslmode=require, which verifies nothing)"}
	mysqlTLSWords = tlsWords{ca: "tls-ca=FILE", cert: "tls-cert=FILE and tls-key=FILE",
		noTLS: "none of tls, tls-ca, tls-cert and tls-key", on: "tls-ca=FILE (or tls=true to verify against the system's CAs)"}
)

// tlsError is a TLS fault of a connection told as a hint; it wraps the driver's error.
type tlsError struct {
	msg string
	err error
}

func (e *tlsError) Error() string { return e.msg }
func (e *tlsError) Unwrap() error { return e.err }

// certHint returns the hint for a server certificate the client refused, or "".
func certHint(err error, w tlsWords) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	msg := err.Error()
	switch {
	case errors.As(err, &unknown) || strings.Contains(msg, "certificate signed by unknown authority"):
		return "the server's certificate is not signed by a CA the DSN trusts (x509: unknown authority): give the CA that signed it in " + w.ca + " (a cloud's CA bundle)"
	case errors.As(err, &host) || strings.Contains(msg, "x509: certificate is valid for") || strings.Contains(msg, "x509: certificate is not valid for any names"):
		return "the server's certificate is not for the host the DSN connects to (" + x509Reason(msg, host) + "): connect by a name the certificate holds"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired || strings.Contains(msg, "x509: certificate has expired or is not yet valid"):
		return "the server's certificate has expired or is not yet valid: the server needs a new certificate (or this host's clock is wrong)"
	case strings.Contains(msg, "tls: certificate required") || strings.Contains(msg, "tls: bad certificate") || strings.Contains(msg, "tls: unknown certificate authority"):
		return "the server asks for a client certificate signed by its CA: give one with " + w.cert
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
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	return "x509: host name mismatch"
}

// pgTLSHint returns err told as a TLS fault of a PostgreSQL connection, or err.
func pgTLSHint(err error) error {
	if err == nil {
		return nil
	}
	hint := certHint(err, pgTLSWords)
	var pe *pgconn.PgError
	msg := err.Error()
	switch {
	case hint != "":
	case errors.As(err, &pe) && pe.Code == "28000" && strings.Contains(pe.Message, "no encryption"):
		hint = "the server takes TLS connections only (no pg_hba.conf entry without encryption): set " + pgTLSWords.on
	case strings.Contains(msg, "server refused TLS connection"):
		hint = "the DSN asks for TLS but the server has none: set " + pgTLSWords.noTLS + " (or turn TLS on at the server)"
	case errors.As(err, &pe) && pe.Code == "28000" && strings.Contains(pe.Message, "certificate"):
		hint = "the server asks for a client certificate (" + pe.Message + "): give one with " + pgTLSWords.cert + ", for the user the DSN names"
	}
	if hint == "" {
		return err
	}
	return &tlsError{msg: hint, err: err}
}

// mysqlTLSHint returns err told as a TLS fault of a MySQL-family connection with the TLS
// configuration c (nil: the DSN asks for no TLS), or err.
func mysqlTLSHint(err error, c *tls.Config) error {
	if err == nil {
		return nil
	}
	hint := certHint(err, mysqlTLSWords)
	var me *mysql.MySQLError
	switch {
	case hint != "":
	case errors.Is(err, mysql.ErrNoTLS):
		hint = "the DSN asks for TLS but the server has none: give " + mysqlTLSWords.noTLS + " (or turn TLS on at the server)"
	case errors.As(err, &me) && me.Number == mysqlSecureTransportRequired:
		hint = "the server takes TLS connections only (require_secure_transport): give " + mysqlTLSWords.on
	case errors.As(err, &me) && me.Number == mysqlAccessDenied && c == nil:
		// MariaDB refuses a connection without TLS under require_secure_transport as a wrong
		// password.
		hint = "access denied (" + me.Message + "): the password is wrong, or the server takes TLS connections only (MariaDB's require_secure_transport says so this way): give " + mysqlTLSWords.on
	case errors.As(err, &me) && me.Number == mysqlAccessDenied && len(c.Certificates) == 0:
		// And an account that REQUIRE X509 without a client certificate so too.
		hint = "access denied (" + me.Message + "): the password is wrong, or the account requires a client certificate (REQUIRE X509): give one with " + mysqlTLSWords.cert
	}
	if hint == "" {
		return err
	}
	return &tlsError{msg: hint, err: err}
}

// The MySQL family's error numbers of the hints.
const (
	mysqlAccessDenied            = 1045 // ER_ACCESS_DENIED_ERROR
	mysqlSecureTransportRequired = 3159 // ER_SECURE_TRANSPORT_REQUIRED (MySQL 5.7 and later)
)
