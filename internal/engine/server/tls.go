package server

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
)

// TLS is a managed server's certificate for its TCP port (Options.TLS). With it, TCP is
// TLS-only: PostgreSQL's pg_hba.conf has hostssl lines instead of host lines, MariaDB runs with
// require_secure_transport (its private unix socket counts as secure and stays as it is), and
// FerretDB listens with --listen-tls instead of plain TCP. The files are copied into the
// server's private socket directory (mode 0600, owned by the server's user), removed when the
// server stops: a kept data directory's configuration then names files that are gone.
type TLS struct {
	// CertFile is the server's certificate (PEM; it may hold the chain after it), KeyFile its
	// private key (PEM).
	CertFile, KeyFile string
	// ClientCAFile, when set, is the CA (PEM) that signs the clients' certificates: every TCP
	// client must show one (mutual TLS). PostgreSQL: pg_hba's clientcert=verify-full (the
	// certificate's common name is the user name) with the password; MariaDB: the TCP
	// accounts REQUIRE X509 with the password; FerretDB: its only authentication.
	ClientCAFile string
}

// tlsFiles are the server's copies of Options.TLS's files, in its socket directory.
type tlsFiles struct {
	cert, key, ca string // ca: "" without a client CA
}

// The names of the copies in the socket directory.
const (
	tlsCertName = "server-cert.pem"
	tlsKeyName  = "server-key.pem"
	tlsCAName   = "client-ca.pem"
)

// checkTLS checks Options.TLS before anything starts: TLS is for the TCP port, the certificate
// and key are a pair, the client CA holds a certificate; for FerretDB, a port needs TLS with a
// client CA (its only authentication) and no further networks.
func checkTLS(kind Kind, port int, t *TLS, listen int) error {
	if kind == FerretDB && port > 0 && (t == nil || t.ClientCAFile == "") {
		return fmt.Errorf("%s: setting port: FerretDB 1.24 on SQLite has no authentication, so a managed FerretDB takes a TCP port only with TLS and a client CA (Options.TLS with ClientCAFile: only holders of a client certificate get in)", kind)
	}
	if t == nil {
		return nil
	}
	if port <= 0 {
		return fmt.Errorf("%s: TLS: give the setting port (TLS is for TCP; the server listens on its private socket only without a port)", kind)
	}
	if kind == FerretDB && listen > 0 {
		return fmt.Errorf("%s: TLS: a managed FerretDB listens on 127.0.0.1 only (no further networks)", kind)
	}
	if kind == Mongod {
		return fmt.Errorf("%s: TLS: a managed mongod is not started with TLS", kind)
	}
	if t.CertFile == "" || t.KeyFile == "" {
		return fmt.Errorf("%s: TLS: give both the certificate and the key file", kind)
	}
	if _, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile); err != nil {
		return fmt.Errorf("%s: TLS: certificate %s and key %s: %w", kind, t.CertFile, t.KeyFile, err)
	}
	if t.ClientCAFile != "" {
		if err := checkCAFile(t.ClientCAFile); err != nil {
			return fmt.Errorf("%s: TLS: client CA: %w", kind, err)
		}
	}
	return nil
}

// checkCAFile checks that path is a PEM file that holds at least one certificate.
func checkCAFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate", path)
	}
	return nil
}

// copyTLS copies the files of t into the private directory dir for id, mode 0600; nil t: none.
func copyTLS(dir string, id identity, t *TLS) (*tlsFiles, error) {
	if t == nil {
		return nil, nil
	}
	var f tlsFiles
	var err error
	if f.cert, err = copySecret(dir, tlsCertName, id, t.CertFile); err != nil {
		return nil, err
	}
	if f.key, err = copySecret(dir, tlsKeyName, id, t.KeyFile); err != nil {
		return nil, err
	}
	if t.ClientCAFile != "" {
		if f.ca, err = copySecret(dir, tlsCAName, id, t.ClientCAFile); err != nil {
			return nil, err
		}
	}
	return &f, nil
}

// copySecret copies the file src to dir/name, readable by id only.
func copySecret(dir, name string, id identity, src string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("TLS: %w", err)
	}
	p, err := writeSecretFile(dir, name, id, string(b))
	if err != nil {
		return "", fmt.Errorf("TLS: %w", err)
	}
	return p, nil
}

// TLS reports whether the server's TCP port takes TLS only (Options.TLS), and whether it asks
// clients for a certificate.
func (s *Server) TLS() (on, clientCert bool) {
	if s.tls == nil {
		return false, false
	}
	return true, s.tls.ca != ""
}

// TLSDSN returns a connection string over TCP to 127.0.0.1 with TLS, verifying the server's
// certificate against caFile, for the engines' --dsn: for postgres a postgres:// URL with
// sslmode=verify-full and sslrootcert; for MariaDB a go-sql-driver/mysql DSN with enginebench's
// tls-ca parameter (sqldb); for FerretDB a mongodb:// URI with tls=true and tlsCAFile. No
// password, no client certificate: the caller adds them. "" without a TCP port.
func (s *Server) TLSDSN(caFile string) string {
	if s.tcpPort == 0 {
		return ""
	}
	addr := fmt.Sprintf("127.0.0.1:%d", s.tcpPort)
	switch s.kind {
	case Postgres:
		q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {caFile}}
		return "postgres://" + s.user + "@" + addr + "/" + Database + "?" + q.Encode()
	case FerretDB, Mongod:
		q := url.Values{"directConnection": {"true"}, "tls": {"true"}, "tlsCAFile": {caFile}}
		return "mongodb://" + addr + "/?" + q.Encode()
	}
	return s.user + "@tcp(" + addr + ")/" + Database + "?tls-ca=" + url.QueryEscape(caFile)
}
