package result

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sampleRun() *Run {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p99 := 12.5
	return &Run{
		Tool: Tool{Name: "enginebench", Version: "test"}, RunID: "r1", StartedAt: t0, Status: StatusOK,
		Workload: Workload{Name: "insert", Scale: "tiny", Params: map[string]any{"rows": float64(10)}},
		Configs: []Config{
			{Name: "a", Engine: "sqlite", Status: StatusOK, Steps: []Step{{
				Name: "l.i0", Status: StatusOK, StartedAt: t0, Seconds: 2, Primary: "insert",
				Ops:        map[string]*Op{"insert": {Count: 2, Units: 200, PerSec: 100, Latency: Latency{P99: p99}}},
				Efficiency: &Efficiency{CPUpq: &p99},
				Intervals: NewSeries(
					Interval{Second: 1, Time: t0.Add(time.Second), Ops: map[string]IntervalOp{"insert": {Count: 1, Units: 100, P50: 5, P99: 9, Max: 10}},
						Metrics: map[string]float64{"cpu": 0.5, "page_count": 7}},
					Interval{Second: 2, Time: t0.Add(2 * time.Second), Ops: map[string]IntervalOp{"insert": {Count: 1, Units: 50, P50: 5, P99: 9, Max: 10}}},
				),
			}}},
			{Name: "b", Engine: "pebble", Status: StatusOK, Steps: []Step{{
				Name: "qr100", Status: StatusOK, StartedAt: t0, Seconds: 1,
				Intervals: NewSeries(Interval{Second: 1, Time: t0.Add(time.Second), Ops: map[string]IntervalOp{
					"query":  {Count: 7, Units: 7, P50: 1, P99: 2, Max: 3},
					"insert": {Count: 2, Units: 100, P50: 1, P99: 2, Max: 3, RtP99: 4, RtMax: 5}}}),
			}}},
		},
	}
}

// writeSample writes sampleRun's run.json into a new run directory.
func writeSample(t *testing.T) (*Dir, *Run) {
	t.Helper()
	d, err := CreateDir(filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	in := sampleRun()
	if err := d.WriteRun(in); err != nil {
		t.Fatal(err)
	}
	return d, in
}

func TestRunRoundTrip(t *testing.T) {
	d, in := writeSample(t)
	out, err := Load(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	// Intervals go to intervals.csv, not run.json.
	for i := range in.Configs {
		for j := range in.Configs[i].Steps {
			in.Configs[i].Steps[j].Intervals = nil
		}
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip differs:\n in %+v\nout %+v", in, out)
	}
	b, _ := os.ReadFile(filepath.Join(d.Path(), "run.json"))
	for _, field := range []string{`"run_id"`, `"latency_us"`, `"cpupq"`, `"primary_op"`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("run.json lacks %s", field)
		}
	}
	// A metric that was not measured is absent, not zero.
	if strings.Contains(string(b), `"wkbpi"`) || strings.Contains(string(b), `"verify"`) {
		t.Errorf("run.json writes unmeasured metrics:\n%s", b)
	}
}

func TestWriteIntervals(t *testing.T) {
	d, err := CreateDir(filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteIntervals(sampleRun()); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(d.Path(), "intervals.csv"))
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want header + 3", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"config", "step", "second", "time", "insert_per_sec", "insert_p99_us", "insert_rt_max_us", "query_count", "cpu"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("header lacks %s: %v", h, rows[0])
		}
	}
	first, last := rows[1], rows[3]
	if first[col["config"]] != "a" || first[col["insert_per_sec"]] != "100" || first[col["cpu"]] != "0.5" {
		t.Errorf("first row %v", first)
	}
	// Not measured: a's step has no query op and no response time; b's second has no cpu.
	if first[col["query_count"]] != "" || first[col["insert_rt_max_us"]] != "" || last[col["cpu"]] != "" {
		t.Errorf("unmeasured cells are not empty: %v / %v", first, last)
	}
	if last[col["insert_rt_max_us"]] != "5" || last[col["query_count"]] != "7" {
		t.Errorf("last row %v", last)
	}
}

func TestCreateDirRefusesNonEmptyAndUnwritable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	if _, err := CreateDir(dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty directory: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := CreateDir(filepath.Join(file, "run")); err == nil {
		t.Error("a directory under a regular file was accepted")
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("missing run.json accepted")
	}
	bad := filepath.Join(t.TempDir(), "run.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("malformed run.json: %v", err)
	}
}

