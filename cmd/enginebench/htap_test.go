package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
)

// TestHTAPFlagRejectsBadValues: --htap-transaction-seconds takes a whole number of seconds, 0
// or more; anything else is bad input.
func TestHTAPFlagRejectsBadValues(t *testing.T) {
	for v, want := range map[string]string{
		"-1":          "--htap-transaction-seconds must be within 0..31622400 (0: off), got -1",
		"99999999999": "--htap-transaction-seconds must be within 0..31622400 (0: off), got 99999999999",
		"x":           `invalid argument "x" for "--htap-transaction-seconds" flag`,
		"1.5":         `invalid argument "1.5" for "--htap-transaction-seconds" flag`,
	} {
		t.Run(v, func(t *testing.T) {
			runBad(t, want, "run", "--scale", "tiny",
				"--out", filepath.Join(t.TempDir(), "results"), "--data-dir", filepath.Join(t.TempDir(), "d"),
				"--htap-transaction-seconds", v)
		})
	}
}

// TestHTAPRefusesEngineWithoutSnapshots: an engine that cannot hold a snapshot open is refused
// before the run, naming it; one that can is not.
func TestHTAPRefusesEngineWithoutSnapshots(t *testing.T) {
	args, _ := tinyArgs(t, "bbolt", "--htap-transaction-seconds", "5")
	runBad(t, "engine bbolt cannot hold a read snapshot open", args...)
	args, _ = tinyArgs(t, "null", "--htap-transaction-seconds", "5")
	runBad(t, "engine null cannot hold a read snapshot open", args...)
}

// htapArgs are the steps and sizes of the HTAP runs: a load, an l.i1 that deletes a row
// version per row it inserts, in small batches so that there are many transactions, and a
// cleanup that waits 2 s, in which no snapshot is held.
var htapArgs = []string{"--steps", "l.i0,l.i1,cleanup", "--rows", "3000", "--rows-l.i1", "3000", "--batch-l.i1", "10",
	"--cleanup-wait", "2", "--no-calibrate"}

// TestHTAPHoldsBackPurgeAndVacuum runs postgres and innodb on managed servers with
// --htap-transaction-seconds longer than the steps (each of l.i0 and l.i1 holds one
// transaction from its start to its end, ended after the step's engine_stats are read), in
// the corrected variant and the reference's, and without it. Corrected (REPEATABLE READ on
// every server), the step's engine_stats (the report's debt tables) and the htap's
// engine_stats_held show the debt the snapshot held back: PostgreSQL's oldest snapshot is as
// old as the step's write transactions, which VACUUM could not clean behind (without the
// option: 0), and InnoDB's history list holds the undo logs of the l.i1 deletes, which purge
// could not remove. In the reference variant the transaction is the reference's, at the
// server's isolation: InnoDB's REPEATABLE READ holds the same, PostgreSQL's READ COMMITTED
// holds no snapshot, as the reference's does not. Without the option purge removes them by the end of the cleanup (which
// waits 2 s; how far InnoDB's purge lags during a step depends on the machine, so the l.i1
// figures of InnoDB are not compared). The holder's connection is no client: the step has one
// client, whose operations are its inserts and deletes alone.
func TestHTAPHoldsBackPurgeAndVacuum(t *testing.T) {
	integration(t, "starts servers")
	servertest.Require(t, server.Postgres)
	servertest.Require(t, server.MariaDB)
	with, reference, without := make(chan *result.Run, 1), make(chan *result.Run, 1), make(chan *result.Run, 1)
	for _, c := range []struct {
		extra []string
		into  chan *result.Run
	}{
		{[]string{"--htap-transaction-seconds", "3600", "--variant", "corrected"}, with},
		{[]string{"--htap-transaction-seconds", "3600"}, reference},
		{nil, without},
	} {
		out, data := filepath.Join(t.TempDir(), "results"), serverDataDir(t)
		args := append([]string{"run", "--scale", "tiny", "--engines", "postgres,innodb", "--out", out, "--data-dir", data},
			append(htapArgs, c.extra...)...)
		runOK(t, args...)
		c.into <- loadRun(t, out)
		if c.into == with { // the debt tables show what the snapshot held back
			md, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil || !strings.Contains(string(md), "snapshot_xid_age") || !strings.Contains(string(md), "history_list_length") {
				t.Errorf("report.md (%v) has no snapshot_xid_age or history_list_length in its debt tables", err)
			}
		}
	}
	a, ref, b := <-with, <-reference, <-without
	if got := a.Workload.Params["htap_transaction_seconds"]; got != float64(3600) {
		t.Errorf("params htap_transaction_seconds = %v, want 3600", got)
	}
	for i, c := range a.Configs {
		if c.Status != result.StatusOK || len(c.Steps) != 3 || len(b.Configs[i].Steps) != 3 {
			t.Fatalf("%s: status %s, %d steps: %s", c.Name, c.Status, len(c.Steps), c.Error)
		}
		for _, s := range c.Steps[:2] {
			checkStep(t, c.Name, s)
			h := s.HTAP
			if h == nil || h.TransactionSeconds != 3600 || h.Connections != 1 || h.Snapshots != 1 || h.Errors != 0 {
				t.Errorf("%s %s: htap %s, want 1 connection holding 1 snapshot without errors", c.Name, s.Name, show(h))
			}
			if s.Clients != 1 || len(s.Ops) != map[string]int{"l.i0": 1, "l.i1": 2}[s.Name] {
				t.Errorf("%s %s: %d clients, ops %v: the holder counted as a client or an op", c.Name, s.Name, s.Clients, s.Ops)
			}
		}
		if h := c.Steps[2].HTAP; h != nil {
			t.Errorf("%s cleanup: htap %s: no snapshot is held in the cleanup", c.Name, show(h))
		}
		for _, s := range b.Configs[i].Steps {
			if s.HTAP != nil {
				t.Errorf("%s %s without the option: htap %s", c.Name, s.Name, show(s.HTAP))
			}
		}
		li1, li1Without, drained := c.Steps[1], b.Configs[i].Steps[1], b.Configs[i].Steps[2]
		deletes := li1.Ops["delete"].Count
		key := map[string]string{"postgres": "snapshot_xid_age", "innodb": "history_list_length"}[c.Engine]
		held := li1.HTAP.EngineStatsHeld[key]
		t.Logf("%s l.i1: %d deletes; %s %v held, %v at the end; without the option %v at the end of l.i1, %v after the cleanup",
			c.Name, deletes, key, held, li1.EngineStats[key], li1Without.EngineStats[key], drained.EngineStats[key])
		// Every delete is a transaction of its own that committed while the snapshot was
		// open but for the few before the holder began: at least half of them are held.
		if held < float64(deletes)/2 || li1.EngineStats[key] < float64(deletes)/2 {
			t.Errorf("%s l.i1: %s %v while the snapshot was open, %v at the step's end; want at least half the step's %d deletes",
				c.Name, key, held, li1.EngineStats[key], deletes)
		}
		if end, ok := li1Without.EngineStats[key]; c.Engine == "postgres" && (!ok || end >= float64(deletes)/2) {
			t.Errorf("%s l.i1 without the option: %s %v (%v) at the step's end, want below half the %d deletes: no snapshot held",
				c.Name, key, end, ok, deletes)
		}
		if end, ok := drained.EngineStats[key]; !ok || end >= float64(deletes)/2 {
			t.Errorf("%s without the option: %s %v (%v) after the cleanup, want below half the l.i1's %d deletes", c.Name, key, end, ok, deletes)
		}
		refLi1 := ref.Configs[i].Steps[1]
		if refLi1.HTAP == nil || refLi1.HTAP.Snapshots != 1 {
			t.Fatalf("%s l.i1 in the reference variant: htap %s, want 1 transaction held", c.Name, show(refLi1.HTAP))
		}
		refHeld, reached := refLi1.HTAP.EngineStatsHeld[key], ""
		t.Logf("%s l.i1 in the reference variant: %s %v held", c.Name, key, refHeld)
		switch {
		case c.Engine == "innodb" && refHeld < float64(deletes)/2:
			reached = "want at least half the step's deletes: InnoDB's REPEATABLE READ holds the read view"
		case c.Engine == "postgres" && refHeld >= float64(deletes)/2:
			reached = "want below half the step's deletes: at READ COMMITTED the reference's transaction holds no snapshot"
		}
		if reached != "" {
			t.Errorf("%s l.i1 in the reference variant: %s %v with %d deletes; %s", c.Name, key, refHeld, deletes, reached)
		}
	}
}

