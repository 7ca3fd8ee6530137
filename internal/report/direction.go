package report

import (
	"slices"
	"strings"
)

// direction says which way a metric is better. Every relative table colours a cell by the
// direction of its column's metric, so that a cost that doubled reads as worse, not as more.
type direction int8

const (
	neutral      direction = iota // shown, never coloured: counts, labels, shares, settings
	higherBetter                  // rates: rows, queries, requests a second
	lowerBetter                   // costs: CPU, IO and space per operation, latency, seconds, debt
)

// String names the direction as the legend and docs/report.md do.
func (d direction) String() string {
	switch d {
	case higherBetter:
		return "higher is better"
	case lowerBetter:
		return "lower is better"
	}
	return "neutral"
}

// metricDirection is the one table of directions: every metric the summaries and the report
// show, by its run.json key and by its column name. ok is false for a name it does not know:
// TestEveryMetricHasADirection fails on such a column, so no metric is added without one.
func metricDirection(name string) (d direction, ok bool) {
	switch name {
	case
		// rates (run.json: per_sec, rate_p50, rate_p99, cum_per_sec, achieved_*)
		"per_sec", "cum_per_sec", "rate_p50", "rate_p99", "achieved_inserts_per_sec", "achieved_deletes_per_sec",
		"ips", "qps", "ops/s", "rate", "rows/s", "inserts/s", "queries/s", "requests/s",
		"links/s", "links+counts/s", "(link+count+node)/s", "achieved ins/s", "achieved del/s",
		"best rate", "achieved", // the capacity search (capacity.go)
		"vs base", // the top summary (top.go): the geometric mean of the rates relative to the base
		"sla":     // the SLA table: achieved % of the target
		return higherBetter, true
	case
		// CPU, context switches, IO and space per operation (efficiency, size)
		"cpupq", "client_cpupq", "db_cpupq", "cspq", "rpq", "rkbpq", "wpi", "wkbpi", "prkbpq", "pwkbpi",
		// the same from the server's own counters (servereff.go)
		"srv_rpq", "srv_rkbpq", "srv_wkbpi", "srv_walkbpi", "srv_lrpq", "srv_rows_rpq", "srv_rows_wpi",
		"wamp", "samp", "dbgb1", "dbgb2", "GB", "load GB", "maxrss_mb", "rss_mb", "rss", "maxrss",
		"CPU us/insert", "CPU us/query", "reads/query", "KB read/query", "writes/insert", "KB written/insert",
		// latency and response time (latency_us, response_us), device waits
		"p50", "p90", "p99", "p99.9", "p999", "max", "mean", "p25", "p75", "r_await_ms", "w_await_ms", "r_await", "w_await",
		// seconds, probes, fairness, failures, cost
		"load s", "probe", "min_trxid_seconds", "fairness", "pct", "errors", "retries", "OOM kills",
		"run cost", "$ per billion inserts", "per_billion_inserts",
		"CPU/op vs base", // the top summary (top.go): cpupq relative to the base
		// where the CPU went (profiles.go, counters.go): CPU and counters per operation
		"self/op", "total/op", "base self/op", "base total/op", "self vs base", "total vs base", "counter/op",
		// engine debt (debtKeys): purge lag, dirty pages, dead tuples, compaction debt, stalls
		"history_list_length", "dirty_pages", "checkpoint_age_bytes", "pending_reads", "pending_writes",
		"dead_tuples", "snapshot_xid_age", "txn_pinned_range", "pending_compaction_bytes", "compaction_pending", "l0_files", "immutable_memtables",
		"write_stalls", "write_stall_seconds", "write_stopped", "stall_stops", "stall_slowdowns", "stall_micros",
		"wal_bytes", "freelist_count", "freelist_pages", "pending_pages", "cache_dirty_bytes", "lsm_work_queue_max":
		return lowerBetter, true
	case
		// labels and descriptions
		"config", "step", "op", "unit", "status", "error", "engine", "index", "counter", "rows", "verify", "met",
		"run", "parameter", "setting", "value", "function", "self %",
		// counts and sizes of the work, targets, times that the workload sets
		"count", "units", "found", "links", "nodes", "links/node", "clients", "time", "total time", "run time", "seconds",
		"target ins/s", "ins/qry", "$/hour", "min", "diff", "before", "after",
		"live_tuples", "autovacuum_runs", "vacuum_runs", "vacuums_running", "memtable_bytes", "pages_in_use",
		// resources per second: they grow with the rate; the efficiency tables judge them per operation
		"rps", "rmbps", "wps", "wmbps", "csps", "cpups", "client%", "client_cpu_pct", "aqu-sz", "aqu_sz",
		"%util", "util_pct",
		// the memory cap and its use: what the run was given
		"cap", "cgroup", "scope", "peak", "usage", "page cache", "cache share", "harness peak",
		// the capacity search: its targets, limits and verdicts
		"target", "p99 limit", "debt", "verdict", "reason", "levels", "levels tried",
		// the verdicts (verdicts.go): a check's state is coloured by what it says, its value
		// against its own threshold
		"check", "state", "threshold", "message",
		// the top summary (top.go): its cells are coloured by what they name
		"range", "SLA missed", "failures", "client-bound":
		return neutral, true
	}
	return neutral, false
}

// columnDirection is the direction of column j of t: the table's Metric when its value
// columns are steps or runs (the probe and SLA tables), else the metric its header names,
// alone or after a step or configuration ("l.i1 ips", "pebble q p99", "run.2 GB", "rt p99",
// "ADD_LINK ops/s"). The response-time distribution's buckets are shares: neutral.
func columnDirection(t Table, j int) (direction, bool) {
	h := t.Header[j]
	if d, ok := metricDirection(h); ok && (t.Metric == "" || j == 0) {
		return d, true
	}
	if t.Metric != "" {
		return metricDirection(t.Metric)
	}
	if slices.Contains(bucketHeader(), h) {
		return neutral, true
	}
	for i := strings.IndexByte(h, ' '); i >= 0; i = strings.IndexByte(h, ' ') {
		h = h[i+1:]
		if d, ok := metricDirection(h); ok {
			return d, true
		}
	}
	return neutral, false
}

// directionOf is the direction of column j of t for its colours; a column without one is
// neutral (and fails TestEveryMetricHasADirection).
func directionOf(t Table, j int) direction {
	d, _ := columnDirection(t, j)
	return d
}
