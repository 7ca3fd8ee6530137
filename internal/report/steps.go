package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// The tables of steps every workload shows: the steps' status, those that did not finish, the
// engine's debt, and the efficiency of each step with a rate.

// details is the Steps table: each step's status, time, probe, fairness, verification and
// retries.
func details(r *result.Run, sp spreads) Table {
	t := Table{Title: "Steps", Header: []string{"config", "step", "status", "time", "probe", "fairness", "verify", "retries"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			status := s.Status // the error is in the header lines
			verify, retries := missing, missing
			if s.Verify != nil {
				verify = "ok"
				if !s.Verify.OK {
					verify = "FAILED"
				}
			}
			if len(s.Retries) > 0 {
				var parts []string
				for _, op := range slices.Sorted(maps.Keys(s.Retries)) {
					parts = append(parts, fmt.Sprintf("%s %d", op, s.Retries[op]))
				}
				retries = strings.Join(parts, ", ")
			}
			row := append([]string{c.Name, s.Name, status}, sp.cells(c.Name, s, detailCells)...)
			t.Rows = append(t.Rows, append(row, verify, retries))
		}
	}
	return t
}

// detailCells are the figures of a step in the Steps table: time, probe and fairness.
func detailCells(s *result.Step) []string {
	probe, fair := missing, missing
	if s.Probe != nil {
		probe = numfmt.Seconds(s.Probe.MinTrxIDSeconds)
	}
	if s.Fairness != nil && len(s.Ops) > 0 {
		fair = numfmt.Num(s.Fairness.Pct) + "%"
	}
	return []string{numfmt.Seconds(s.Seconds), probe, fair}
}

// effColumn is a column of the efficiency tables and its getter.
type effColumn struct {
	name string
	get  func(s *result.Step) *float64
}

// effColumns are the established efficiency columns after the rate, with their getters.
var effColumns = []effColumn{
	{"cpupq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.CPUpq }) }},
	{"cspq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.CSpq }) }},
	{"rpq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.Rpq }) }},
	{"rkbpq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.RKBpq }) }},
	{"wpi", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.Wpi }) }},
	{"wkbpi", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.WKBpi }) }},
	{"dbgb1", func(s *result.Step) *float64 { return size(s, func(z *result.Size) *float64 { return z.DBGB1 }) }},
	{"dbgb2", func(s *result.Step) *float64 { return size(s, func(z *result.Size) *float64 { return z.DBGB2 }) }},
	{"wamp", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.Wamp }) }},
}

func eff(s *result.Step, f func(*result.Efficiency) *float64) *float64 {
	if s.Efficiency == nil {
		return nil
	}
	return f(s.Efficiency)
}

func size(s *result.Step, f func(*result.Size) *float64) *float64 {
	if s.Size == nil {
		return nil
	}
	return f(s.Size)
}

// efficiency returns one table per step with a headline rate: a row per configuration with
// the rate and the established efficiency columns; then the tables of the figures from the
// server's own counters, for the steps that have them (srvEfficiency).
func efficiency(r *result.Run, sp spreads) []Table {
	var out []Table
	for _, n := range rateSteps(r) {
		if n == "warmup" {
			continue // not counted
		}
		out = append(out, effTable(r, n, sp))
	}
	return append(out, srvEfficiency(r, sp)...)
}

// effTable is the efficiency table of one step.
func effTable(r *result.Run, step string, sp spreads) Table {
	var header []string
	for _, c := range effColumns {
		header = append(header, c.name)
	}
	return stepTable(r, step, "Efficiency: "+step, header, func(s *result.Step) []string {
		var cells []string
		for _, col := range effColumns {
			cells = append(cells, optNum(col.get(s)))
		}
		return cells
	}, sp)
}

// stepTable is a table of one step with a row per configuration that ran it: the
// configuration, the step's rate, then cells(s) under header; with the spread of each cell
// over a configuration's repeats when sp has them.
func stepTable(r *result.Run, step, title string, header []string, cells func(*result.Step) []string, sp spreads) Table {
	t := Table{Title: title, Header: append([]string{"config", unit(step)}, header...)}
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			sr := sp.get(c.Name, step)
			t.Rows = append(t.Rows, append([]string{c.Name, rateSpanCell(s, sr)}, spreadCells(cells, s, sr)...))
		}
	}
	return t
}

