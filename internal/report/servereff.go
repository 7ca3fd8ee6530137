package report

import "github.com/enginebench/enginebench/internal/result"

// srvEffColumns are the columns of the tables of efficiency from the server's own counters,
// with their getters: reads from the OS and KB read per operation, KB written (data files and
// WAL) and WAL KB per write, logical reads and rows read per operation, rows written per write.
var srvEffColumns = []effColumn{
	{"srv_rpq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.SrvRpq }) }},
	{"srv_rkbpq", func(s *result.Step) *float64 {
		return eff(s, func(e *result.Efficiency) *float64 { return e.SrvRKBpq })
	}},
	{"srv_wkbpi", func(s *result.Step) *float64 {
		return eff(s, func(e *result.Efficiency) *float64 { return e.SrvWKBpi })
	}},
	{"srv_walkbpi", func(s *result.Step) *float64 {
		return eff(s, func(e *result.Efficiency) *float64 { return e.SrvWALKBpi })
	}},
	{"srv_lrpq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.SrvLRpq }) }},
	{"srv_rows_rpq", func(s *result.Step) *float64 {
		return eff(s, func(e *result.Efficiency) *float64 { return e.SrvRowsRpq })
	}},
	{"srv_rows_wpi", func(s *result.Step) *float64 {
		return eff(s, func(e *result.Efficiency) *float64 { return e.SrvRowsWpi })
	}},
}

// srvLegend explains the tables of the server's counters, when r has one.
func srvLegend(r *result.Run) []string {
	for _, n := range rateSteps(r) {
		if n != "warmup" && anySrvFigures(r, n) {
			return srvLegendLines
		}
	}
	return nil
}

// srvLegendLines are srvLegend's lines.
var srvLegendLines = []string{
	"Efficiency from the server's counters: read over SQL from the server's own statistics (source: the views or status variables), also when its process is not on this host; per operation and per write as above:",
	"  srv_rpq, srv_rkbpq: reads the server asked of its files and KB read, which the OS's page cache may have served (not device reads); srv_wkbpi: KB written to data files and WAL; srv_walkbpi: of it the WAL's (redo log's);",
	"  srv_lrpq: logical reads (requests to the server's cache, hits and misses); srv_rows_rpq, srv_rows_wpi: rows read, rows written.",
	"  No CPU per operation: no SQL view or status variable counts the server's CPU time; it is known only with the server's process on this host (db_cpupq in run.json). cpupq above is this host's CPU: for a server on another host, the client's and other processes'.",
}

// srvEfficiency returns, for each step with a headline rate that some configuration measured
// from the server's own counters, the table of those figures: a row per configuration with
// the rate, the figures ("-" where not measured) and their source.
func srvEfficiency(r *result.Run, sp spreads) []Table {
	var out []Table
	for _, n := range rateSteps(r) {
		if n == "warmup" || !anySrvFigures(r, n) {
			continue
		}
		out = append(out, srvEffTable(r, n, sp))
	}
	return out
}

// anySrvFigures reports whether some configuration's step named step has a figure from the
// server's counters.
func anySrvFigures(r *result.Run, step string) bool {
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			for _, col := range srvEffColumns {
				if col.get(s) != nil {
					return true
				}
			}
		}
	}
	return false
}

// srvEffTable is the table of efficiency from the server's counters of one step.
func srvEffTable(r *result.Run, step string, sp spreads) Table {
	var header []string
	for _, c := range srvEffColumns {
		header = append(header, c.name)
	}
	return stepTable(r, step, "Efficiency from the server's counters: "+step, append(header, "source"), func(s *result.Step) []string {
		var cells []string
		for _, col := range srvEffColumns {
			cells = append(cells, optNum(col.get(s)))
		}
		from := s.SrvFrom
		if from == "" {
			from = missing
		}
		return append(cells, from)
	}, sp)
}
