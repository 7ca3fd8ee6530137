package measure

import (
	"github.com/enginebench/enginebench/internal/result"
)

// Raw resource metrics: the keys of result.Step.Usage (a step's totals) and the metric columns
// of intervals.csv (each second's). A key that is absent was not measured.
const (
	// KeyCPU is host CPU seconds: busy time of all CPUs (everything but idle and iowait).
	KeyCPU = "cpu_s"
	// KeyClientCPU is the CPU seconds of the enginebench process, when the DBMS is another one.
	KeyClientCPU = "client_cpu_s"
	// KeyClientCPUs is the number of CPUs the enginebench process may run on (its affinity),
	// in a step's totals when KeyClientCPU is: what the client's own CPUs are.
	KeyClientCPUs = "client_cpus"
	// KeyDBCPU is the CPU seconds of the DBMS process tree (embedded: the enginebench process).
	KeyDBCPU = "db_cpu_s"
	// KeyCPUUsSy is host CPU seconds in user, nice, system, irq and softirq time: what vmstat
	// shows as us+sy. KeyCPUAll is host CPU seconds in every state, idle and iowait included:
	// the CPUs' whole time, vmstat's denominator.
	KeyCPUUsSy = "cpu_ussy_s"
	KeyCPUAll  = "cpu_all_s"
	// KeyCS is host context switches.
	KeyCS = "cs"
	// KeyReads, KeyReadKB, KeyWrites and KeyWriteKB are completed storage requests and KB
	// transferred on the data directory's device, as iostat shows them.
	KeyReads   = "reads"
	KeyReadKB  = "read_kb"
	KeyWrites  = "writes"
	KeyWriteKB = "write_kb"
	// KeyReadMs and KeyWriteMs are the milliseconds the device's completed reads and writes took
	// (each request's, summed); KeyIOMs the milliseconds it had requests in flight; KeyQueueMs
	// the milliseconds of every request in flight, summed (/proc/diskstats fields 4, 8, 10, 11).
	KeyReadMs  = "read_ms"
	KeyWriteMs = "write_ms"
	KeyIOMs    = "io_ms"
	KeyQueueMs = "queue_ms"
	// KeySeconds is the time the other keys cover: a step's from its start to its last interval,
	// an interval's its length, both as the runner timed them.
	KeySeconds = "usage_s"
	// KeyDBReadKB and KeyDBWriteKB are the KB the DBMS processes read from and wrote to
	// storage (/proc/PID/io read_bytes, write_bytes).
	KeyDBReadKB  = "db_read_kb"
	KeyDBWriteKB = "db_write_kb"
	// KeyRSSMB is the resident memory of the DBMS processes in MiB at the end of an interval;
	// KeyMaxRSSMB is its peak over a step.
	KeyRSSMB    = "db_rss_mb"
	KeyMaxRSSMB = "maxrss_mb"
	// KeyDBGB1 is GB (2^30 bytes) allocated to the engine's data files, KeyDBGB2 to the whole
	// data directory.
	KeyDBGB1 = "dbgb1"
	KeyDBGB2 = "dbgb2"
)

// Raw metrics from the server's own counters (engine.ServerCounters, read over SQL at each
// step's start and end and each second): a step's or an interval's differences of them. They
// are taken whether or not the server's process is on this host; what each engine counts
// under each is in docs/efficiency.md.
const (
	// KeySrvReads is the reads of pages or blocks the server asked of its files: reads from
	// the OS, whose page cache may have served them, not device reads (engine.CounterReads).
	KeySrvReads = "srv_reads"
	// KeySrvReadKB is the KB those reads transferred (engine.CounterReadKB).
	KeySrvReadKB = "srv_read_kb"
	// KeySrvWriteKB is the KB the server wrote to its data files, WAL not included
	// (engine.CounterWriteKB).
	KeySrvWriteKB = "srv_write_kb"
	// KeySrvWALKB is the KB the server wrote to its WAL or redo log (engine.CounterWALKB).
	KeySrvWALKB = "srv_wal_kb"
	// KeySrvLogicalReads is the page or block requests to the server's cache, hits and
	// misses: logical reads (engine.CounterLogicalReads).
	KeySrvLogicalReads = "srv_logical_reads"
	// KeySrvRowsRead and KeySrvRowsWritten are the rows the server read, and inserted, updated
	// and deleted (engine.CounterRowsRead, CounterRowsWritten).
	KeySrvRowsRead    = "srv_rows_read"
	KeySrvRowsWritten = "srv_rows_written"
)