// failures lists every step that did not finish, with its error.
func failures(r *result.Run) Table {
	t := Table{Title: "Steps that did not finish", Header: []string{"config", "step", "status", "error"}}
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			if s.Status != result.StatusOK {
				t.Rows = append(t.Rows, []string{c.Name, s.Name, s.Status, s.Error})
				t.Class = append(t.Class, []string{"", "", ClassFailed, ""})
			}
		}
	}
	return t
}

// debtKeys are the engine counters that measure debt, in the order the debt tables show them:
// purge lag and dirty pages (InnoDB), dead tuples and the oldest snapshot's age (PostgreSQL),
// compaction debt and stalls
// (LSM engines), WAL and freelist (SQLite), free and pinned pages (bbolt), pages in use (LMDB),
// dirty cache, the pinned transaction range and the LSM work queue (WiredTiger); the cache, eviction by application threads,
// checkpoints, tickets and the oplog (MongoDB's serverStatus).
var debtKeys = []string{
	"history_list_length", "dirty_pages", "checkpoint_age_bytes", "pending_reads", "pending_writes",
	"dead_tuples", "live_tuples", "autovacuum_runs", "vacuum_runs", "vacuums_running", "snapshot_xid_age",
	"pending_compaction_bytes", "compaction_pending", "l0_files", "immutable_memtables", "memtable_bytes",
	"write_stalls", "write_stall_seconds", "write_stopped", "stall_stops", "stall_slowdowns", "stall_micros",
	"wal_bytes", "freelist_count", "freelist_pages", "pending_pages", "pages_in_use",
	"cache_dirty_bytes", "txn_pinned_range", "lsm_work_queue_max",
	"cache_bytes", "app_evicted_pages", "checkpoints", "checkpoint_ms", "checkpoint_running",
	"tickets_write_in_use", "tickets_read_in_use", "oplog_bytes", "oplog_window_seconds",
}

// debtTables show, per configuration, the engine's debt counters at each step's end.
func debtTables(r *result.Run, sp spreads) []Table {
	var out []Table
	for _, c := range r.Configs {
		var keys []string
		for _, k := range debtKeys {
			for _, s := range c.Steps {
				if _, ok := s.EngineStats[k]; ok {
					keys = append(keys, k)
					break
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		t := Table{Title: fmt.Sprintf("Engine debt at each step's end: %s (%s)", c.Name, c.Engine), Header: append([]string{"step"}, keys...)}
		for i := range c.Steps {
			s := &c.Steps[i]
			t.Rows = append(t.Rows, append([]string{s.Name}, sp.cells(c.Name, s, func(s *result.Step) []string {
				var row []string
				for _, k := range keys {
					row = append(row, statCell(s.EngineStats, k))
				}
				return row
			})...))
		}
		out = append(out, t)
	}
	return out
}

// stepsAndEfficiency are the steps' status and the efficiency tables, as sections.
func stepsAndEfficiency(r *result.Run, sp spreads) []Section {
	steps := Section{ID: "steps", Title: "Steps"}
	for _, t := range nonEmpty(append([]Table{details(r, sp), failures(r)}, debtTables(r, sp)...)) {
		steps.Blocks = append(steps.Blocks, Block{Table: &t})
	}
	eff := Section{ID: "efficiency", Title: "Efficiency"}
	for _, t := range nonEmpty(append(efficiency(r, sp), resourceTable(r, sp))) {
		eff.Blocks = append(eff.Blocks, Block{Table: &t})
	}
	for _, l := range srvLegend(r) {
		eff.Blocks = append(eff.Blocks, Block{Text: l})
	}
	return nonEmptySections(steps, eff)
}

// nonEmptySections returns the sections that have blocks.
func nonEmptySections(secs ...Section) []Section {
	var out []Section
	for _, s := range secs {
		if len(s.Blocks) > 0 {
			out = append(out, s)
		}
	}
	return out
}
