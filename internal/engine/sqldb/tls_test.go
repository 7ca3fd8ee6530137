package sqldb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// The configuration check (before any work) reads the TLS files a DSN names: a file that is
// missing or does not parse, and a contradiction in the MySQL family's TLS parameters, are
// one-line errors that say which and show neither the DSN nor its passwords; good files are
// accepted.
func TestCheckDSNTLSFiles(t *testing.T) {
	const pw, keyPw = "S3cret-pw-77", "K3y-pw-88"
	p := tlstest.New(t)
	missing := filepath.Join(p.Dir, "missing.pem")
	garbage := filepath.Join(p.Dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	q := url.QueryEscape
	pg := "postgres://bench:" + pw + "@127.0.0.1:1/db?sslmode=verify-full"
	my := "bench:" + pw + "@tcp(127.0.0.1:1)/db"
	cases := []struct {
		driver engine.Driver
		dsn    string
		want   string // "": accepted
	}{
		{PostgresDriver(), pg + "&sslrootcert=" + q(p.CAFile), ""},
		{PostgresDriver(), pg + "&sslrootcert=" + q(p.CAFile) + "&sslcert=" + q(p.ClientCert) + "&sslkey=" + q(p.ClientKey), ""},
		{PostgresDriver(), pg + "&sslrootcert=" + q(missing), "the DSN's TLS files: unable to read CA file: open " + missing},
		{PostgresDriver(), pg + "&sslrootcert=" + q(p.ClientKey), "the sslrootcert file holds no PEM certificate"},
		{PostgresDriver(), pg + "&sslcert=" + q(p.ClientCert), `both "sslcert" and "sslkey" are required`},
		{PostgresDriver(), "host=127.0.0.1 sslmode=verify-full sslcert=" + p.ClientCert + " sslkey=" + p.CAFile + " sslpassword=" + keyPw + " password=" + pw,
			"found a certificate rather than a key"},
		{PostgresDriver(), pg + "&sslcert=" + q(p.ClientCert) + "&sslkey=" + q(missing) + "&sslpassword=" + keyPw, "unable to read sslkey: open " + missing},
		{PostgresDriver(), pg + "&sslcert=" + q(p.ClientCert) + "&sslkey=" + q(garbage), "the sslkey file holds no PEM key"},
		{InnoDBDriver(), my + "?tls-ca=" + p.CAFile, ""},
		{MyRocksDriver(), my + "?tls=true&tls-ca=" + q(p.CAFile) + "&tls-cert=" + p.ClientCert + "&tls-key=" + p.ClientKey, ""},
		{InnoDBDriver(), my + "?tls=skip-verify&tls-cert=" + p.ClientCert + "&tls-key=" + p.ClientKey, ""},
		{InnoDBDriver(), my + "?tls-ca=" + missing, "the DSN parameter tls-ca: open " + missing},
		{InnoDBDriver(), my + "?tls-ca=" + p.ClientKey, "holds no PEM certificate"},
		{InnoDBDriver(), my + "?tls=false&tls-ca=" + p.CAFile, "tls=false"},
		{InnoDBDriver(), my + "?tls-ca=" + p.CAFile + "&tls=skip-verify", "verifies no certificate"},
		{InnoDBDriver(), my + "?tls-ca=" + p.CAFile + "&tls=preferred", "verifies no certificate"},
		{InnoDBDriver(), my + "?tls-cert=" + p.ClientCert, "give both"},
		{InnoDBDriver(), my + "?tls-cert=" + p.ClientCert + "&tls-key=" + p.ServerKey, "tls-cert and tls-key"},
		{InnoDBDriver(), my + "?tls-ca=" + p.CAFile + "&tls-ca=" + p.CAFile, "given twice"},
		{InnoDBDriver(), "bench:" + pw + "@unix(/tmp/x.sock)/db?tls-ca=" + p.CAFile, "for TCP"},
	}
	for _, c := range cases {
		reg, err := engine.NewRegistry(c.driver)
		if err != nil {
			t.Fatal(err)
		}
		err = reg.Check(engine.Config{Name: c.driver.Name, Engine: c.driver.Name, DSN: c.dsn})
		what := fmt.Sprintf("%s: Check(%q)", c.driver.Name, c.dsn)
		enginetest.CheckErr(t, what, err, c.want)
		if err == nil {
			continue
		}
		if msg := err.Error(); strings.Contains(msg, c.dsn) || strings.Contains(msg, pw) || strings.Contains(msg, keyPw) || strings.Contains(msg, "\n") {
			t.Errorf("%s: not one line without the DSN and its passwords: %v", what, err)
		}
	}
}

// enginebench's TLS parameters of a MySQL DSN are taken out before go-sql-driver parses it (it
// would send them to the server as session variables) and make the connection's tls.Config:
// the CA, the DSN's host as the name to verify, the client certificate.
func TestMySQLTLSParams(t *testing.T) {
	p := tlstest.New(t)
	cut, params, err := cutMySQLTLSParams("u:p?w@tcp(db.example:3306)/db?tls-ca=/a/ca.pem&tls=true&tls-cert=/c%26d.pem&tls-key=/k.pem&timeout=5s")
	if err != nil || cut != "u:p?w@tcp(db.example:3306)/db?tls=true&timeout=5s" ||
		params[mysqlTLSCA] != "/a/ca.pem" || params[mysqlTLSCert] != "/c&d.pem" || params[mysqlTLSKey] != "/k.pem" {
		t.Errorf("cut = %q, %v, %v", cut, params, err)
	}
	if cut, _, _ := cutMySQLTLSParams("u@tcp(h:1)/db?tls-ca=/a/ca.pem"); cut != "u@tcp(h:1)/db" {
		t.Errorf("cut of the only parameter = %q", cut)
	}
	mc, err := parseMySQLDSN("innodb", "u:pw@tcp(db.example:3306)/db?tls-ca="+p.CAFile+"&tls-cert="+p.ClientCert+"&tls-key="+p.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	if mc.TLS == nil || mc.TLS.RootCAs == nil || mc.TLS.ServerName != "db.example" || len(mc.TLS.Certificates) != 1 || mc.TLS.InsecureSkipVerify {
		t.Errorf("tls.Config = %+v, want the CA, ServerName db.example and the client certificate", mc.TLS)
	}
	for k := range mc.Params {
		if strings.HasPrefix(k, "tls") {
			t.Errorf("the parameter %s goes to the server as a session variable", k)
		}
	}
	if mc.Passwd != "pw" || mc.DBName != "db" {
		t.Errorf("password %q, database %q: the path's '/' moved the driver's last '/'", mc.Passwd, mc.DBName)
	}
}

// startTLSServer starts a managed server of kind whose TCP port takes TLS only, with the
// certificate certFile and key keyFile; with neither, a server with plain TCP.
func startTLSServer(t *testing.T, kind server.Kind, certFile, keyFile string) *server.Server {
	t.Helper()
	return startTLSServerCA(t, kind, certFile, keyFile, "")
}

// startTLSServerCA is startTLSServer that also asks TCP clients for a certificate signed by
// the CA of clientCA, when given.
func startTLSServerCA(t *testing.T, kind server.Kind, certFile, keyFile, clientCA string) *server.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	o := server.Options{Settings: map[string]string{"port": strconv.Itoa(port)}}
	if certFile != "" {
		o.TLS = &server.TLS{CertFile: certFile, KeyFile: keyFile, ClientCAFile: clientCA}
	}
	return servertest.StartWith(t, kind, o)
}

// tcpDSN is the DSN of srv over TCP with its password and the TLS options opts: for postgres
// URL parameters, for MariaDB go-sql-driver's and enginebench's parameters ("" for none).
func tcpDSN(srv *server.Server, opts string) string {
	if srv.Kind() == server.Postgres {
		dsn := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s", srv.User(), srv.Password(), srv.Port(), srv.Database())
		if opts != "" {
			dsn += "?" + opts
		}
		return dsn
	}
	dsn := fmt.Sprintf("%s:%s@tcp(127.0.0.1:%d)/%s", srv.User(), srv.Password(), srv.Port(), srv.Database())
	if opts != "" {
		dsn += "?" + opts
	}
	return dsn
}

// A DSN's TLS faults against real servers whose TCP port takes TLS only (and one without TLS)
// are one-line errors that say what is wrong and what to change in the DSN, without the DSN
// or its password: a CA that did not sign the server's certificate, a certificate for another
// host, an expired one, no TLS asked of a server that requires it, and TLS asked of a server
// that has none, no client certificate for a server that asks for one. With the right CA
// (and client certificate) the engine opens, its sessions are encrypted, and an
// interrupt (Ctrl-C) still stops a statement in flight at once.
func TestTLSConnectFaults(t *testing.T) {
	t.Parallel()
	p := tlstest.New(t)
	q := url.QueryEscape
	for _, c := range []struct {
		sc                      serverCase
		verify, plain, wrongCA  string // TLS options of a DSN
		client                  string // the options of the client certificate
		refusedPlain, noTLSHint string // what the hints of the plain and the reverse cases say
	}{
		{serverCases()[0], "sslmode=verify-full&sslrootcert=" + q(p.CAFile), "sslmode=disable", "sslmode=verify-full&sslrootcert=" + q(p.WrongCAFile),
			"&sslcert=" + q(p.ClientCert) + "&sslkey=" + q(p.ClientKey),
			"no pg_hba.conf entry without encryption", "set sslmode=disable"},
		{serverCases()[1], "tls-ca=" + p.CAFile, "", "tls-ca=" + p.WrongCAFile,
			"&tls-cert=" + p.ClientCert + "&tls-key=" + p.ClientKey,
			"require_secure_transport", "the DSN asks for TLS but the server has none"},
	} {
		t.Run(c.sc.driver.Name, func(t *testing.T) {
			t.Parallel()
			c.sc.require(t)
			good := startTLSServer(t, c.sc.kind, p.ServerCert, p.ServerKey)
			expired := startTLSServer(t, c.sc.kind, p.ExpiredCert, p.ExpiredKey)
			wrongHost := startTLSServer(t, c.sc.kind, p.WrongHostCert, p.WrongHostKey)
			plain := startTLSServer(t, c.sc.kind, "", "")
			mutual := startTLSServerCA(t, c.sc.kind, p.ServerCert, p.ServerKey, p.CAFile)

			e, err := c.sc.open(t, engine.Config{DSN: tcpDSN(good, c.verify)})
			if err != nil {
				t.Fatalf("with the CA: %v", err)
			}
			checkEncrypted(t, e)
			checkInterruptOverTLS(t, e)
			if _, err := c.sc.open(t, engine.Config{DSN: tcpDSN(mutual, c.verify+c.client)}); err != nil {
				t.Errorf("with the client certificate: %v", err)
			}

			for _, f := range []struct {
				name string
				dsn  string
				want string
				srv  *server.Server
			}{
				{"the wrong CA", tcpDSN(good, c.wrongCA), "not signed by a CA the DSN trusts", good},
				{"a certificate for another host", tcpDSN(wrongHost, c.verify), "not for the host the DSN connects to", wrongHost},
				{"an expired certificate", tcpDSN(expired, c.verify), "has expired", expired},
				{"no TLS", tcpDSN(good, c.plain), c.refusedPlain, good},
				{"TLS of a server without", tcpDSN(plain, c.verify), c.noTLSHint, plain},
				{"no client certificate", tcpDSN(mutual, c.verify), "a client certificate", mutual},
			} {
				_, err := c.sc.open(t, engine.Config{DSN: f.dsn})
				if err == nil || !strings.Contains(err.Error(), f.want) {
					t.Errorf("%s: %v, want %q", f.name, err, f.want)
					continue
				}
				if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, f.srv.Password()) || strings.Contains(msg, f.dsn) {
					t.Errorf("%s: not one line without the DSN and its password: %v", f.name, err)
				}
				t.Logf("%s: %v", f.name, err)
			}
		})
	}
}