// Per-operation metrics derived from the raw ones; the names of result.Efficiency's fields.
const (
	KeyCPUpq       = "cpupq"
	KeyClientCPUpq = "client_cpupq"
	KeyDBCPUpq     = "db_cpupq"
	KeyCSpq        = "cspq"
	KeyRpq         = "rpq"
	KeyRKBpq       = "rkbpq"
	KeyWpi         = "wpi"
	KeyWKBpi       = "wkbpi"
	KeyPRKBpq      = "prkbpq"
	KeyPWKBpi      = "pwkbpi"
	KeyWamp        = "wamp"
	// From the server's counters (KeySrv*): reads from the OS and KB read per operation; KB
	// written to data files and WAL per write, and of them the WAL's; logical reads and rows
	// read per operation, rows written per write.
	KeySrvRpq     = "srv_rpq"
	KeySrvRKBpq   = "srv_rkbpq"
	KeySrvWKBpi   = "srv_wkbpi"
	KeySrvWALKBpi = "srv_walkbpi"
	KeySrvLRpq    = "srv_lrpq"
	KeySrvRowsRpq = "srv_rows_rpq"
	KeySrvRowsWpi = "srv_rows_wpi"
)

// Per-second metrics derived from the raw ones; the names of result.Resources's fields, and
// columns of intervals.csv.
const (
	KeyRps     = "rps"
	KeyRMBps   = "rmbps"
	KeyWps     = "wps"
	KeyWMBps   = "wmbps"
	KeyCSps    = "csps"
	KeyCPUps   = "cpups"
	KeyRAwait  = "r_await_ms"
	KeyWAwait  = "w_await_ms"
	KeyAquSz   = "aqu_sz"
	KeyUtilPct = "util_pct"
	// KeyClientCPUPct is the client's share of the machine: KeyClientCPU as a percentage of
	// KeyCPUAll.
	KeyClientCPUPct = "client_cpu_pct"
)

// Basis says what a step's resource totals are divided by.
type Basis struct {
	// PerOp is the operation whose units divide CPU, context switches and reads: the step's
	// headline operation (queries in a query step, rows inserted in a load).
	PerOp string
	// PerWrite is the operation whose units divide writes (rows inserted); empty means PerOp.
	PerWrite string
	// BytesPerWrite is the logical size of one unit of PerWrite (one row), for wamp; 0 when
	// the step writes no new data (no wamp).
	BytesPerWrite float64
	// LiveBytes is the logical size of the live rows at the step's end, for samp; 0: unknown.
	LiveBytes float64
}

// Derive fills st.Efficiency and st.Size.Samp from st.Usage, says what divides the step's
// CPU profile and counters, and adds the same per-operation metrics of every second to its
// intervals. A metric whose input was not measured, or whose
// divisor is zero, is left out.
func Derive(st *result.Step, b Basis) {
	if b.PerWrite == "" {
		b.PerWrite = b.PerOp
	}
	if len(st.Usage) > 0 {
		var ops, writes int64
		if op := st.Ops[b.PerOp]; op != nil {
			ops = op.Units
		}
		if op := st.Ops[b.PerWrite]; op != nil {
			writes = op.Units
		}
		pq := perOp(st.Usage, ops, writes, b.BytesPerWrite)
		e := &result.Efficiency{
			CPUpq: ptr(pq, KeyCPUpq), ClientCPUpq: ptr(pq, KeyClientCPUpq), DBCPUpq: ptr(pq, KeyDBCPUpq),
			CSpq: ptr(pq, KeyCSpq), Rpq: ptr(pq, KeyRpq), RKBpq: ptr(pq, KeyRKBpq),
			Wpi: ptr(pq, KeyWpi), WKBpi: ptr(pq, KeyWKBpi), PRKBpq: ptr(pq, KeyPRKBpq),
			PWKBpi: ptr(pq, KeyPWKBpi), Wamp: ptr(pq, KeyWamp), MaxRSSMB: ptr(st.Usage, KeyMaxRSSMB),
			SrvRpq: ptr(pq, KeySrvRpq), SrvRKBpq: ptr(pq, KeySrvRKBpq), SrvWKBpi: ptr(pq, KeySrvWKBpi),
			SrvWALKBpi: ptr(pq, KeySrvWALKBpi), SrvLRpq: ptr(pq, KeySrvLRpq),
			SrvRowsRpq: ptr(pq, KeySrvRowsRpq), SrvRowsWpi: ptr(pq, KeySrvRowsWpi),
		}
		if *e != (result.Efficiency{}) {
			st.Efficiency = e
		}
		st.Resources = resources(st.Usage)
		if gb, ok := st.Usage[KeyDBGB1]; ok && b.LiveBytes > 0 {
			if st.Size == nil {
				st.Size = &result.Size{}
			}
			samp := gb * (1 << 30) / b.LiveBytes
			st.Size.Samp = &samp
		}
	}
	divideSampled(st, b)
	deriveIntervals(st.Intervals, b)
}

