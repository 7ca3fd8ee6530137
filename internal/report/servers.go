package report

import (
	"fmt"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// Where each server engine's DBMS ran and how far away it was (issue 36): the round trip, and
// for a DBMS not on this host the client's share of the CPUs beside each rate, since a
// client far from its server is often the limit.

// The titles of the servers' tables.
const (
	serversTitle = "Servers"
	remoteTitle  = "Servers not on this host: the rate beside the client's share"
)

// serverTable has a row per configuration of a server engine: where its DBMS ran, its address,
// the TLS of its sessions and the round trip's time; no rows when none recorded it.
func serverTable(r *result.Run) Table {
	t := Table{Title: serversTitle, Header: []string{"config", "DBMS host", "address", "TLS", "round trip p50", "p99", "max", "of"}, Metric: "value"}
	for _, c := range r.Configs {
		l := c.Server
		if l == nil {
			continue
		}
		p50, p99, mx, of := missing, missing, missing, missing
		if rt := l.RoundTrip; rt != nil {
			p50, p99, mx = numfmt.Duration(rt.P50Us), numfmt.Duration(rt.P99Us), numfmt.Duration(rt.MaxUs)
			of = fmt.Sprintf("%d x %s", rt.Samples, rt.Statement)
		} else if l.Error != "" {
			of = "not measured: " + l.Error
		}
		tls := l.TLS
		if tls == "" {
			tls = "none"
		}
		t.Rows = append(t.Rows, []string{c.Name, l.DBMSHost, orMissing(l.Address), tls, p50, p99, mx, of})
	}
	return t
}

// remoteTable has, for each configuration whose DBMS is not on this host, a row per step with
// a rate: the rate, the client's share of the CPUs and its CPU per operation, and the round
// trip; no rows when every DBMS was on this host.
func remoteTable(r *result.Run, sp spreads) Table {
	t := Table{Title: remoteTitle,
		Header: []string{"config", "step", "rate", "unit", "client%", "client_cpupq", "round trip p50"}}
	for _, c := range r.Configs {
		if c.Server == nil || c.Server.DBMSHost != result.DBMSUnknown {
			continue
		}
		rtt := missing
		if rt := c.Server.RoundTrip; rt != nil {
			rtt = numfmt.Duration(rt.P50Us)
		}
		for _, n := range rateSteps(r) {
			s := findStep(c, n)
			if s == nil {
				continue
			}
			var share, cpupq *float64
			if s.Resources != nil {
				share = s.Resources.ClientCPUPct
			}
			if s.Efficiency != nil {
				cpupq = s.Efficiency.ClientCPUpq
			}
			t.Rows = append(t.Rows, []string{c.Name, n, rateSpanCell(s, sp.get(c.Name, n)), unit(n), optNum(share), optNum(cpupq), rtt})
		}
	}
	return t
}

// serverLegend explains the servers' tables of r; nil when it has none.
func serverLegend(r *result.Run) []string {
	if len(serverTable(r).Rows) == 0 {
		return nil
	}
	return []string{"Servers: DBMS host \"this host\" is measured here (its CPU, IO and memory); \"unknown\" is a server whose process is not on this host (another host, a managed service, or --dsn without --db-pid): its CPU per operation is \"-\", since no server tells it over SQL, and only the server's own counters tell its work. round trip: the time of one trivial statement on one connection before the first step. client%: the client's CPU as % of all CPUs of this host; client_cpupq: its CPU microseconds per operation."}
}

// serverSections is the page's Servers section, when r has a server engine's link.
func serverSections(r *result.Run, sp spreads) []Section {
	sec := Section{ID: "servers", Title: "Servers"}
	for _, t := range nonEmpty([]Table{serverTable(r), remoteTable(r, sp)}) {
		sec.Blocks = append(sec.Blocks, Block{Table: &t})
	}
	return nonEmptySections(sec)
}

// serverLine says where c's DBMS ran when it is not on this host, with its address, TLS and
// round trip; "" for an embedded engine or a DBMS on this host.
func serverLine(c result.Config) string {
	l := c.Server
	if l == nil || l.DBMSHost != result.DBMSUnknown {
		return ""
	}
	line := c.Name + ": the DBMS is not on this host (" + orMissing(l.Address)
	if l.TLS != "" {
		line += ", " + l.TLS
	}
	line += "): this host is the client's; the DBMS's host is unknown, so its CPU, IO and memory are not measured here"
	if rt := l.RoundTrip; rt != nil {
		line += "; round trip p50 " + numfmt.Duration(rt.P50Us) + " (" + rt.Statement + ")"
	}
	return line
}

// clientOnly is what a run's host was when the DBMS of some configuration ran elsewhere:
// " (the client; the DBMS of a, b: unknown host)", else "".
func clientOnly(r *result.Run) string {
	var names []string
	for _, c := range r.Configs {
		if c.Server != nil && c.Server.DBMSHost == result.DBMSUnknown {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (the client; the DBMS of " + strings.Join(names, ", ") + ": unknown host)"
}

// serverField is the run.json field of column j of the servers' tables (serverTable,
// remoteTable), whose step's headline op is primary; "" for another table.
func serverField(t *Table, j int, primary string) string {
	if t.Title != serversTitle && t.Title != remoteTitle || j >= len(t.Header) {
		return ""
	}
	switch t.Header[j] {
	case "DBMS host":
		return "server.dbms_host"
	case "address":
		return "server.address"
	case "TLS":
		return "server.tls"
	case "round trip p50":
		return "server.round_trip.p50_us"
	case "p99":
		return "server.round_trip.p99_us"
	case "max":
		return "server.round_trip.max_us"
	case "of":
		return "server.round_trip.samples, server.round_trip.statement"
	case "rate":
		return "ops." + primary + ".per_sec"
	case "client_cpupq":
		return "efficiency.client_cpupq"
	}
	return ""
}
