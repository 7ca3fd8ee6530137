package server_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// startTLS starts a server of kind with a TCP port that takes TLS only, with the PKI's server
// certificate and, when clientCA, its CA for client certificates.
func startTLS(t *testing.T, kind server.Kind, p *tlstest.PKI, clientCA bool) *server.Server {
	t.Helper()
	o := server.Options{Settings: map[string]string{"port": strconv.Itoa(freePort(t))},
		TLS: &server.TLS{CertFile: p.ServerCert, KeyFile: p.ServerKey}}
	if clientCA {
		o.TLS.ClientCAFile = p.CAFile
	}
	if kind == server.FerretDB {
		o.Settings["handler"] = "sqlite"
	}
	return servertest.StartWith(t, kind, o)
}

// clientTLS is a TLS client configuration that verifies the server against caFile as
// 127.0.0.1, with the client certificate certFile/keyFile when given.
func clientTLS(t *testing.T, caFile, certFile, keyFile string) *tls.Config {
	t.Helper()
	b, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(b)
	c := &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c
}

// pgTCP connects to s over TCP with the password, with TLS config c (nil: no TLS), and runs
// SELECT ssl FROM pg_stat_ssl for its own backend.
func pgTCP(t *testing.T, s *server.Server, c *tls.Config) (string, error) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable", s.Port(), s.User(), s.Database()))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password, cfg.TLSConfig, cfg.Fallbacks = s.Password(), c, nil
	cfg.ConnectTimeout = 30 * time.Second
	conn, err := pgconn.ConnectConfig(context.Background(), cfg)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	res := conn.ExecParams(context.Background(), "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 {
		return "", fmt.Errorf("pg_stat_ssl: %v (%d rows)", res.Err, len(res.Rows))
	}
	return string(res.Rows[0][0]), nil
}

// mariaConn connects to s as root with the password over net/addr, with TLS config c (nil: none),
// and returns the session's Ssl_version ("" without TLS).
func mariaConn(t *testing.T, s *server.Server, network, addr string, c *tls.Config) (string, error) {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = s.User(), s.Password(), network, addr, s.Database()
	cfg.TLS, cfg.Timeout, cfg.Logger = c, 30*time.Second, &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var name, v string
	err = db.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_version'").Scan(&name, &v)
	return v, err
}

// A server started with Options.TLS takes TLS only on its TCP port: a client that verifies
// its certificate against the CA gets in (with the password) and its session is encrypted;
// a client without TLS is refused with the server's own reason; the private unix socket is as
// before. The server's copies of the files are in its private directory, mode 0600, its user's.
func TestTLSOnlyTCP(t *testing.T) {
	t.Parallel()
	p := tlstest.New(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			s := startTLS(t, kind, p, false)
			if on, client := s.TLS(); !on || client {
				t.Errorf("TLS() = %v, %v, want on without client certificates", on, client)
			}
			c := clientTLS(t, p.CAFile, "", "")
			addr := fmt.Sprintf("127.0.0.1:%d", s.Port())
			switch kind {
			case server.Postgres:
				if got, err := pgTCP(t, s, c); err != nil || got != "true" {
					t.Errorf("over TLS: ssl %q, %v; want true", got, err)
				}
				_, err := pgTCP(t, s, nil)
				if err == nil || !strings.Contains(err.Error(), "no encryption") {
					t.Errorf("without TLS: %v, want no pg_hba.conf entry ... no encryption", err)
				}
				if got := query(t, s, "SELECT current_setting('ssl')"); got != "on" {
					t.Errorf("ssl = %q on the socket's session, want on", got)
				}
			case server.MariaDB:
				if v, err := mariaConn(t, s, "tcp", addr, c); err != nil || !strings.HasPrefix(v, "TLS") {
					t.Errorf("over TLS: Ssl_version %q, %v; want TLS...", v, err)
				}
				// MariaDB 10.11 refuses an insecure transport as a wrong password (error 1045),
				// the same password that gets in over TLS.
				_, err := mariaConn(t, s, "tcp", addr, nil)
				var me *mysql.MySQLError
				if !errors.As(err, &me) || me.Number != 1045 {
					t.Errorf("without TLS: %v, want error 1045, access denied", err)
				}
				if v, err := mariaConn(t, s, "unix", s.SocketPath(), nil); err != nil || v != "" {
					t.Errorf("on the socket: Ssl_version %q, %v; want a plain session", v, err)
				}
			}
			checkCopies(t, s, 2)
		})
	}
}