// deriveIntervals adds the per-operation and per-second metrics of every interval of ivs
// that has metrics.
func deriveIntervals(ivs *result.Series, b Basis) {
	var raw, derived map[string]float64
	for i := range ivs.Len() {
		raw = ivs.Metrics(i, raw)
		if len(raw) == 0 {
			continue
		}
		ops, _ := ivs.Op(i, b.PerOp)
		writes, _ := ivs.Op(i, b.PerWrite)
		derived = perOpInto(clearMap(derived), raw, ops.Units, writes.Units, b.BytesPerWrite)
		for k, v := range derived {
			ivs.SetMetric(i, k, v)
		}
		for k, v := range perSecondInto(clearMap(derived), raw) {
			ivs.SetMetric(i, k, v)
		}
	}
}

// clearMap returns m emptied, or a new map when m is nil.
func clearMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	clear(m)
	return m
}

// perOp divides the raw metrics u by ops (CPU, context switches, reads) and writes (writes).
func perOp(u map[string]float64, ops, writes int64, bytesPerWrite float64) map[string]float64 {
	return perOpInto(map[string]float64{}, u, ops, writes, bytesPerWrite)
}

// perOpInto is perOp adding to out, which it returns.
func perOpInto(out, u map[string]float64, ops, writes int64, bytesPerWrite float64) map[string]float64 {
	div := func(key, raw string, n int64, scale float64) {
		if v, ok := u[raw]; ok && n > 0 {
			out[key] = v * scale / float64(n)
		}
	}
	div(KeyCPUpq, KeyCPU, ops, 1e6)
	div(KeyClientCPUpq, KeyClientCPU, ops, 1e6)
	div(KeyDBCPUpq, KeyDBCPU, ops, 1e6)
	div(KeyCSpq, KeyCS, ops, 1)
	div(KeyRpq, KeyReads, ops, 1)
	div(KeyRKBpq, KeyReadKB, ops, 1)
	div(KeyPRKBpq, KeyDBReadKB, ops, 1)
	div(KeyWpi, KeyWrites, writes, 1)
	div(KeyWKBpi, KeyWriteKB, writes, 1)
	div(KeyPWKBpi, KeyDBWriteKB, writes, 1)
	div(KeySrvRpq, KeySrvReads, ops, 1)
	div(KeySrvRKBpq, KeySrvReadKB, ops, 1)
	div(KeySrvWALKBpi, KeySrvWALKB, writes, 1)
	div(KeySrvLRpq, KeySrvLogicalReads, ops, 1)
	div(KeySrvRowsRpq, KeySrvRowsRead, ops, 1)
	div(KeySrvRowsWpi, KeySrvRowsWritten, writes, 1)
	if data, ok := u[KeySrvWriteKB]; ok && writes > 0 {
		// What the server wrote, data files and WAL: as the host's wkbpi counts both.
		if wal, ok := u[KeySrvWALKB]; ok {
			out[KeySrvWKBpi] = (data + wal) / float64(writes)
		}
	}
	if bytesPerWrite > 0 && writes > 0 {
		// Storage bytes as the device saw them; without a device, the DBMS's own writes.
		kb, ok := u[KeyWriteKB]
		if !ok {
			kb, ok = u[KeyDBWriteKB]
		}
		if ok {
			out[KeyWamp] = kb * 1024 / (float64(writes) * bytesPerWrite)
		}
	}
	return out
}

// PerSecond derives from the raw metrics u what vmstat and iostat show: rates per second of
// KeySeconds, the host's us+sy CPU and the client's CPU as percentages of its CPUs' time, and
// the device's average wait per read and per write, queue size and utilisation. A metric whose inputs are absent,
// or whose divisor is zero (no time, no reads), is left out.
func PerSecond(u map[string]float64) map[string]float64 {
	return perSecondInto(map[string]float64{}, u)
}

