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
	// KeyDBCPU is the CPU seconds of the DBMS process tree (embedded: the enginebench process).
	KeyDBCPU = "db_cpu_s"
	// KeyCS is host context switches.
	KeyCS = "cs"
	// KeyReads, KeyReadKB, KeyWrites and KeyWriteKB are completed storage requests and KB
	// transferred on the data directory's device, as iostat shows them.
	KeyReads   = "reads"
	KeyReadKB  = "read_kb"
	KeyWrites  = "writes"
	KeyWriteKB = "write_kb"
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

// Derive fills st.Efficiency and st.Size.Samp from st.Usage, and adds the same per-operation
// metrics of every second to its intervals. A metric whose input was not measured, or whose
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
		}
		if *e != (result.Efficiency{}) {
			st.Efficiency = e
		}
		if gb, ok := st.Usage[KeyDBGB1]; ok && b.LiveBytes > 0 {
			if st.Size == nil {
				st.Size = &result.Size{}
			}
			samp := gb * (1 << 30) / b.LiveBytes
			st.Size.Samp = &samp
		}
	}
	for i := range st.Intervals {
		in := &st.Intervals[i]
		if len(in.Metrics) == 0 {
			continue
		}
		pq := perOp(in.Metrics, in.Ops[b.PerOp].Units, in.Ops[b.PerWrite].Units, b.BytesPerWrite)
		for k, v := range pq {
			in.Metrics[k] = v
		}
	}
}

// perOp divides the raw metrics u by ops (CPU, context switches, reads) and writes (writes).
func perOp(u map[string]float64, ops, writes int64, bytesPerWrite float64) map[string]float64 {
	out := map[string]float64{}
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

func ptr(m map[string]float64, key string) *float64 {
	v, ok := m[key]
	if !ok {
		return nil
	}
	return &v
}
