package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/result"
)

// existingServer is an existing server a test runs on, started for the test as a user's own.
type existingServer struct {
	engine   string
	kind     server.Kind
	settings map[string]string
}

// existingServers are a PostgreSQL and a MariaDB with InnoDB.
func existingServers() []existingServer {
	return []existingServer{
		{"postgres", server.Postgres, map[string]string{"shared_buffers": "128MB"}},
		{"innodb", server.MariaDB, map[string]string{"innodb_buffer_pool_size": "128M", "innodb_log_file_size": "256M"}},
	}
}

// onEachServerKind runs f in a parallel subtest for each kind of existingServers.
func onEachServerKind(t *testing.T, f func(t *testing.T, s existingServer)) {
	for _, s := range existingServers() {
		t.Run(s.engine, func(t *testing.T) {
			t.Parallel()
			f(t, s)
		})
	}
}

// tinyArgsOn returns the arguments of a tiny run on the existing server srv (--dsn), whose data
// directory the run measures, and its results directory.
func tinyArgsOn(t *testing.T, engine string, srv *server.Server, extra ...string) (args []string, out string) {
	args, out = tinyArgs(t, engine, append([]string{"--dsn", srv.DSN()}, extra...)...)
	args[slices.Index(args, "--data-dir")+1] = srv.DataDir()
	return args, out
}

// tablesOn returns the tables of the benchmark database of the existing server dsn.
func tablesOn(t *testing.T, eng, dsn string) []string {
	t.Helper()
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: eng, Engine: eng, DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
	if eng == "postgres" {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
	}
	rows, err := e.(sqldb.DB).SQL().Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TestExistingServerTables: a run on an existing server drops its tables at its end (--keep
// keeps them); a run on a server that has them (left by an earlier run) is refused before any
// work, exit 2, with the SQL that drops them; --drop-existing drops them and runs.
func TestExistingServerTables(t *testing.T) {
	integration(t, "starts servers")
	for _, s := range append(existingServers(), ferretServer()) {
		t.Run(s.engine, func(t *testing.T) {
			servertest.Require(t, s.kind)
			srv := servertest.Start(t, s.kind, s.settings)
			args := func(extra ...string) ([]string, string) {
				return tinyArgsOn(t, s.engine, srv, append([]string{"--rows", "2000", "--steps", "l.i0"}, extra...)...)
			}
			first, _ := args()
			runOK(t, first...)
			if got := namesOn(t, s.engine, srv.DSN()); len(got) != 0 {
				t.Fatalf("the run left the tables %v", got)
			}
			keep, _ := args("--keep")
			runOK(t, keep...)
			if got := namesOn(t, s.engine, srv.DSN()); !slices.Equal(got, []string{"pi1"}) {
				t.Fatalf("tables after a run with --keep: %v, want [pi1]", got)
			}
			// The next run is refused before any work.
			refused, out := args()
			runBad(t, "configuration "+s.engine+" (DSN from --dsn): the existing server already has the insert workload's tables pi1 "+
				"(an earlier run left them?): drop them ("+dropOf(s.engine, "pi1")+") or give --drop-existing", refused...)
			if _, err := result.Load(out); err == nil {
				t.Error("the refused run wrote results")
			}
			drop, out := args("--drop-existing")
			runOK(t, drop...)
			notes := strings.Join(loadRun(t, out).Configs[0].Notes, "\n")
			for _, want := range []string{"the tables pi1 that were there were dropped first (--drop-existing)",
				"the tables pi1 were dropped at the end (--keep keeps them)"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
			if got := namesOn(t, s.engine, srv.DSN()); len(got) != 0 {
				t.Errorf("tables after the run with --drop-existing: %v", got)
			}
		})
	}
}

// TestWorkloadTables: each workload's Tables names exactly the tables its run creates (run on
// an existing PostgreSQL with --keep).
func TestWorkloadTables(t *testing.T) {
	integration(t, "starts a server")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	for _, c := range []struct {
		name string
		args []string
	}{
		{"insert", []string{"--rows", "2000", "--steps", "l.i0", "--clients", "2"}},
		{"iibench", []string{"--max-rows", "2000"}},
		{"linkbench", []string{"--maxid1", "2000", "--steps", "load", "--distribution-file", fewLinks(t)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args, _ := tinyArgsOn(t, "postgres", srv, append([]string{"--keep"}, c.args...)...)
			args = slices.Insert(args, 1, c.name)
			runOK(t, args...)
			cmd, f := runCommand(nil, nil)
			fl := cmd.Flags()
			if err := fl.Parse(args[2:]); err != nil {
				t.Fatal(err)
			}
			w, err := f.workload(fl, c.name)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Sorted(slices.Values(w.Tables()))
			if got := tablesOn(t, "postgres", srv.DSN()); !slices.Equal(got, want) {
				t.Errorf("the run created %v; Tables says %v", got, want)
			}
			reg, _ := registry.Engines()
			e, err := reg.Open(context.Background(), engine.Config{Name: "postgres", Engine: "postgres", DSN: srv.DSN()})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := sqldb.DropTables(context.Background(), e.(sqldb.DB), want); err != nil {
				t.Fatal(err)
			}
		})
	}
}
