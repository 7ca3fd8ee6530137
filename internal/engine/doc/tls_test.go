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

// The ferretdb engine reaches a FerretDB with mutual TLS by DSN: tls=true, tlsCAFile and the
// client's tlsCertificateKeyFile open it; without the client certificate it is refused.
func TestFerretDBOverMutualTLS(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	p := tlstest.New(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := servertest.StartWith(t, server.FerretDB, server.Options{
		Settings: map[string]string{"handler": "sqlite", "port": strconv.Itoa(port)},
		TLS:      &server.TLS{CertFile: p.ServerCert, KeyFile: p.ServerKey, ClientCAFile: p.CAFile}})
	reg, err := engine.NewRegistry(doc.FerretDBDriver())
	if err != nil {
		t.Fatal(err)
	}
	dsn := srv.TLSDSN(p.CAFile) + "&tlsCertificateKeyFile=" + url.QueryEscape(p.ClientCertKey)
	e, err := reg.Open(context.Background(), engine.Config{Name: "f", Engine: "ferretdb", DSN: dsn})
	if err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	// The link the run records: the URI's host, TLS asked for, and a ping that answers.
	link, ping, done, err := e.(engine.Pinger).Pinger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if link.Address != "127.0.0.1:"+strconv.Itoa(port) || link.TLS == "" || link.Ping != "ping" {
		t.Errorf("link %+v: want 127.0.0.1:%d, TLS, ping", link, port)
	}
	if err := errors.Join(ping(context.Background()), done()); err != nil {
		t.Errorf("ping: %v", err)
	}
	e.Close()
	bare := srv.TLSDSN(p.CAFile) + "&serverSelectionTimeoutMS=2000"
	if e, err := reg.Open(context.Background(), engine.Config{Name: "f", Engine: "ferretdb", DSN: bare}); err == nil {
		e.Close()
		t.Error("without a client certificate: opened")
	} else if strings.Contains(err.Error(), bare) {
		t.Errorf("the refusal shows the DSN: %v", err)
	}
}