// TestHTAPOnEmbeddedEngines runs the option on SQLite (a read transaction in WAL mode) and
// pebble (a snapshot): each step that inserts or queries holds them, one per client, without
// errors, and the steps verify.
func TestHTAPOnEmbeddedEngines(t *testing.T) {
	integration(t, "runs engines")
	args, out := tinyArgs(t, "sqlite,pebble", "--clients", "2", "--rows", "2000", "--rows-l.i1", "1000",
		"--rows-l.i2", "200", "--query-seconds", "1", "--steps", "l.i0,l.x,l.i1,qr100", "--verify", "each-step",
		"--htap-transaction-seconds", "1", "--no-calibrate")
	runOK(t, args...)
	for _, c := range loadRun(t, out).Configs {
		for _, s := range c.Steps {
			checkStep(t, c.Name, s)
			h := s.HTAP
			if s.Name == "l.x" {
				if h != nil {
					t.Errorf("%s l.x: htap %s: the index build holds none, as the reference's", c.Name, show(h))
				}
				continue
			}
			if h == nil || h.Connections != 2 || h.Snapshots < 2 || h.Errors != 0 || s.Clients != 2 {
				t.Errorf("%s %s: htap %s, %d clients; want 2 connections holding a snapshot each, no errors, 2 clients",
					c.Name, s.Name, show(h), s.Clients)
			}
		}
	}
}

// TestHTAPFailsOnSQLiteOutsideWAL: outside WAL mode a read transaction held open would stop
// every writer of SQLite, so the first step fails saying so instead.
func TestHTAPFailsOnSQLiteOutsideWAL(t *testing.T) {
	integration(t, "runs engines")
	args, out := tinyArgs(t, "sqlite", "--set", "sqlite.journal_mode=delete", "--rows", "500", "--steps", "l.i0",
		"--htap-transaction-seconds", "1", "--no-calibrate")
	if code, _, _ := runCLI(t, args...); code == 0 {
		t.Fatal("exit 0, want a failed step")
	}
	s := loadRun(t, out).Configs[0].Steps[0]
	if s.Status != result.StatusFailed || !strings.Contains(s.Error, "journal_mode delete: a read transaction held open blocks every writer") {
		t.Errorf("l.i0: status %s, error %q; want failed, naming the journal mode", s.Status, s.Error)
	}
}
