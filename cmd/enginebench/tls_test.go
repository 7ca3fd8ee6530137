package main

import (
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// tlsServer starts a managed server of kind whose TCP port takes TLS only, with the PKI's
// server certificate.
func tlsServer(t *testing.T, s existingServer, p *tlstest.PKI) *server.Server {
	t.Helper()
	servertest.Require(t, s.kind)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	settings := map[string]string{"port": strconv.Itoa(port)}
	for k, v := range s.settings {
		settings[k] = v
	}
	return servertest.StartWith(t, s.kind, server.Options{Settings: settings,
		TLS: &server.TLS{CertFile: p.ServerCert, KeyFile: p.ServerKey}})
}

// A run on an existing server whose TCP port takes TLS only works with a DSN that verifies the
// server's certificate (PostgreSQL's sslmode=verify-full with sslrootcert, MariaDB's tls-ca);
// with the wrong CA, or a CA file that is not there, it is refused before any work, exit 2,
// in one line that says what to change and shows neither the DSN nor the password.
func TestTLSRunOnExistingServer(t *testing.T) {
	integration(t, "starts servers")
	p := tlstest.New(t)
	onEachServerKind(t, func(t *testing.T, s existingServer) {
		srv := tlsServer(t, s, p)
		args := func(dsn string) ([]string, string) {
			args, out := tinyArgs(t, s.engine, "--dsn", servertest.WithPassword(srv, dsn), "--rows", "2000", "--steps", "l.i0")
			args[slices.Index(args, "--data-dir")+1] = srv.DataDir()
			return args, out
		}
		ok, out := args(srv.TLSDSN(p.CAFile))
		runOK(t, ok...)
		if run := loadRun(t, out); run.Status != result.StatusOK || len(run.Configs) != 1 || len(run.Configs[0].Steps) != 1 {
			t.Fatalf("run over TLS: status %q, %d configs", run.Status, len(run.Configs))
		}

		caParam := map[string]string{"postgres": "sslrootcert=FILE", "innodb": "tls-ca=FILE"}[s.engine]
		wrong, out := args(srv.TLSDSN(p.WrongCAFile))
		stderr := runBadOut(t, "the server's certificate is not signed by a CA the DSN trusts (x509: unknown authority): give the CA that signed it in "+caParam, wrong...)
		if strings.Contains(stderr, srv.Password()) || strings.Contains(stderr, p.WrongCAFile+"&") {
			t.Errorf("the refusal shows the password or the DSN: %s", stderr)
		}
		if _, err := result.Load(out); err == nil {
			t.Error("the refused run wrote results")
		}

		missing := filepath.Join(p.Dir, "missing-ca.pem")
		want := map[string]string{"postgres": "the DSN's TLS files: unable to read CA file: open " + missing,
			"innodb": "the DSN parameter tls-ca: open " + missing}[s.engine]
		absent, _ := args(srv.TLSDSN(missing))
		if stderr := runBadOut(t, want, absent...); strings.Contains(stderr, srv.Password()) {
			t.Errorf("the refusal shows the password: %s", stderr)
		}
	})
}