// perSecondInto is PerSecond adding to out, which it returns.
func perSecondInto(out, u map[string]float64) map[string]float64 {
	secs, timed := u[KeySeconds]
	timed = timed && secs > 0
	rate := func(key, raw string, scale float64) {
		if v, ok := u[raw]; ok && timed {
			out[key] = v * scale / secs
		}
	}
	rate(KeyRps, KeyReads, 1)
	rate(KeyRMBps, KeyReadKB, 1.0/1024)
	rate(KeyWps, KeyWrites, 1)
	rate(KeyWMBps, KeyWriteKB, 1.0/1024)
	rate(KeyCSps, KeyCS, 1)
	rate(KeyAquSz, KeyQueueMs, 1.0/1000)
	if io, ok := u[KeyIOMs]; ok && timed {
		// io_ms and the interval are timed by different clocks: a busy device can read 100.2%.
		out[KeyUtilPct] = min(io/(secs*1000)*100, 100)
	}
	if busy, ok := u[KeyCPUUsSy]; ok && u[KeyCPUAll] > 0 {
		out[KeyCPUps] = busy / u[KeyCPUAll] * 100
	}
	if pct, ok := ClientCPUPct(u); ok {
		out[KeyClientCPUPct] = pct
	}
	await := func(key, ms, n string) {
		if v, ok := u[ms]; ok && u[n] > 0 {
			out[key] = v / u[n]
		}
	}
	await(KeyRAwait, KeyReadMs, KeyReads)
	await(KeyWAwait, KeyWriteMs, KeyWrites)
	return out
}

// DefaultClientCPULimitPct is the default limit of the client-saturation check, in percent
// of all CPUs (--client-cpu-limit).
const DefaultClientCPULimitPct = 50

// ClientCPUPct is the client's share of the machine in the raw metrics u: the client's CPU
// seconds as a percentage of all CPUs' time (100: every CPU busy with the client; at most
// 100). ok is false when either was not measured (an embedded engine has no client CPU apart
// from the engine's) or no CPU time passed.
func ClientCPUPct(u map[string]float64) (pct float64, ok bool) {
	client, ok := u[KeyClientCPU]
	all := u[KeyCPUAll]
	if !ok || all <= 0 {
		return 0, false
	}
	// The client's time (getrusage) and the host's (/proc/stat ticks) are counted by
	// different clocks: a client that kept every CPU busy can read 100.5%.
	return min(client/all*100, 100), true
}

// ClientOwnCPUPct is how busy the client kept the CPUs it may run on, in the raw metrics u:
// the client's CPU seconds as a percentage of the step's seconds times its CPUs (100: each of
// them busy all the time; at most 100). ok is false when any of them was not measured.
func ClientOwnCPUPct(u map[string]float64) (pct float64, ok bool) {
	client, ok := u[KeyClientCPU]
	cpus, secs := u[KeyClientCPUs], u[KeySeconds]
	if !ok || cpus <= 0 || secs <= 0 {
		return 0, false
	}
	return min(client/(secs*cpus)*100, 100), true
}

// ClientBound reports whether, in the raw metrics u, the client used more than limitPct
// percent of all CPUs (limitPct not positive: no such check), or more than
// result.ClientSaturatedPct of the CPUs it may run on: then the client, not the engine, may
// have set the rate. It is false when the client's CPU was not measured (an embedded engine).
func ClientBound(u map[string]float64, limitPct float64) bool {
	if pct, ok := ClientOwnCPUPct(u); ok && pct > result.ClientSaturatedPct {
		return true
	}
	pct, ok := ClientCPUPct(u)
	return ok && limitPct > 0 && pct > limitPct
}

// resources is the step's result.Resources from its usage u; nil when none was measured.
func resources(u map[string]float64) *result.Resources {
	ps := PerSecond(u)
	r := &result.Resources{Rps: ptr(ps, KeyRps), RMBps: ptr(ps, KeyRMBps), Wps: ptr(ps, KeyWps),
		WMBps: ptr(ps, KeyWMBps), CSps: ptr(ps, KeyCSps), CPUps: ptr(ps, KeyCPUps), ClientCPUPct: ptr(ps, KeyClientCPUPct),
		RAwaitMs: ptr(ps, KeyRAwait), WAwaitMs: ptr(ps, KeyWAwait), AquSz: ptr(ps, KeyAquSz),
		UtilPct: ptr(ps, KeyUtilPct), RSSMB: ptr(u, KeyRSSMB)}
	if *r == (result.Resources{}) {
		return nil
	}
	return r
}

func ptr(m map[string]float64, key string) *float64 {
	v, ok := m[key]
	if !ok {
		return nil
	}
	return &v
}