// Each family's TLS modes do what docs/servers.md says against real TLS-only servers: those
// that do not check the host (PostgreSQL's verify-ca, require, prefer; MySQL's skip-verify,
// preferred) open an encrypted session to a server whose certificate the test CA signed for
// another host name, and those that check a CA refuse, on a server with a certificate for
// 127.0.0.1, one they were not given (require with the wrong sslrootcert, as libpq; tls=true,
// the system's CAs).
func TestTLSModes(t *testing.T) {
	t.Parallel()
	p := tlstest.New(t)
	q := url.QueryEscape
	for _, c := range []struct {
		sc      serverCase
		open    []string          // DSN options that open an encrypted session
		refused map[string]string // DSN options, and what their refusal says
	}{
		{serverCases()[0],
			[]string{"sslmode=verify-ca&sslrootcert=" + q(p.CAFile), "sslmode=require", "sslmode=prefer"},
			map[string]string{"sslmode=require&sslrootcert=" + q(p.WrongCAFile): "not signed by a CA the DSN trusts"}},
		{serverCases()[1],
			[]string{"tls=skip-verify", "tls=preferred"},
			map[string]string{"tls=true": "not signed by a CA the DSN trusts"}},
	} {
		t.Run(c.sc.driver.Name, func(t *testing.T) {
			t.Parallel()
			c.sc.require(t)
			srv := startTLSServer(t, c.sc.kind, p.WrongHostCert, p.WrongHostKey)
			good := startTLSServer(t, c.sc.kind, p.ServerCert, p.ServerKey)
			for _, opts := range c.open {
				e, err := c.sc.open(t, engine.Config{DSN: tcpDSN(srv, opts)})
				if err != nil {
					t.Errorf("%s: %v", opts, err)
					continue
				}
				checkEncrypted(t, e)
			}
			for opts, want := range c.refused {
				if _, err := c.sc.open(t, engine.Config{DSN: tcpDSN(good, opts)}); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want %q", opts, err, want)
				}
			}
		})
	}
}

