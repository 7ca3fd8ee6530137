package measure

import (
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

func val(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Derive divides CPU, context switches and reads by the headline op and writes by inserts,
// converts seconds to microseconds, and leaves out what was not measured or has no divisor.
func TestDerive(t *testing.T) {
	st := &result.Step{
		Ops: map[string]*result.Op{"query": {Units: 2000}, "insert": {Units: 500}},
		Usage: map[string]float64{KeyCPU: 0.5, KeyDBCPU: 0.25, KeyCS: 4000, KeyReads: 100, KeyReadKB: 1600,
			KeyWrites: 50, KeyWriteKB: 1000, KeyDBWriteKB: 800, KeyMaxRSSMB: 300, KeyDBGB1: 0.5},
		Intervals: result.NewSeries(
			result.Interval{Ops: map[string]result.IntervalOp{"query": {Units: 1000}, "insert": {Units: 100}},
				Metrics: map[string]float64{KeyCPU: 0.2, KeyWriteKB: 10, "l0_files": 3}},
			result.Interval{Ops: map[string]result.IntervalOp{"query": {Units: 0}}, Metrics: map[string]float64{KeyCPU: 0.1}},
			result.Interval{Ops: map[string]result.IntervalOp{"query": {Units: 5}}},
		),
	}
	Derive(st, Basis{PerOp: "query", PerWrite: "insert", BytesPerWrite: 100, LiveBytes: 1 << 29})
	e := st.Efficiency
	if e == nil {
		t.Fatal("no efficiency")
	}
	for _, c := range []struct {
		name string
		got  *float64
		want any
	}{
		{"cpupq", e.CPUpq, 250.0}, // 0.5 s / 2000 queries = 250 us
		{"db_cpupq", e.DBCPUpq, 125.0},
		{"client_cpupq", e.ClientCPUpq, nil}, // not measured
		{"cspq", e.CSpq, 2.0},
		{"rpq", e.Rpq, 0.05},
		{"rkbpq", e.RKBpq, 0.8},
		{"wpi", e.Wpi, 0.1}, // per insert, not per query
		{"wkbpi", e.WKBpi, 2.0},
		{"pwkbpi", e.PWKBpi, 1.6},
		{"prkbpq", e.PRKBpq, nil},
		{"wamp", e.Wamp, 1000 * 1024 / (500 * 100.0)},
		{"maxrss_mb", e.MaxRSSMB, 300.0},
	} {
		if val(c.got) != c.want {
			t.Errorf("%s = %v, want %v", c.name, val(c.got), c.want)
		}
	}
	if st.Size == nil || val(st.Size.Samp) != 1.0 { // 0.5 GiB / 2^29 bytes
		t.Errorf("samp %+v", st.Size)
	}
	in := intervals(st.Intervals)
	if in[0].Metrics[KeyCPUpq] != 200 || in[0].Metrics[KeyWKBpi] != 0.1 || in[0].Metrics["l0_files"] != 3 {
		t.Errorf("interval 1 metrics %v", in[0].Metrics)
	}
	if _, ok := in[1].Metrics[KeyCPUpq]; ok {
		t.Errorf("a second without queries has cpupq: %v", in[1].Metrics)
	}
	if in[2].Metrics != nil {
		t.Errorf("a second without samples got metrics %v", in[2].Metrics)
	}
}

// Without storage figures wamp comes from the DBMS's own writes; a step that inserts no data
// has no wamp; PerWrite defaults to PerOp; no usage means no efficiency at all.
func TestDeriveFallbacks(t *testing.T) {
	st := &result.Step{Ops: map[string]*result.Op{"insert": {Units: 1000}},
		Usage: map[string]float64{KeyDBWriteKB: 200}}
	Derive(st, Basis{PerOp: "insert", BytesPerWrite: 50})
	if e := st.Efficiency; e == nil || val(e.Wamp) != 200*1024/(1000*50.0) || val(e.PWKBpi) != 0.2 {
		t.Errorf("efficiency %+v", st.Efficiency)
	}
	st = &result.Step{Ops: map[string]*result.Op{"index": {Units: 1000}},
		Usage: map[string]float64{KeyWriteKB: 200}}
	Derive(st, Basis{PerOp: "index"})
	if e := st.Efficiency; e == nil || e.Wamp != nil || val(e.WKBpi) != 0.2 {
		t.Errorf("l.x efficiency %+v", st.Efficiency)
	}
	st = &result.Step{Ops: map[string]*result.Op{"cleanup": {Units: 1}}}
	Derive(st, Basis{})
	if st.Efficiency != nil || st.Size != nil {
		t.Errorf("no usage: %+v %+v", st.Efficiency, st.Size)
	}
}

// The client's share of the machine is its CPU over all CPUs' time, in the step's resources
// and in each second's metrics; it is absent, never 0, where the client CPU or the CPUs' time
// was not measured (an embedded engine) or no CPU time passed.
func TestDeriveClientCPUPct(t *testing.T) {
	st := &result.Step{
		Ops: map[string]*result.Op{"query": {Units: 1000}},
		// 2 CPUs for 2 s: 4 s of CPU time, 1.5 of them the client's.
		Usage: map[string]float64{KeyClientCPU: 1.5, KeyCPUAll: 4, KeyCPUUsSy: 3, KeySeconds: 2},
		Intervals: result.NewSeries(
			result.Interval{Ops: map[string]result.IntervalOp{"query": {Units: 500}},
				Metrics: map[string]float64{KeyClientCPU: 1.8, KeyCPUAll: 2, KeySeconds: 1}},
			result.Interval{Ops: map[string]result.IntervalOp{"query": {Units: 500}},
				Metrics: map[string]float64{KeyCPUAll: 2, KeySeconds: 1}}, // embedded: no client CPU
			result.Interval{Ops: map[string]result.IntervalOp{"query": {Units: 0}},
				Metrics: map[string]float64{KeyClientCPU: 0.1, KeySeconds: 1}}, // no host CPU time
		),
	}
	Derive(st, Basis{PerOp: "query"})
	if st.Resources == nil || val(st.Resources.ClientCPUPct) != 37.5 || val(st.Resources.CPUps) != 75.0 {
		t.Fatalf("resources %+v", st.Resources)
	}
	if e := st.Efficiency; e == nil || val(e.ClientCPUpq) != 1500.0 {
		t.Errorf("client_cpupq %+v", st.Efficiency)
	}
	in := intervals(st.Intervals)
	if v, ok := in[0].Metrics[KeyClientCPUPct]; !ok || v != 90 {
		t.Errorf("second 1: client_cpu_pct %v, %v; want 90", v, ok)
	}
	for i := 1; i < 3; i++ {
		if v, ok := in[i].Metrics[KeyClientCPUPct]; ok {
			t.Errorf("second %d: client_cpu_pct %v, want absent (not measured)", i+1, v)
		}
	}

	embedded := &result.Step{Ops: map[string]*result.Op{"insert": {Units: 10}},
		Usage: map[string]float64{KeyDBCPU: 1, KeyCPUAll: 4, KeyCPUUsSy: 1, KeySeconds: 2}}
	Derive(embedded, Basis{PerOp: "insert"})
	if embedded.Resources == nil || embedded.Resources.ClientCPUPct != nil {
		t.Errorf("embedded engine: resources %+v, want no client_cpu_pct", embedded.Resources)
	}
}

// ClientCPUPct caps the share at 100 (two clocks); ClientBound is true only above the limit,
// and never when the share was not measured or there is no limit.
func TestClientBound(t *testing.T) {
	share := map[string]float64{KeyClientCPU: 1, KeyCPUAll: 2} // 50%
	if pct, ok := ClientCPUPct(map[string]float64{KeyClientCPU: 2.01, KeyCPUAll: 2}); !ok || pct != 100 {
		t.Errorf("client above all CPUs' time: %v, %v; want 100", pct, ok)
	}
	for _, c := range []struct {
		u     map[string]float64
		limit float64
		want  bool
	}{
		{share, 40, true},                               // 50% > 40%
		{share, 50, false},                              // at the limit is not above it
		{share, 49.9, true},                             // just above
		{share, 0, false},                               // no check
		{map[string]float64{KeyCPUAll: 2}, 1, false},    // embedded: not measured
		{map[string]float64{KeyClientCPU: 1}, 1, false}, // no CPUs' time
		{map[string]float64{KeyClientCPU: 1, KeyCPUAll: 0}, 1, false}, // no time passed
	} {
		if got := ClientBound(c.u, c.limit); got != c.want {
			t.Errorf("ClientBound(%v, %v) = %v, want %v", c.u, c.limit, got, c.want)
		}
	}
}

// The client's own CPUs (issue 23): a client that kept the CPUs it may run on busy more than
// 85% of the step is client-bound whatever the limit of all CPUs, also with none, also when
// it ran on one CPU of four (22.5% of all CPUs); at 85% it is not; without its CPUs or the
// step's seconds the share is not known.
func TestClientBoundOnItsOwnCPUs(t *testing.T) {
	pinned := func(client float64) map[string]float64 {
		return map[string]float64{KeyClientCPU: client, KeyClientCPUs: 1, KeySeconds: 2, KeyCPUAll: 8}
	}
	if pct, ok := ClientOwnCPUPct(pinned(1.8)); !ok || pct != 90 {
		t.Errorf("own share %v, %v; want 90", pct, ok)
	}
	if pct, _ := ClientOwnCPUPct(pinned(2.1)); pct != 100 {
		t.Errorf("own share above the step's time: %v, want 100", pct)
	}
	for _, c := range []struct {
		u     map[string]float64
		limit float64
		want  bool
	}{
		{pinned(1.8), 50, true},  // 90% of its CPU, 22.5% of all
		{pinned(1.8), 0, true},   // no limit of all CPUs: the fixed one still holds
		{pinned(1.71), 50, true}, // 85.5%
		{pinned(1.7), 50, false}, // 85%: not above
		{map[string]float64{KeyClientCPU: 1.8, KeySeconds: 2, KeyCPUAll: 8}, 50, false},               // its CPUs unknown
		{map[string]float64{KeyClientCPU: 1.8, KeyClientCPUs: 1, KeyCPUAll: 8}, 50, false},            // no seconds
		{map[string]float64{KeyDBCPU: 1.9, KeyClientCPUs: 1, KeySeconds: 2, KeyCPUAll: 2}, 50, false}, // embedded
	} {
		if got := ClientBound(c.u, c.limit); got != c.want {
			t.Errorf("ClientBound(%v, %v) = %v, want %v", c.u, c.limit, got, c.want)
		}
	}
}

// intervals returns every interval of s with its maps.
func intervals(s *result.Series) []result.Interval {
	out := make([]result.Interval, s.Len())
	for i := range out {
		out[i] = s.Interval(i)
	}
	return out
}
