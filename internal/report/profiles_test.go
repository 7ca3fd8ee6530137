package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/flame"
	"github.com/enginebench/enginebench/internal/result"
)

// writePprof writes a CPU profile at dir/rel as runtime/pprof would: stacks (root first,
// frames separated by ";") with their CPU in milliseconds.
func writePprof(t *testing.T, dir, rel string, stacks map[string]int64) {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
	}
	funcs := map[string]*profile.Function{}
	for stack, ms := range stacks {
		names := strings.Split(stack, ";")
		var locs []*profile.Location
		for i := len(names) - 1; i >= 0; i-- {
			f := funcs[names[i]]
			if f == nil {
				f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: names[i]}
				funcs[names[i]] = f
				p.Function = append(p.Function, f)
			}
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Address: uint64(0x1000 + len(p.Location)), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{ms / 10, ms * 1_000_000}})
	}
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// profiledRunDir makes a run directory of an Insert Benchmark run of three configurations whose
// step l.i1 was profiled and counted: pebble (the base) and rocksdb with pprof files (rocksdb
// did twice the inserts, spent the same CPU per insert in memtable.Add, three times pebble's in
// wal.Write, and some in compaction.Run, which pebble has none of), wiredtiger whose profiling
// and counting failed. pebble's L1 misses were not supported.
func profiledRunDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run1")
	writePprof(t, dir, "profiles/pebble/l.i1.pb.gz", map[string]int64{
		"main;db.Insert;memtable.Add": 600, "main;db.Insert;wal.Write": 300, "main;runtime.gcBgMarkWorker": 100})
	writePprof(t, dir, "profiles/rocksdb/l.i1.pb.gz", map[string]int64{
		"main;db.Insert;memtable.Add": 1200, "main;db.Insert;wal.Write": 1800, "main;runtime.gcBgMarkWorker": 200, "main;compaction.Run": 400})
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	r := &result.Run{RunID: "r1", StartedAt: t0, Status: result.StatusOK, Workload: result.Workload{Name: "insert", Scale: "cached"}}
	for _, c := range []struct {
		name      string
		ops       float64
		samples   int64
		cpu       float64
		cycles    float64
		instr     float64
		l1        *float64
		l1Reason  string
		failed    string
		countFail string
	}{
		{name: "pebble", ops: 1000, samples: 100, cpu: 1, cycles: 1e9, instr: 2e9, l1Reason: "<not supported>"},
		{name: "rocksdb", ops: 2000, samples: 360, cpu: 3.6, cycles: 3e9, instr: 3e9, l1: ptr(1e7)},
		{name: "wiredtiger", ops: 1000, failed: "perf record: permission denied (kernel.perf_event_paranoid is 4)", countFail: "perf stat: permission denied"},
	} {
		s := result.Step{Name: "l.i1", Status: result.StatusOK, StartedAt: t0, Seconds: 10, Primary: "insert",
			Ops: map[string]*result.Op{"insert": {Count: int64(c.ops), Units: int64(c.ops), PerSec: c.ops / 10}}}
		s.Profile = &result.Profile{Tool: "runtime/pprof", Of: result.OfEnginebench, Hz: 100, Mode: result.ModeStep, PerOp: "insert", Ops: c.ops,
			Windows: []result.Window{{Start: t0, Seconds: 10}}}
		s.Counters = &result.Counters{Tool: "perf stat", Of: result.OfEnginebench, Mode: result.ModeStep, PerOp: "insert", Ops: c.ops}
		if c.failed != "" {
			s.Profile.Error, s.Counters.Error = c.failed, c.countFail
		} else {
			s.Profile.File = "profiles/" + c.name + "/l.i1.pb.gz"
			s.Profile.Samples, s.Profile.CPUSeconds = c.samples, c.cpu
			s.Counters.Events = []result.Counter{{Event: "cycles", Value: ptr(c.cycles)}, {Event: "instructions", Value: ptr(c.instr)},
				{Event: "L1-dcache-load-misses", Value: c.l1, Reason: c.l1Reason}, {Event: "task-clock", Value: ptr(1000 * c.cpu), Unit: "msec"}}
		}
		r.Configs = append(r.Configs, result.Config{Name: c.name, Engine: c.name, Status: result.StatusOK,
			Steps: []result.Step{{Name: "l.i0", Status: result.StatusOK, Primary: "insert", Seconds: 1}, s}})
	}
	if err := result.OpenDir(dir).WriteRun(r); err != nil {
		t.Fatal(err)
	}
	return dir
}

