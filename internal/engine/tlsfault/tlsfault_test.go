package tlsfault

import (
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"testing"
)

var words = Words{CA: "ca=FILE", Cert: "cert=FILE", NoTLS: "notls", On: "on"}

// CertHint tells each refused certificate by the crypto/x509 error's type, and by its words
// where a driver kept only the text: a host name error keeps its own words, up to the end of
// the line or of the MongoDB driver's server entry, commas and all.
func TestCertHint(t *testing.T) {
	host := x509.HostnameError{Certificate: &x509.Certificate{DNSNames: []string{"a.example", "b.example"}}, Host: "c.example"}
	topology := "server selection error: current topology: { Type: Single, Servers: [{ Addr: h:1, Type: Unknown, Last error: tls: failed to verify certificate: x509: certificate is valid for a.example, b.example, not c.example }, ] }"
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("connect: %w", x509.UnknownAuthorityError{}), "not signed by a CA the DSN trusts (x509: unknown authority): give the CA that signed it in ca=FILE"},
		{errors.New(strings.Replace(topology, "x509: certificate is valid for a.example, b.example, not c.example", "x509: certificate signed by unknown authority", 1)), "give the CA that signed it in ca=FILE"},
		{fmt.Errorf("connect: %w", host), "not for the host the DSN connects to (" + host.Error() + "): connect by"},
		{errors.New(topology), "not for the host the DSN connects to (x509: certificate is valid for a.example, b.example, not c.example): connect by"},
		{errors.New("tls: failed to verify certificate: x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs\nmore"), "(x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs): connect by"},
		{x509.CertificateInvalidError{Reason: x509.Expired}, "has expired or is not yet valid"},
		{errors.New("remote error: tls: certificate required"), "asks for a client certificate signed by its CA: give one with cert=FILE"},
		{x509.CertificateInvalidError{Reason: x509.NotAuthorizedToSign}, ""},
		{errors.New("connection refused"), ""},
	} {
		got := CertHint(c.err, words)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
	inner := errors.New("x")
	if e := New("hint", inner); e.Error() != "hint" || !errors.Is(e, inner) {
		t.Errorf("New: %v does not wrap the driver's error", e)
	}
}
