package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// tlsDSN returns the DSN of srv's benchmark database over TLS on 127.0.0.1, verified against
// caFile for the host name (PostgreSQL sslmode=verify-full; MySQL tls-ca), with the server's
// password.
func tlsDSN(eng string, srv *server.Server, caFile string) string {
	if eng == "postgres" {
		return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=verify-full&sslrootcert=%s",
			srv.User(), url.QueryEscape(srv.Password()), srv.Port(), srv.Database(), url.QueryEscape(caFile))
	}
	return fmt.Sprintf("%s:%s@tcp(127.0.0.1:%d)/%s?tls-ca=%s", srv.User(), srv.Password(), srv.Port(), srv.Database(), url.QueryEscape(caFile))
}

// TestRemoteTLSServer is issue 36's "Done when": a run with --dsn over TLS, verified, against
// a server whose TCP port is TLS-only, without --db-pid or --data-dir: the DBMS's host is
// unknown, its CPU and IO from /proc are not measured ("-"), the round trip and the session's
// TLS are recorded, and the efficiency tables are filled from the server's own counters.
func TestRemoteTLSServer(t *testing.T) {
	integration(t, "starts servers")
	onEachServerKind(t, func(t *testing.T, s existingServer) {
		pki := tlstest.New(t)
		settings := map[string]string{"port": strconv.Itoa(freeTCPPort(t))}
		for k, v := range s.settings {
			settings[k] = v
		}
		srv := servertest.StartWith(t, s.kind, server.Options{Settings: settings,
			TLS: &server.TLS{CertFile: pki.ServerCert, KeyFile: pki.ServerKey}})
		dir := t.TempDir()
		out := filepath.Join(dir, "results")
		stdout, _ := runOK(t, "run", "--scale", "tiny", "--engines", s.engine, "--out", out, "--dsn", tlsDSN(s.engine, srv, pki.CAFile),
			"--rows", "20000", "--steps", "l.i0,l.x,qr100", "--query-seconds", "2")
		run := loadRun(t, out)
		c := run.Configs[0]
		l := c.Server
		if l == nil || l.DBMSHost != result.DBMSUnknown || l.Address != "127.0.0.1:"+strconv.Itoa(srv.Port()) {
			t.Fatalf("server link %+v: want an unknown DBMS host at 127.0.0.1:%d", l, srv.Port())
		}
		if !strings.HasPrefix(l.TLS, "TLSv1.") {
			t.Errorf("the session's TLS %q: want the server's TLSv1.x and cipher", l.TLS)
		}
		if rt := l.RoundTrip; rt == nil || rt.Samples != 100 || rt.Statement != "SELECT 1" || !(rt.MinUs > 0 && rt.MinUs <= rt.P50Us && rt.P50Us <= rt.MaxUs) {
			t.Errorf("round trip %+v: want 100 ordered samples of SELECT 1", l.RoundTrip)
		}
		for _, st := range c.Steps {
			if st.Efficiency != nil && st.Efficiency.DBCPUpq != nil {
				t.Errorf("step %s: db_cpupq %v without the DBMS's process: want it not measured", st.Name, *st.Efficiency.DBCPUpq)
			}
		}
		if !strings.Contains(stdout, s.engine+": the DBMS is not on this host (127.0.0.1:") {
			t.Errorf("the printed summary does not say the DBMS is elsewhere:\n%s", stdout)
		}
		md, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), "## Servers not on this host: the rate beside the client's share") {
			t.Errorf("summary.md has no table of the rate beside the client's share")
		}
		checkServerCounters(t, run, string(md))
	})
}
