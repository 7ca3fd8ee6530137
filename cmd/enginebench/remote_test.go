package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// TestRemoteTLSServer is issue 36's "Done when": a run with --dsn over TLS, verified, against
// a server whose TCP port is TLS-only, without --db-pid or --data-dir: the DBMS's host is
// unknown, its CPU and IO from /proc are not measured ("-"), the round trip and the session's
// TLS are recorded, and the efficiency tables are filled from the server's own counters.
func TestRemoteTLSServer(t *testing.T) {
	integration(t, "starts servers")
	onEachServerKind(t, func(t *testing.T, s existingServer) {
		pki := tlstest.New(t)
		srv := tlsServer(t, s, pki)
		dir := t.TempDir()
		out := filepath.Join(dir, "results")
		stdout, _ := runOK(t, "run", "--scale", "tiny", "--engines", s.engine, "--out", out, "--dsn", servertest.WithPassword(srv, srv.TLSDSN(pki.CAFile)),
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