// checkEncrypted checks that a session of e's pool runs over TLS.
func checkEncrypted(t *testing.T, e *serverEngine) {
	t.Helper()
	q := "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
	if e.Dialect().Name() != "postgres" {
		q = "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Ssl_version'"
	}
	var v string
	if err := e.SQL().QueryRowContext(t.Context(), q).Scan(&v); err != nil || (v != "true" && !strings.HasPrefix(v, "TLS")) {
		t.Errorf("%s: %q, %v; want a TLS session", q, v, err)
	}
}

// checkInterruptOverTLS checks that a Conn over TLS is interrupted as over plain TCP: the
// statement in flight fails at once when the Conn's context ends, with an error that wraps
// the context's, and PostgreSQL's server stops it (the cancel request).
func checkInterruptOverTLS(t *testing.T, e *serverEngine) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := Connect(ctx, e.DB)
	if err != nil {
		t.Fatal(err)
	}
	if c.stop == nil {
		t.Fatal("the Conn over TLS is not watched: its network connection is not known")
	}
	sleep, running := sleepQuery(e.Dialect())
	done := make(chan error, 1)
	go func() {
		_, err := c.ExecContext(c.Ctx(ctx), sleep)
		done <- c.Err(err)
	}()
	waitRunning(t, e.SQL(), running, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the interrupted statement over TLS returned %v, want an error wrapping context.Canceled", err)
	}
	c.Close()
	if e.Dialect().Name() == "postgres" {
		// The cancel request reached the server too, which stopped the statement.
		waitRunning(t, e.SQL(), running, 0)
	}
}
