package sqldb

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// TestServerStatementProtocol checks on real servers, through their statement logs, that a
// statement run with arguments without being prepared reaches the server as text with its
// values interpolated by the client (as the references' clients send theirs), and that a
// prepared statement is prepared on the server and executed there.
func TestServerStatementProtocol(t *testing.T) {
	t.Parallel()
	for _, c := range serverCases()[:2] {
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			settings := maps.Clone(c.small)
			maps.Copy(settings, servertest.StatementLogSettings(c.kind))
			e, err := c.open(t, engine.Config{Settings: settings})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			ctx := context.Background()
			e.exec(t, "CREATE TABLE proto (a INT, b VARCHAR(20))")
			log := servertest.NewStatementLog(t, c.kind, e.dataDir)
			ins := Bind(e.Dialect(), "INSERT INTO proto (a, b) VALUES (?, ?), (?, ?)")
			e.exec(t, ins, 41, "it's", 42, "x")
			text := log.Next(t)
			st, err := e.SQL().PrepareContext(ctx, Bind(e.Dialect(), "SELECT b FROM proto WHERE a = ?"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var b string
			if err := st.QueryRowContext(ctx, 42).Scan(&b); err != nil || b != "x" {
				t.Fatalf("prepared select: %q, %v", b, err)
			}
			prepared := log.Next(t)

			found := false
			for _, s := range text {
				if strings.Contains(s.SQL, "INSERT INTO proto") {
					found = true
					if s.Protocol != servertest.Text || !strings.Contains(s.SQL, "41") || !strings.Contains(s.SQL, "42") {
						t.Errorf("unprepared insert logged as %s %q, want text with its values", s.Protocol, s.SQL)
					}
				}
			}
			if !found {
				t.Errorf("the insert was not logged: %q", text)
			}
			shapes := servertest.Shapes(prepared)
			if shapes["execute: select b from proto where a = ?"] != 1 {
				t.Errorf("the prepared select was not executed as a prepared statement:\n%s", servertest.FormatShapes(shapes))
			}
			var n int
			if err := e.SQL().QueryRowContext(ctx, "SELECT count(*) FROM proto WHERE b = 'it''s'").Scan(&n); err != nil || n != 1 {
				t.Errorf("the interpolated string was not stored as sent: %d rows, %v", n, err)
			}
		})
	}
}
