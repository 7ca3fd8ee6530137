package tlstest_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/tlstest"
)

// verify checks the server certificate certFile against the CA of caFile for host, as a TLS
// client does.
func verify(t *testing.T, caFile, certFile, keyFile, host string, usage x509.ExtKeyUsage) error {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatalf("%s and %s are no key pair: %v", certFile, keyFile, err)
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatalf("%s holds no certificate", caFile)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}

// Each certificate of the PKI is what its name says: the good ones verify against the CA for
// the default hosts, the bad ones fail for the reason they were made for, and key files are
// private.
func TestPKI(t *testing.T) {
	p := tlstest.New(t)
	server := x509.ExtKeyUsageServerAuth
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if err := verify(t, p.CAFile, p.ServerCert, p.ServerKey, host, server); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
	if err := verify(t, p.CAFile, p.ServerCert, p.ServerKey, "db.example.com", server); !errors.As(err, new(x509.HostnameError)) {
		t.Errorf("server certificate for another host: %v, want a host name error", err)
	}
	if err := verify(t, p.WrongCAFile, p.ServerCert, p.ServerKey, "127.0.0.1", server); !errors.As(err, new(x509.UnknownAuthorityError)) {
		t.Errorf("server certificate against the wrong CA: %v, want an unknown authority", err)
	}
	var inv x509.CertificateInvalidError
	if err := verify(t, p.CAFile, p.ExpiredCert, p.ExpiredKey, "127.0.0.1", server); !errors.As(err, &inv) || inv.Reason != x509.Expired {
		t.Errorf("expired certificate: %v, want expired", err)
	}
	if err := verify(t, p.CAFile, p.WrongHostCert, p.WrongHostKey, "127.0.0.1", server); !errors.As(err, new(x509.HostnameError)) {
		t.Errorf("wrong-host certificate for 127.0.0.1: %v, want a host name error", err)
	}
	if err := verify(t, p.CAFile, p.WrongHostCert, p.WrongHostKey, tlstest.WrongHost, server); err != nil {
		t.Errorf("wrong-host certificate for its own name: %v", err)
	}
	client := x509.ExtKeyUsageClientAuth
	if err := verify(t, p.CAFile, p.ClientCert, p.ClientKey, "", client); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	if err := verify(t, p.CAFile, p.WrongClientCert, p.WrongClientKey, "", client); !errors.As(err, new(x509.UnknownAuthorityError)) {
		t.Errorf("wrong client certificate against the CA: %v, want an unknown authority", err)
	}
	if err := verify(t, p.CAFile, p.ClientCertKey, p.ClientCertKey, "", client); err != nil {
		t.Errorf("client certificate and key in one file: %v", err)
	}
	cert, key := p.Client(t, "alice")
	if err := verify(t, p.CAFile, cert, key, "", client); err != nil {
		t.Errorf("client certificate for alice: %v", err)
	}
	if cn := commonName(t, cert); cn != "alice" {
		t.Errorf("client certificate's common name %q, want alice", cn)
	}
	if cn := commonName(t, p.ClientCert); cn != tlstest.ClientName {
		t.Errorf("client certificate's common name %q, want %q", cn, tlstest.ClientName)
	}
	for _, f := range []string{p.ServerKey, p.ExpiredKey, p.WrongHostKey, p.ClientKey, p.ClientCertKey, p.WrongClientKey, key} {
		fi, err := os.Stat(f)
		if err != nil || fi.Mode().Perm() != 0o600 || !strings.HasPrefix(f, p.Dir) {
			t.Errorf("key file %s: %v, mode %v, want 0600 in %s", f, err, fi.Mode().Perm(), p.Dir)
		}
	}
}

// Host names given to New replace the defaults: names go to DNS names, addresses to IP
// addresses.
func TestPKIHosts(t *testing.T) {
	p := tlstest.New(t, "db.test", "10.1.2.3")
	server := x509.ExtKeyUsageServerAuth
	for _, host := range []string{"db.test", "10.1.2.3"} {
		if err := verify(t, p.CAFile, p.ServerCert, p.ServerKey, host, server); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
	if err := verify(t, p.CAFile, p.ServerCert, p.ServerKey, "127.0.0.1", server); err == nil {
		t.Errorf("server certificate for db.test and 10.1.2.3 verified for 127.0.0.1")
	}
}

func commonName(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: no PEM block", file)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c.Subject.CommonName
}
