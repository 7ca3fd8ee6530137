package sqldb

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
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
