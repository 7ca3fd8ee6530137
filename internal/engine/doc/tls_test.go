package doc_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// The configuration check reads the TLS files a mongodb URI names: a missing or non-PEM
// tlsCAFile, or a tlsCertificateKeyFile without its key, is a one-line error that names the
// option and not the URI (mongodb+srv:// too, whose hosts it does not look up); good files pass.
func TestCheckMongoDSNTLSFiles(t *testing.T) {
	p := tlstest.New(t)
	missing := filepath.Join(p.Dir, "missing.pem")
	q := url.QueryEscape
	base := "mongodb://bench:S3cret@127.0.0.1:1/?tls=true"
	cases := []struct{ dsn, want string }{
		{base + "&tlsCAFile=" + q(p.CAFile), ""},
		{base + "&tlsCAFile=" + q(p.CAFile) + "&tlsCertificateKeyFile=" + q(p.ClientCertKey), ""},
		{base + "&tlsCAFile=" + q(missing), "the DSN's tlsCAFile: open " + missing},
		{"mongodb+srv://bench:S3cret@cluster0.example.invalid/?tlsCAFile=" + q(missing), "the DSN's tlsCAFile: open " + missing},
		{base + "&tlsCAFile=" + q(p.ClientKey), "holds no PEM certificate"},
		{base + "&tlsCAFile=" + q(p.CAFile) + "&tlsCertificateKeyFile=" + q(p.ClientCert), "holds no PEM private key"},
	}
	for _, d := range []engine.Driver{doc.MongoDBDriver(), doc.FerretDBDriver()} {
		reg, err := engine.NewRegistry(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			err := reg.Check(engine.Config{Name: d.Name, Engine: d.Name, DSN: c.dsn})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s: %q: %v", d.Name, c.dsn, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s: %q: %v, want %q", d.Name, c.dsn, err, c.want)
			case err != nil && (strings.Contains(err.Error(), "S3cret") || strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "\n")):
				t.Errorf("%s: not one line without the DSN: %v", d.Name, err)
			}
		}
	}
}

// startFerretDBTLS starts a FerretDB (on SQLite) whose TCP port takes mutual TLS with the
// server certificate certFile: a client certificate signed by p's CA.
func startFerretDBTLS(t *testing.T, p *tlstest.PKI, certFile, keyFile string) *server.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return servertest.StartWith(t, server.FerretDB, server.Options{
		Settings: map[string]string{"handler": "sqlite", "port": strconv.Itoa(port)},
		TLS:      &server.TLS{CertFile: certFile, KeyFile: keyFile, ClientCAFile: p.CAFile}})
}

// The ferretdb engine reaches a FerretDB with mutual TLS by DSN: tls=true, tlsCAFile and the
// client's tlsCertificateKeyFile open it, and the link the run records says so.
func TestFerretDBOverMutualTLS(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	p := tlstest.New(t)
	srv := startFerretDBTLS(t, p, p.ServerCert, p.ServerKey)
	reg, err := engine.NewRegistry(doc.FerretDBDriver())
	if err != nil {
		t.Fatal(err)
	}
	dsn := srv.TLSDSN(p.CAFile) + "&tlsCertificateKeyFile=" + url.QueryEscape(p.ClientCertKey)
	e, err := reg.Open(context.Background(), engine.Config{Name: "f", Engine: "ferretdb", DSN: dsn})
	if err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	defer e.Close()
	// The link the run records: the URI's host, TLS asked for, and a ping that answers.
	link, ping, done, err := e.(engine.Pinger).Pinger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(dsn)
	if link.Address != u.Host || link.TLS == "" || link.Ping != "ping" {
		t.Errorf("link %+v: want %s, TLS, ping", link, u.Host)
	}
	if err := errors.Join(ping(context.Background()), done()); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// A mongodb:// URI's TLS faults against real FerretDB servers are one-line errors that say what
// is wrong and what to change in the URI, without the URI: a CA that did not sign the server's
// certificate, a certificate for another host, an expired one, no client certificate for a
// server that asks for one, no TLS asked of a server that takes TLS only, and TLS asked of one
// that has none (its unix socket), which closes the connection at the handshake.
func TestFerretDBTLSFaults(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	p := tlstest.New(t)
	good := startFerretDBTLS(t, p, p.ServerCert, p.ServerKey)
	expired := startFerretDBTLS(t, p, p.ExpiredCert, p.ExpiredKey)
	wrongHost := startFerretDBTLS(t, p, p.WrongHostCert, p.WrongHostKey)
	reg, err := engine.NewRegistry(doc.FerretDBDriver())
	if err != nil {
		t.Fatal(err)
	}
	q := url.QueryEscape
	// A bound on each refusal: the driver retries a server that fails its handshake until
	// server selection gives up.
	const bound = "&serverSelectionTimeoutMS=3000"
	client := "&tlsCertificateKeyFile=" + q(p.ClientCertKey)
	u, _ := url.Parse(good.TLSDSN(p.CAFile))
	for _, f := range []struct{ name, dsn, want string }{
		{"the wrong CA", good.TLSDSN(p.WrongCAFile) + client, "not signed by a CA the DSN trusts"},
		{"a certificate for another host", wrongHost.TLSDSN(p.CAFile) + client, "not for the host the DSN connects to"},
		{"an expired certificate", expired.TLSDSN(p.CAFile) + client, "has expired"},
		{"no client certificate", good.TLSDSN(p.CAFile), "asks for a client certificate signed by its CA: give one with tlsCertificateKeyFile"},
		{"no TLS", "mongodb://" + u.Host + "/?directConnection=true", "closed a connection without TLS: if it takes TLS connections only, give tls=true"},
		{"TLS of a server without", good.DSN() + "&tls=true&tlsCAFile=" + q(p.CAFile), "closed the connection at the TLS handshake: if it has no TLS, give no tls option"},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			dsn := f.dsn + bound
			e, err := reg.Open(context.Background(), engine.Config{Name: "f", Engine: "ferretdb", DSN: dsn})
			if err == nil {
				e.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), f.want) {
				t.Errorf("%v, want %q", err, f.want)
			}
			if strings.Contains(err.Error(), dsn) || strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line without the URI: %v", err)
			}
			t.Log(err)
		})
	}
}
