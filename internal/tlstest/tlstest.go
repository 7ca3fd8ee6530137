// Package tlstest makes a small public key infrastructure for tests of TLS: certificate
// authorities, server and client certificates, good and bad ones, as PEM files in a test's
// temporary directory. It uses crypto/x509 only (no openssl). Keys are ECDSA P-256, written
// as PKCS #8 ("PRIVATE KEY") with mode 0600; certificates are mode 0644.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ClientName is the common name of PKI.ClientCert: the managed PostgreSQL's superuser, which
// pg_hba's clientcert=verify-full compares with the user name.
const ClientName = "postgres"

// WrongHost is the only name in PKI.WrongHostCert.
const WrongHost = "wrong-host.invalid"

// PKI is a test's certificates, each a PEM file in Dir.
type PKI struct {
	// Dir holds every file.
	Dir string
	// CAFile is the certificate of the CA that signed every certificate below but those of
	// the wrong CA.
	CAFile string
	// ServerCert and ServerKey: a server certificate for the hosts given to New (127.0.0.1
	// and localhost by default), valid now.
	ServerCert, ServerKey string
	// WrongCAFile is the certificate of a second CA that has nothing to do with CAFile.
	WrongCAFile string
	// ExpiredCert and ExpiredKey: a server certificate for the same hosts, signed by the CA,
	// whose validity ended an hour ago.
	ExpiredCert, ExpiredKey string
	// WrongHostCert and WrongHostKey: a server certificate signed by the CA, valid now, for
	// WrongHost only.
	WrongHostCert, WrongHostKey string
	// ClientCert and ClientKey: a client certificate signed by the CA for ClientName.
	ClientCert, ClientKey string
	// ClientCertKey is ClientCert and ClientKey in one file (mode 0600), as MongoDB's
	// tlsCertificateKeyFile takes them.
	ClientCertKey string
	// WrongClientCert and WrongClientKey: a client certificate for ClientName signed by the
	// wrong CA.
	WrongClientCert, WrongClientKey string

	ca authority // for Client
}

// New makes a PKI in a new temporary directory of t. hosts are the server certificate's
// names: IP addresses go into its IP SANs, other names into its DNS SANs; none means
// 127.0.0.1 and localhost. Any failure fails the test.
func New(t testing.TB, hosts ...string) *PKI {
	t.Helper()
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "localhost"}
	}
	p := &PKI{Dir: t.TempDir()}
	ca := newCA(t, "enginebench test CA")
	p.ca = ca
	wrong := newCA(t, "enginebench unrelated CA")
	now := time.Now()
	p.CAFile = p.writeCert(t, "ca.pem", ca.cert)
	p.WrongCAFile = p.writeCert(t, "wrong-ca.pem", wrong.cert)
	p.ServerCert, p.ServerKey = p.issue(t, ca, "server", leaf(hosts[0], hosts, now.Add(-time.Hour), now.Add(24*time.Hour), x509.ExtKeyUsageServerAuth))
	p.ExpiredCert, p.ExpiredKey = p.issue(t, ca, "expired", leaf(hosts[0], hosts, now.Add(-48*time.Hour), now.Add(-time.Hour), x509.ExtKeyUsageServerAuth))
	p.WrongHostCert, p.WrongHostKey = p.issue(t, ca, "wrong-host", leaf(WrongHost, []string{WrongHost}, now.Add(-time.Hour), now.Add(24*time.Hour), x509.ExtKeyUsageServerAuth))
	p.ClientCert, p.ClientKey = p.issue(t, ca, "client", leaf(ClientName, nil, now.Add(-time.Hour), now.Add(24*time.Hour), x509.ExtKeyUsageClientAuth))
	p.ClientCertKey = p.concat(t, "client-cert-key.pem", p.ClientCert, p.ClientKey)
	p.WrongClientCert, p.WrongClientKey = p.issue(t, wrong, "wrong-client", leaf(ClientName, nil, now.Add(-time.Hour), now.Add(24*time.Hour), x509.ExtKeyUsageClientAuth))
	return p
}

// Client makes a further client certificate signed by the CA for the common name cn, and
// returns its certificate and key files.
func (p *PKI) Client(t testing.TB, cn string) (certFile, keyFile string) {
	t.Helper()
	now := time.Now()
	return p.issue(t, p.ca, "client-"+cn, leaf(cn, nil, now.Add(-time.Hour), now.Add(24*time.Hour), x509.ExtKeyUsageClientAuth))
}

// authority is a CA: its certificate and key.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// newCA makes a self-signed CA valid from a day ago for ten years.
func newCA(t testing.TB, name string) authority {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"enginebench tests"}},
		NotBefore:             time.Now().Add(-24 * time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("tlstest: CA %s: %v", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("tlstest: CA %s: %v", name, err)
	}
	return authority{cert: cert, key: key}
}

// leaf is the template of an end-entity certificate for cn with the names hosts.
func leaf(cn string, hosts []string, notBefore, notAfter time.Time, usage x509.ExtKeyUsage) *x509.Certificate {
	c := &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: []string{"enginebench tests"}},
		NotBefore:   notBefore,
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			c.IPAddresses = append(c.IPAddresses, ip)
		} else {
			c.DNSNames = append(c.DNSNames, h)
		}
	}
	return c
}

// issue signs tmpl with ca under a new key and writes name.pem and name-key.pem.
func (p *PKI) issue(t testing.TB, ca authority, name string, tmpl *x509.Certificate) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	tmpl.SerialNumber = serial(t)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatalf("tlstest: certificate %s: %v", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("tlstest: certificate %s: %v", name, err)
	}
	return p.writeCert(t, name+".pem", cert), p.writeKey(t, name+"-key.pem", key)
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("tlstest: key: %v", err)
	}
	return key
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		t.Fatalf("tlstest: serial: %v", err)
	}
	return n
}

// writeCert writes cert as a PEM file in Dir and returns its path.
func (p *PKI) writeCert(t testing.TB, name string, cert *x509.Certificate) string {
	t.Helper()
	return p.write(t, name, &pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}, 0o644)
}

// writeKey writes key as a PKCS #8 PEM file of mode 0600 in Dir and returns its path.
func (p *PKI) writeKey(t testing.TB, name string, key *ecdsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("tlstest: key %s: %v", name, err)
	}
	return p.write(t, name, &pem.Block{Type: "PRIVATE KEY", Bytes: der}, 0o600)
}

// concat writes the files in one file name of mode 0600 in Dir and returns its path.
func (p *PKI) concat(t testing.TB, name string, files ...string) string {
	t.Helper()
	var b []byte
	for _, f := range files {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("tlstest: %v", err)
		}
		b = append(b, c...)
	}
	path := filepath.Join(p.Dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("tlstest: %v", err)
	}
	return path
}

func (p *PKI) write(t testing.TB, name string, b *pem.Block, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(p.Dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(b), mode); err != nil {
		t.Fatalf("tlstest: %v", err)
	}
	if err := os.Chmod(path, mode); err != nil { // against the umask
		t.Fatalf("tlstest: %v", err)
	}
	return path
}