// With a client CA, a TCP client needs a client certificate signed by it as well as the
// password: with one it gets in, without one or with one of another CA it is refused; the
// socket still needs none.
func TestTLSClientCertificates(t *testing.T) {
	t.Parallel()
	p := tlstest.New(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			s := startTLS(t, kind, p, true)
			if on, client := s.TLS(); !on || !client {
				t.Errorf("TLS() = %v, %v, want on with client certificates", on, client)
			}
			good := clientTLS(t, p.CAFile, p.ClientCert, p.ClientKey)
			cases := map[string]*tls.Config{
				"no client certificate":              clientTLS(t, p.CAFile, "", ""),
				"a client certificate of another CA": clientTLS(t, p.CAFile, p.WrongClientCert, p.WrongClientKey),
			}
			addr := fmt.Sprintf("127.0.0.1:%d", s.Port())
			connect := func(c *tls.Config) error {
				if kind == server.Postgres {
					_, err := pgTCP(t, s, c)
					return err
				}
				_, err := mariaConn(t, s, "tcp", addr, c)
				return err
			}
			if err := connect(good); err != nil {
				t.Errorf("with the client certificate: %v", err)
			}
			for name, c := range cases {
				if err := connect(c); err == nil {
					t.Errorf("with %s: connected", name)
				}
			}
			if kind == server.MariaDB {
				if _, err := mariaConn(t, s, "unix", s.SocketPath(), nil); err != nil {
					t.Errorf("on the socket without a certificate: %v", err)
				}
			}
			checkCopies(t, s, 3)
		})
	}
}

// checkCopies checks the server's copies of the TLS files: n files of mode 0600 owned by the
// server's user, in its socket directory.
func checkCopies(t *testing.T, s *server.Server, n int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.SocketDir(), "*.pem"))
	if len(files) != n {
		t.Errorf("%d PEM files in the socket directory (%v), want %d", len(files), files, n)
	}
	owner := os.Geteuid()
	if fi, err := os.Stat(s.DataDir()); err == nil {
		owner = int(fi.Sys().(*syscall.Stat_t).Uid)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if fi.Mode().Perm() != 0o600 || int(fi.Sys().(*syscall.Stat_t).Uid) != owner {
			t.Errorf("%s: mode %v, uid %d; want 0600 and the server's uid %d", f, fi.Mode().Perm(), fi.Sys().(*syscall.Stat_t).Uid, owner)
		}
	}
}

// A managed FerretDB takes a TCP port only with mutual TLS: a client with the client
// certificate gets in, one without is refused; a port without TLS, or with TLS but no client
// CA, is refused before anything starts, saying why.
func TestFerretDBMutualTLS(t *testing.T) {
	t.Parallel()
	servertest.Require(t, server.FerretDB)
	p := tlstest.New(t)
	port := strconv.Itoa(freePort(t))
	for name, o := range map[string]*server.TLS{
		"no TLS":       nil,
		"no client CA": {CertFile: p.ServerCert, KeyFile: p.ServerKey},
	} {
		_, err := server.Start(context.Background(), server.FerretDB, server.Options{DataDir: servertest.DataDir(t),
			Settings: map[string]string{"port": port, "handler": "sqlite"}, TLS: o})
		if err == nil || !strings.Contains(err.Error(), "client CA") {
			t.Errorf("%s: %v, want an error that asks for TLS with a client CA", name, err)
		}
	}
	s := startTLS(t, server.FerretDB, p, true)
	if s.Password() != "" {
		t.Error("a FerretDB server has a password, which nothing asks for")
	}
	ping := func(c *tls.Config, wait time.Duration) error {
		opts := options.Client().ApplyURI(fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", s.Port())).
			SetTLSConfig(c).SetServerSelectionTimeout(wait)
		client, err := mongo.Connect(opts)
		if err != nil {
			return err
		}
		defer client.Disconnect(context.Background())
		return client.Database("admin").RunCommand(context.Background(), bson.D{{Key: "ping", Value: 1}}).Err()
	}
	if err := ping(clientTLS(t, p.CAFile, p.ClientCert, p.ClientKey), time.Minute); err != nil {
		t.Errorf("with the client certificate: %v", err)
	}
	if err := ping(clientTLS(t, p.CAFile, "", ""), 2*time.Second); err == nil {
		t.Error("without a client certificate: connected")
	}
	checkCopies(t, s, 3)
}

// Options.TLS is checked before anything starts: it needs the port, and a certificate and
// key that are a pair; each fault is an error that says so.
func TestTLSOptionsChecked(t *testing.T) {
	t.Parallel()
	p := tlstest.New(t)
	port := strconv.Itoa(freePort(t))
	cases := []struct {
		name     string
		settings map[string]string
		tls      server.TLS
		want     string
	}{
		{"no port", nil, server.TLS{CertFile: p.ServerCert, KeyFile: p.ServerKey}, "give the setting port"},
		{"missing key", map[string]string{"port": port}, server.TLS{CertFile: p.ServerCert, KeyFile: filepath.Join(p.Dir, "none.pem")}, "none.pem"},
		{"key of another certificate", map[string]string{"port": port}, server.TLS{CertFile: p.ServerCert, KeyFile: p.ClientKey}, "private key does not match"},
		{"client CA not a certificate", map[string]string{"port": port}, server.TLS{CertFile: p.ServerCert, KeyFile: p.ServerKey, ClientCAFile: p.ServerKey}, "holds no PEM certificate"},
	}
	for _, kind := range kinds {
		for _, c := range cases {
			dir := servertest.DataDir(t)
			_, err := server.Start(context.Background(), kind, server.Options{DataDir: dir, Settings: c.settings, TLS: &c.tls})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s, %s: %v, want one line with %q", kind, c.name, err, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("%s, %s: the data directory holds %d files", kind, c.name, len(entries))
			}
		}
	}
}