func TestReadIntervalsRoundTrip(t *testing.T) {
	d, in := writeSample(t)
	if err := d.WriteIntervals(in); err != nil {
		t.Fatal(err)
	}
	out, err := LoadDir(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	for ci, c := range in.Configs {
		for si, s := range c.Steps {
			got := out.Configs[ci].Steps[si].Intervals
			if got.Len() != s.Intervals.Len() {
				t.Fatalf("%s/%s: %d intervals read, want %d", c.Name, s.Name, got.Len(), s.Intervals.Len())
			}
			for i := range s.Intervals.Len() {
				g, want := got.Interval(i), s.Intervals.Interval(i)
				if g.Second != want.Second || !g.Time.Equal(want.Time) || !reflect.DeepEqual(g.Metrics, want.Metrics) {
					t.Errorf("%s/%s second %d: read %+v, want %+v", c.Name, s.Name, i+1, g, want)
				}
				for op, w := range want.Ops {
					w.PerSec = float64(w.Units) // every interval of the sample is one second long
					if g.Ops[op] != w {
						t.Errorf("%s/%s second %d %s: read %+v, want %+v", c.Name, s.Name, i+1, op, g.Ops[op], w)
					}
				}
				if len(g.Ops) != len(want.Ops) {
					t.Errorf("%s/%s second %d: ops %v, want %v", c.Name, s.Name, i+1, g.Ops, want.Ops)
				}
			}
		}
	}
}

// Intervals whose times fall between milliseconds (as the runner's do) read back with their
// units, though the file keeps the times to the millisecond: the rate is over the interval as
// the file shows it.
func TestReadIntervalsKeepsUnits(t *testing.T) {
	d, in := writeSample(t)
	st := &in.Configs[0].Steps[0]
	st.StartedAt = st.StartedAt.Add(123456789)
	at := st.StartedAt
	units := []int64{5995, 7031, 12, 1}
	st.Intervals = &Series{}
	for i, n := range units {
		at = at.Add(time.Duration(852540860 + 777777*i))
		st.Intervals.SetOp(st.Intervals.Append(i+1, at), "insert", IntervalOp{Count: n, Units: n})
	}
	if err := errors.Join(d.WriteRun(in), d.WriteIntervals(in)); err != nil {
		t.Fatal(err)
	}
	out, err := LoadDir(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	got := out.Configs[0].Steps[0].Intervals
	for i, n := range units {
		if o, _ := got.Op(i, "insert"); o.Units != n {
			t.Errorf("interval %d: %d units read, %d written", i+1, o.Units, n)
		}
	}
}

func TestReadIntervalsErrors(t *testing.T) {
	dir := t.TempDir()
	r := sampleRun()
	// No intervals.csv: the run loads without intervals.
	d, _ := CreateDir(filepath.Join(dir, "plain"))
	d.WriteRun(r)
	if got, err := LoadDir(d.Path()); err != nil || got.Configs[0].Steps[0].Intervals != nil {
		t.Errorf("run without intervals.csv: %v, %v", err, got)
	}
	for name, body := range map[string]string{
		"header": "a,b,c\n",
		"number": "config,step,second,time,insert_count,insert_per_sec,insert_p50_us,insert_p99_us,insert_max_us,insert_rt_p99_us,insert_rt_max_us,insert_errors\na,l.i0,1,2026-01-02T03:04:06.000Z,1,x,1,1,1,,,0\n",
		"time":   "config,step,second,time\na,l.i0,1,yesterday\n",
	} {
		path := filepath.Join(dir, name+".csv")
		os.WriteFile(path, []byte(body), 0o644)
		if err := ReadIntervals(path, sampleRun()); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

func TestWriteFileAtomicReadable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := WriteFile(path, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("bb")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 || st.Size() != 2 {
		t.Errorf("file %v, %v: want 2 bytes readable by all", st, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "no", "such"), nil); err == nil || !strings.Contains(err.Error(), "no/such") {
		t.Errorf("write into a missing directory: %v", err)
	}
}

func TestProbeWrite(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 4096} {
		if err := ProbeWrite(dir, size); err != nil {
			t.Errorf("ProbeWrite(%d): %v", size, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the probe left %v behind", entries)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := ProbeWrite(file, 0); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("ProbeWrite in a regular file: %v, want ENOTDIR", err)
	}
}