// profiledPage is the page of the run directory, read as `enginebench report` reads it.
func profiledPage(t *testing.T, dir string) *Page {
	t.Helper()
	runs, err := LoadRuns([]string{dir}, []string{"insert"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPage(runs, Options{Layouts: testLayouts(), HTMLDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func findSection(p *Page, id string) *Section {
	for i := range p.Sections {
		if p.Sections[i].ID == id {
			return &p.Sections[i]
		}
	}
	return nil
}

func findTable(s *Section, title string) *Table {
	for _, b := range s.Blocks {
		if b.Table != nil && b.Table.Title == title {
			return b.Table
		}
	}
	return nil
}

// tableCell is the cell of t in the row whose first cell is key, under header col, with its class.
func tableCell(t *testing.T, tb *Table, key, col string) (string, string) {
	t.Helper()
	j := -1
	for k, h := range tb.Header {
		if h == col {
			j = k
		}
	}
	for i, row := range tb.Rows {
		if row[0] == key && j >= 0 {
			cl := ""
			if i < len(tb.Class) {
				cl = tb.Class[i][j]
			}
			return row[j], cl
		}
	}
	t.Fatalf("table %q has no cell %s/%s: %v %v", tb.Title, key, col, tb.Header, tb.Rows)
	return "", ""
}

func findNode(n *flame.Node, path ...string) *flame.Node {
	for _, name := range path {
		var next *flame.Node
		for _, c := range n.Children {
			if c.Name == name {
				next = c
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

func TestWhereTheCPUWentShowsFlameGraphsDiffTopAndCounters(t *testing.T) {
	dir := profiledRunDir(t)
	p := profiledPage(t, dir)
	sec := findSection(p, "cpu-l.i1")
	if sec == nil || findSection(p, "cpu-l.i0") != nil {
		t.Fatalf("sections %v: want one for l.i1 and none for l.i0, which nothing profiled", p.Sections)
	}
	var flames, diffs []*Flame
	var texts []string
	search := false
	for _, b := range sec.Blocks {
		switch {
		case b.Flame != nil && b.Flame.Tree.Diff:
			diffs = append(diffs, b.Flame)
		case b.Flame != nil:
			flames = append(flames, b.Flame)
		case b.Text != "":
			texts = append(texts, b.Text)
		}
		search = search || b.Search
	}
	if len(flames) != 2 || len(diffs) != 1 || !search {
		t.Fatalf("%d flame graphs, %d differential, search %v: want pebble's and rocksdb's, rocksdb against pebble, a search box", len(flames), len(diffs), search)
	}
	// pebble: 1s over 1000 inserts; rocksdb: 3.6s over 2000.
	for i, want := range []float64{0.001, 0.0018} {
		if got := flames[i].Tree.Root.Value; got < want*0.999 || got > want*1.001 {
			t.Errorf("%s: %g s of CPU per insert, want %g", flames[i].Title, got, want)
		}
	}
	if !strings.HasPrefix(flames[0].Title, "pebble: CPU of the enginebench process by runtime/pprof, 100 samples") || flames[0].Path != filepath.Join(dir, "profiles/pebble/l.i1.pb.gz") || flames[0].Href != "profiles/pebble/l.i1.pb.gz" {
		t.Errorf("pebble's graph %q, file %s (href %s)", flames[0].Title, flames[0].Path, flames[0].Href)
	}
	d := diffs[0].Tree
	same, wal := findNode(d.Root, "main", "db.Insert", "memtable.Add"), findNode(d.Root, "main", "db.Insert", "wal.Write")
	if same == nil || wal == nil || same.Value/same.Base < 0.999 || same.Value/same.Base > 1.001 || wal.Value/wal.Base < 2.99 || wal.Value/wal.Base > 3.01 {
		t.Errorf("diff per insert: memtable.Add %+v (want no change), wal.Write %+v (want 3x)", same, wal)
	}
	if !strings.Contains(strings.Join(texts, "\n"), "wiredtiger: no CPU profile of this step: perf record: permission denied") {
		t.Errorf("no text says why wiredtiger has no profile: %q", texts)
	}
	top := findTable(sec, "Top functions by CPU per insert: rocksdb against pebble, step l.i1")
	if top == nil {
		t.Fatal("no top functions table of rocksdb against pebble")
	}
	if v, cl := tableCell(t, top, "wal.Write", "self vs base"); v != "3.00" || cl != ClassWorse {
		t.Errorf("wal.Write self vs base %q {%s}, want 3.00 {worse}", v, cl)
	}
	if v, cl := tableCell(t, top, "memtable.Add", "self vs base"); v != "1.00" || cl != "" {
		t.Errorf("memtable.Add self vs base %q {%s}, want 1.00 uncoloured", v, cl)
	}
	if v, _ := tableCell(t, top, "compaction.Run", "self vs base"); v != missing {
		t.Errorf("compaction.Run, new in rocksdb: self vs base %q, want -", v)
	}
	if top.Rows[0][0] != "wal.Write" {
		t.Errorf("top function %q, want wal.Write (0.9ms per insert in rocksdb)", top.Rows[0][0])
	}
	checkCounterTables(t, sec)
	checkProfilePageText(t, p)
}

// checkCounterTables checks the counters per insert of the profiled run's l.i1.
func checkCounterTables(t *testing.T, sec *Section) {
	t.Helper()
	abs, rel := findTable(sec, "Counters per insert: l.i1"), findTable(sec, "Counters per insert: l.i1, relative to pebble")
	if abs == nil || rel == nil {
		t.Fatalf("no counters tables in %v", sec.Blocks)
	}
	for _, c := range []struct{ config, col, want string }{
		{"pebble", "cycles", "1000000"}, {"pebble", "IPC", "2"}, {"rocksdb", "IPC", "1"},
		{"pebble", "L1-dcache-load-misses", "- (<not supported>)"}, {"rocksdb", "L1-dcache-load-misses", "5000"},
		{"pebble", "task-clock", "1ms"}, {"wiredtiger", "cycles", "- (not counted)"},
	} {
		if got, _ := tableCell(t, abs, c.config, c.col); got != c.want {
			t.Errorf("%s %s per insert %q, want %q", c.config, c.col, got, c.want)
		}
	}
	if got, _ := tableCell(t, abs, "wiredtiger", "note"); !strings.Contains(got, "perf stat: permission denied") {
		t.Errorf("wiredtiger's note %q, want perf stat's error", got)
	}
	for _, c := range []struct{ config, col, want, class string }{
		{"rocksdb", "cycles", "1.50", ClassWorse}, {"rocksdb", "IPC", "0.50", ClassWorse}, {"rocksdb", "instructions", "0.75", ClassBetter},
		{"rocksdb", "L1-dcache-load-misses", missing, ClassMissing}, {"pebble", "cycles", "1.00", ""},
	} {
		if got, cl := tableCell(t, rel, c.config, c.col); got != c.want || cl != c.class {
			t.Errorf("%s %s relative to pebble %q {%s}, want %q {%s}", c.config, c.col, got, cl, c.want, c.class)
		}
	}
}

// checkProfilePageText checks the HTML and markdown of the profiled run's page.
func checkProfilePageText(t *testing.T, p *Page) {
	t.Helper()
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, want := range []string{`class="flame"`, `class="flame flame-diff"`, `data-fn="wal.Write"`, `data-fn="compaction.Run"`,
		`<a href="profiles/rocksdb/l.i1.pb.gz">`, "go tool pprof -top ", `class="flame-search"`, "Where the CPU went: l.i1", flame.Script()} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html has no %.80q", want)
		}
	}
	if n := strings.Count(h, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"flame-"); n != 3 {
		t.Errorf("%d flame graphs in report.html, want 3", n)
	}
	md := MarkdownPage(p)
	for _, want := range []string{"## Where the CPU went: l.i1", "### Top functions by CPU per insert: rocksdb against pebble, step l.i1",
		"| - (<not supported>) |", "### Counters per insert: l.i1, relative to pebble", "go tool pprof -top ", "3.00 worse"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md has no %q", want)
		}
	}
}

func TestWhereTheCPUWentSaysAnUnreadableProfile(t *testing.T) {
	dir := profiledRunDir(t)
	if err := os.Remove(filepath.Join(dir, "profiles/rocksdb/l.i1.pb.gz")); err != nil {
		t.Fatal(err)
	}
	sec := findSection(profiledPage(t, dir), "cpu-l.i1")
	var text string
	for _, b := range sec.Blocks {
		if b.Flame != nil && strings.HasPrefix(b.Flame.Title, "rocksdb") {
			t.Errorf("a graph of rocksdb, whose file is gone: %s", b.Flame.Title)
		}
		if strings.HasPrefix(b.Text, "rocksdb: no CPU profile") {
			text = b.Text
		}
	}
	if !strings.Contains(text, "no such file") {
		t.Errorf("rocksdb's text %q, want why its file could not be read", text)
	}
	if findTable(sec, "Top functions by CPU per insert: pebble, step l.i1") == nil {
		t.Error("no top table of pebble alone, the only profile read")
	}
}

// TestWhereTheCPUWentSaysAnUnsampledProfile: a profile file without samples (a step too short
// for its sampling) is said in a line, not drawn as an empty graph, and neither is a
// differential graph against it; the other profiles are still drawn.
func TestWhereTheCPUWentSaysAnUnsampledProfile(t *testing.T) {
	for _, empty := range []string{"rocksdb", "pebble"} {
		t.Run(empty, func(t *testing.T) {
			dir := profiledRunDir(t)
			writePprof(t, dir, "profiles/"+empty+"/l.i1.pb.gz", nil)
			sec := findSection(profiledPage(t, dir), "cpu-l.i1")
			var drawn, texts []string
			for _, b := range sec.Blocks {
				if b.Flame != nil {
					drawn = append(drawn, b.Flame.Title)
				}
				if b.Text != "" {
					texts = append(texts, b.Text)
				}
			}
			other := map[string]string{"rocksdb": "pebble", "pebble": "rocksdb"}[empty]
			if len(drawn) != 1 || !strings.HasPrefix(drawn[0], other+": CPU of") {
				t.Errorf("graphs %q, want only %s's own", drawn, other)
			}
			want := []string{empty + ": no CPU sampled in this step (10s profiled at 100 Hz, too short for a sample; " + filepath.Join(dir, "profiles", empty, "l.i1.pb.gz")}
			if empty == "pebble" {
				want = append(want, "rocksdb against pebble: no differential graph, the base's profile of this step has no samples")
			}
			for _, w := range want {
				if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, w) }) {
					t.Errorf("texts %q\nwant one starting %q", texts, w)
				}
			}
		})
	}
}

func TestProfileDiff(t *testing.T) {
	dir := profiledRunDir(t)
	runs, err := LoadRuns([]string{dir}, []string{"insert"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteProfileDiff(&b, runs, DiffOptions{A: "pebble", B: "rocksdb"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"A pebble: " + filepath.Join(dir, "profiles/pebble/l.i1.pb.gz") + " (CPU of the enginebench process by runtime/pprof, 100 samples, 1ms per insert)",
		"B rocksdb: " + filepath.Join(dir, "profiles/rocksdb/l.i1.pb.gz"),
		"from " + filepath.Join(dir, "run.json"),
		"top functions by CPU per insert", "counters per insert",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--diff output has no %q:\n%s", want, out)
		}
	}
	for _, row := range [][]string{{"wal.Write", "300us", "900us", "3.00", "300us", "900us", "3.00"}, {"IPC", "2", "1", "0.50"}, {"L1-dcache-load-misses", "- (<not supported>)", "5000", "-"}} {
		if !hasTextRow(out, row) {
			t.Errorf("--diff output has no row %v:\n%s", row, out)
		}
	}
	if strings.Contains(out, "step l.i0") {
		t.Errorf("--diff shows l.i0, which nothing profiled:\n%s", out)
	}
	for _, o := range []DiffOptions{{A: "pebble", B: "nosuch"}, {A: "pebble", B: "pebble"}, {A: "pebble", B: "rocksdb", Step: "l.i0"}} {
		err := WriteProfileDiff(&b, runs, o)
		var bad *badinput.Error
		if !errors.As(err, &bad) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--diff %+v: error %v, want one line of bad input", o, err)
		}
	}
}

// hasTextRow reports whether a terminal table of out has a row of cells.
func hasTextRow(out string, cells []string) bool {
	for _, line := range strings.Split(out, "\n") {
		var got []string
		for _, c := range strings.Split(line, "│") {
			if c = strings.TrimSpace(c); c != "" {
				got = append(got, c)
			}
		}
		if slices.Equal(got, cells) {
			return true
		}
	}
	return false
}

// TestFlameAssets checks that the flame graphs' style and script can be inlined: neither ends
// its element early.
func TestFlameAssets(t *testing.T) {
	for name, s := range map[string]string{"script": flame.Script(), "style": flame.Style() + flameFigureCSS} {
		if l := strings.ToLower(s); strings.Contains(l, "</script") || strings.Contains(l, "</style") || s == "" {
			t.Errorf("the flame graphs' %s cannot be inlined (empty or closing its element)", name)
		}
	}
}

// A profile's link is relative to the page and escaped as a URL's path: a repeat's directory
// "pebble#2" is not a fragment.
func TestProfileHref(t *testing.T) {
	for _, c := range []struct{ dir, path, want string }{
		{"/r", "/r/profiles/pebble/l.i1.pb.gz", "profiles/pebble/l.i1.pb.gz"},
		{"/r", "/r/profiles/pebble#2/l.i1.pb.gz", "profiles/pebble%232/l.i1.pb.gz"},
		{"/out", "/r/profiles/a b/qr100.pb.gz", "../r/profiles/a%20b/qr100.pb.gz"},
	} {
		if got := href(c.dir, c.path); got != c.want {
			t.Errorf("href(%q, %q) = %q, want %q", c.dir, c.path, got, c.want)
		}
	}
}
