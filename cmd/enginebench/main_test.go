package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload/insertbench"
)

// runCLI runs the command in-process and returns its exit status, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runBad runs the command in-process with args, which it must refuse as bad input: exit
// status 2, one line on stderr that contains want, nothing on stdout.
func runBad(t *testing.T, want string, args ...string) {
	t.Helper()
	runBadOut(t, want, args...)
}

// runBadOut is runBad that returns the command's standard error.
func runBadOut(t *testing.T, want string, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
	}
	if !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("stderr %q: want one line containing %q", stderr, want)
	}
	if stdout != "" {
		t.Errorf("stdout not empty: %q", stdout)
	}
	return stderr
}

// integration marks a test that does real work (runs engines, starts servers, builds the
// binary): it is skipped under -short, saying why, and runs in parallel with the package's
// other such tests.
func integration(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	t.Parallel()
}

// runOK runs the command in-process with args, fails the test unless it exits 0, and returns
// its stdout and stderr.
func runOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	return stdout, stderr
}

// loadRun returns the run.json of the results directory out.
func loadRun(t *testing.T, out string) *result.Run {
	t.Helper()
	run, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// tinyArgs returns the arguments of a tiny run into a fresh results and data directory.
func tinyArgs(t *testing.T, engines string, extra ...string) (args []string, out string) {
	dir := t.TempDir()
	out = filepath.Join(dir, "results")
	args = append([]string{"run", "--scale", "tiny", "--engines", engines, "--out", out,
		"--data-dir", filepath.Join(dir, "data")}, extra...)
	return args, out
}

func TestRunEveryStepTinyOnEmbeddedEngines(t *testing.T) {
	integration(t, "integration test")
	// The engines sync every commit, so that l.i0's writes reach the device within the step:
	// without fsync they sit in the page cache until the kernel writes them back, seconds later.
	// l.i1 and l.i2 write a quarter of tiny's rows: with a sync per commit, theirs took most of
	// the run's time, and no check depends on their number.
	// --summary full prints every table of summary.md, which the test finds in both.
	args, out := tinyArgs(t, "sqlite,pebble,bbolt", "--query-seconds", "1", "--rows-l.i1", "5000", "--rows-l.i2", "1250",
		"--set", "sqlite.synchronous=full", "--set", "pebble.sync=true", "--set", "bbolt.sync=true", "--summary", "full")
	stdout, _ := runOK(t, args...)
	run := loadRun(t, out)
	if run.Status != result.StatusOK || len(run.Configs) != 3 {
		t.Fatalf("run status %q with %d configs", run.Status, len(run.Configs))
	}
	for _, c := range run.Configs {
		if len(c.Steps) != len(insertbench.DefaultSteps()) {
			t.Errorf("%s ran %d steps, want %d", c.Name, len(c.Steps), len(insertbench.DefaultSteps()))
		}
		if c.Version == "" {
			t.Errorf("%s: no engine version", c.Name)
		}
		for i, s := range c.Steps {
			checkStep(t, c.Name, s)
			checkEfficiency(t, c.Name, s, run.Host.DataDevice != "")
			if last := i == len(c.Steps)-1; (s.Verify != nil) != last {
				t.Errorf("%s %s: verification %+v, want one after the last step only", c.Name, s.Name, s.Verify)
			}
		}
	}
	if run.Host.DataDevice == "" {
		t.Logf("the test's data directory has no block device (%s): device IO not checked", run.Host.Filesystem)
	}
	csv, err := os.ReadFile(filepath.Join(out, "intervals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(csv), "\n")
	for _, col := range []string{"cpu_s", "cpupq", "db_cpu_s", "dbgb1", "l0_files", "wal_bytes"} {
		if !strings.Contains(","+header+",", ","+col+",") {
			t.Errorf("intervals.csv has no %s column: %s", col, header)
		}
	}
	for _, f := range []string{"run.json", "intervals.csv", "summary.md", "report.html", "report.md"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	// The run's report charts every step from the run itself.
	if html, _ := os.ReadFile(filepath.Join(out, "report.html")); !strings.Contains(string(html), `id="chart-qp1000-query-rate"`) ||
		!strings.Contains(string(html), "Throughput relative to sqlite") {
		t.Error("report.html lacks the qp1000 query chart or the relative throughput")
	}
	if !strings.Contains(stdout, "results: "+out) || !strings.Contains(stdout, "report:  "+filepath.Join(out, "report.html")) || !strings.Contains(stdout, "l.i0") {
		t.Errorf("summary not printed:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Efficiency: l.i0", "Efficiency: qp1000", "Cleanup: engine debt before and after", "include the harness"} {
		if !strings.Contains(stdout, want) || !strings.Contains(string(md), want) {
			t.Errorf("%q is not in the printed summary and summary.md", want)
		}
	}
}

// checkStep asserts what every step of a healthy run must show.
func checkStep(t *testing.T, cfg string, s result.Step) {
	t.Helper()
	if s.Status != result.StatusOK {
		t.Errorf("%s %s: status %s: %s", cfg, s.Name, s.Status, s.Error)
		return
	}
	if s.Primary == "" && s.Name != "cleanup" {
		t.Errorf("%s %s: no headline op", cfg, s.Name)
	}
	if s.Primary != "" {
		op := s.Ops[s.Primary]
		if op == nil || op.PerSec <= 0 || op.Latency.P50 <= 0 || op.Latency.Max < op.Latency.P99 {
			t.Errorf("%s %s: headline op %s missing, without rate or latency: %+v", cfg, s.Name, s.Primary, op)
		}
	}
	if s.Verify != nil && !s.Verify.OK {
		t.Errorf("%s %s: verification %+v", cfg, s.Name, s.Verify)
	}
	// The writers that delete probe min(transactionid) within the step.
	if deletes := strings.HasPrefix(s.Name, "l.i") && s.Name != "l.i0" || strings.HasPrefix(s.Name, "q"); (s.Probe != nil) != deletes {
		t.Errorf("%s %s: min(transactionid) probe %+v", cfg, s.Name, s.Probe)
	}
	if strings.HasPrefix(s.Name, "q") {
		if s.Target == nil || s.Target.InsertsPerSec <= 0 || s.Target.AchievedInsertsPerSec <= 0 {
			t.Errorf("%s %s: target %+v", cfg, s.Name, s.Target)
		}
		if ins := s.Ops["insert"]; ins == nil || ins.Response == nil {
			t.Errorf("%s %s: background insert has no response time", cfg, s.Name)
		}
	}
	if s.Name == "scan" && len(s.Phases) != 5 {
		t.Errorf("%s scan: %d phases, want 5", cfg, len(s.Phases))
	}
}

// checkEfficiency asserts the resource figures of a step of a real run: CPU per operation for
// every step with a rate, a database size for every step, writes per insert in l.i0 where the
// data directory has a device, and the debt before and after the cleanup.
func checkEfficiency(t *testing.T, cfg string, s result.Step, device bool) {
	t.Helper()
	if s.Size == nil || s.Size.DBGB1 == nil || *s.Size.DBGB1 <= 0 || s.Size.DBGB2 == nil || *s.Size.DBGB2 < *s.Size.DBGB1 {
		t.Errorf("%s %s: size %s", cfg, s.Name, show(s.Size))
	}
	if len(s.EngineStats) == 0 {
		t.Errorf("%s %s: no engine stats", cfg, s.Name)
	}
	if s.Primary != "" {
		e := s.Efficiency
		if e == nil || e.CPUpq == nil || *e.CPUpq <= 0 || e.DBCPUpq == nil || *e.DBCPUpq <= 0 {
			t.Errorf("%s %s: efficiency %s", cfg, s.Name, show(e))
		} else if e.ClientCPUpq != nil {
			t.Errorf("%s %s: an embedded engine has a separate client CPU", cfg, s.Name)
		}
	}
	if s.Name == "l.i0" && device {
		if e := s.Efficiency; e == nil || e.WKBpi == nil || *e.WKBpi <= 0 || e.Wpi == nil || *e.Wpi <= 0 {
			t.Errorf("%s l.i0: writes per insert %s", cfg, show(e))
		}
	}
	if s.Name == "cleanup" {
		if len(s.EngineStatsBefore) == 0 {
			t.Errorf("%s cleanup: no debt before", cfg)
		}
		// Engines with a WAL (SQLite, Pebble) shrink it; bbolt has none, and its cleanup is an
		// fsync.
		if before, ok := s.EngineStatsBefore["wal_bytes"]; ok || cfg != "bbolt" {
			if after := s.EngineStats["wal_bytes"]; before <= 0 || after >= before {
				t.Errorf("%s cleanup: WAL bytes %v before, %v after", cfg, before, after)
			}
		}
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRunNullEngineSkipsVerification(t *testing.T) {
	t.Parallel()
	args, out := tinyArgs(t, "null", "--query-seconds", "0.5")
	runOK(t, args...)
	run := loadRun(t, out)
	c := run.Configs[0]
	if !strings.Contains(strings.Join(c.Notes, " "), "verification is skipped") {
		t.Errorf("null config notes %q do not say verification is skipped", c.Notes)
	}
	// The client-saturation check runs at its default limit; an embedded engine is its own
	// client, so no step has a client share or a mark.
	if run.ClientCPULimitPct != 50 {
		t.Errorf("run.json: client_cpu_limit_pct %v, want the default 50", run.ClientCPULimitPct)
	}
	for _, s := range c.Steps {
		if s.Verify != nil {
			t.Errorf("step %s verified on the null engine", s.Name)
		}
		if s.ClientBound || (s.Resources != nil && s.Resources.ClientCPUPct != nil) {
			t.Errorf("step %s of an embedded engine: client_bound %v, resources %s", s.Name, s.ClientBound, show(s.Resources))
		}
	}
}

func TestBadInputExitsTwoBeforeWork(t *testing.T) {
	dir := t.TempDir()
	notEmpty := filepath.Join(dir, "full")
	os.MkdirAll(notEmpty, 0o755)
	os.WriteFile(filepath.Join(notEmpty, "x"), []byte("x"), 0o644)
	aFile := filepath.Join(dir, "file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown engine", []string{"--engines", "oracle"}, `unknown engine "oracle"`},
		{"unknown step", []string{"--steps", "l.i0,l.i7"}, `unknown step "l.i7"`},
		{"zero clients", []string{"--clients", "0"}, "--clients must be > 0"},
		{"not a number", []string{"--rows", "many"}, "invalid argument"},
		{"unknown flag", []string{"--rowz", "5"}, "unknown flag"},
		{"unknown scale", []string{"--scale", "huge"}, `unknown scale "huge"`},
		{"unknown setting", []string{"--engines", "sqlite", "--set", "sqlite.cache_mbb=5"}, "unknown setting cache_mbb"},
		{"bad setting value", []string{"--engines", "pebble", "--set", "pebble.cache_mb=lots"}, "cache_mb"},
		{"set for other engine", []string{"--engines", "sqlite", "--set", "pebble.cache_mb=5"}, "not in --engines"},
		{"data dir not empty", []string{"--data-dir", notEmpty}, "is not empty"},
		{"data dir unwritable", []string{"--data-dir", filepath.Join(aFile, "sub")}, "data directory"},
		{"results dir not empty", []string{"--out", notEmpty}, "not empty"},
		{"unknown workload", []string{"ycsb"}, `unknown workload "ycsb"`},
		{"linkbench flag for insert", []string{"--requesters", "3"}, "--requesters: not a parameter of the insert workload (linkbench only)"},
		{"insert flag for linkbench", []string{"linkbench", "--rows", "3"}, "--rows: not a parameter of the linkbench workload (insert only)"},
		{"unknown profile", []string{"linkbench", "--profile", "fb1999"}, `--profile: unknown LinkBench profile "fb1999" (known: fb2011, fb2017)`},
		{"missing distribution file", []string{"linkbench", "--distribution-file", "/nonexistent/d.dat"}, "--distribution-file: open /nonexistent/d.dat"},
		{"iibench flag for insert", []string{"--max-rows", "5"}, "--max-rows: not a parameter of the insert workload (iibench only)"},
		{"insert flag for iibench", []string{"iibench", "--rows", "3"}, "--rows: not a parameter of the iibench workload (insert only)"},
		{"shared domain flag for linkbench", []string{"linkbench", "--customers", "5"}, "--customers: not a parameter of the linkbench workload (iibench, insert only)"},
		{"iibench scale", []string{"iibench", "--scale", "huge"}, `unknown iibench scale "huge" (known: tiny, small, cached, iobound, large)`},
		{"iibench steps", []string{"iibench", "--steps", "l.i0"}, "iibench has one step, run"},
		{"iibench without an end", []string{"iibench", "--max-rows", "0"}, "the run needs an end: set --max-rows or --seconds"},
		{"iibench indexes", []string{"iibench", "--secondary-indexes", "4"}, "--secondary-indexes must be within 0..3, got 4"},
		{"iibench price", []string{"iibench", "--cost-per-hour", "-1.5"}, "--cost-per-hour must be >= 0"},
		{"iibench domain", []string{"iibench", "--customers", "0"}, "--customers must be > 0"},
		{"unknown variant", []string{"--variant", "fixed"}, `--variant "fixed": must be reference or corrected`},
		{"unknown variant of linkbench", []string{"linkbench", "--variant", "Corrected"}, `--variant "Corrected": must be reference or corrected`},
		{"unknown verify policy", []string{"iibench", "--verify", "never"}, `--verify "never": must be end or each-step`},
		{"client CPU limit zero", []string{"--client-cpu-limit", "0"}, "--client-cpu-limit 0: want a percentage of all CPUs, more than 0 and at most 100"},
		{"summary of another kind", []string{"--summary", "short"}, `--summary "short": want brief (the top summary, the throughput table and the flags) or full (every table)`},
		{"summary in capitals", []string{"linkbench", "--summary", "Full"}, `--summary "Full": want brief`},
		{"cpu profile mode", []string{"--cpu-profile=always"}, `--cpu-profile "always": want off, step (the whole measured time) or windows`},
		{"cpu profile frequency", []string{"linkbench", "--cpu-profile", "--cpu-profile-hz", "0"}, "--cpu-profile-hz 0: want 1 to 10000 samples a second"},
		{"counters set", []string{"iibench", "--counters=hardware"}, `--counters "hardware": want off, software or all`},
		{"client CPU limit negative", []string{"linkbench", "--client-cpu-limit", "-5"}, "--client-cpu-limit -5: want a percentage"},
		{"client CPU limit above 100", []string{"iibench", "--client-cpu-limit", "100.5"}, "--client-cpu-limit 100.5: want a percentage"},
		{"client CPU limit NaN", []string{"--client-cpu-limit", "NaN"}, "--client-cpu-limit NaN: want a percentage"},
		{"client CPU limit infinite", []string{"--client-cpu-limit", "Inf"}, "--client-cpu-limit +Inf: want a percentage"},
		{"client CPU limit not a number", []string{"--client-cpu-limit", "half"}, `invalid argument "half" for "--client-cpu-limit"`},
		{"NaN seconds", []string{"--query-seconds", "NaN"}, `invalid argument "NaN" for "--query-seconds" flag: want a finite number of at most 1e+09`},
		{"infinite seconds", []string{"linkbench", "--interval-seconds", "+Inf"}, `"--interval-seconds" flag: want a finite number`},
		{"huge seconds", []string{"iibench", "--seconds", "1e300"}, `"--seconds" flag: want a finite number`},
		{"NaN rate", []string{"iibench", "--max-insert-rate", "nan"}, `"--max-insert-rate" flag: want a finite number`},
		{"float not a number", []string{"linkbench", "--request-rate", "fast"}, `invalid argument "fast" for "--request-rate" flag: not a number`},
		{"warm-up negative", []string{"--exclude-warmup", "-1"}, "--exclude-warmup -1: want 0 (none) or more seconds"},
		{"warm-up without a timed step", []string{"--exclude-warmup", "5"}, "--exclude-warmup 5: no step of this insert run runs for a duration"},
		{"warm-up as long as a step", []string{"linkbench", "--interval-seconds", "10", "--exclude-warmup", "10"}, "--exclude-warmup 10: step run.N runs for 10"},
		{"warm-up longer than iibench", []string{"iibench", "--seconds", "5", "--exclude-warmup", "7.5"}, "--exclude-warmup 7.5: step run runs for 5"},
		{"memory limit not a size", []string{"--memory-limit", "lots"}, `--memory-limit: memory limit "lots": want a size such as 256M`},
		{"memory limit too small", []string{"--memory-limit", "1M"}, `--memory-limit: memory limit "1M": at least 64 MiB`},
		{"memory_limit setting", []string{"--engines", "sqlite", "--set", "sqlite.memory_limit=-5"}, `configuration sqlite: memory limit "-5"`},
		{"memory cap on an existing server", []string{"--engines", "postgres", "--dsn", "postgres:///x", "--memory-limit", "1G"},
			"a memory cap (1 GiB, from --memory-limit) applies to an engine enginebench runs, not to an existing server"},
		{"threshold unknown check", []string{"--threshold", "noise=3"}, `--threshold noise=3: unknown check "noise" (checks: `},
		{"threshold not CHECK=VALUE", []string{"--threshold", "steal"}, `--threshold "steal": want CHECK=VALUE`},
		{"threshold negative", []string{"--threshold", "steal=3,swap=-1"}, "--threshold swap=-1: want a number of 0 or more"},
		{"threshold NaN", []string{"--threshold", "other_cpu=NaN"}, "--threshold other_cpu=NaN: want a number of 0 or more"},
		{"threshold of a host check", []string{"--threshold", "smt=1"}, `unknown check "smt"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			args := append([]string{"run", "--scale", "tiny", "--out", out,
				"--data-dir", filepath.Join(t.TempDir(), "d")}, c.args...) // later flags win
			runBad(t, c.want, args...)
			if _, err := os.Stat(filepath.Join(out, "run.json")); err == nil {
				t.Errorf("a results directory was written")
			}
		})
	}
}

func TestEnginesListsEveryEngine(t *testing.T) {
	code, stdout, _ := runCLI(t, "engines")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, e := range []string{"sqlite", "pebble", "null"} {
		if !strings.Contains(stdout, e) {
			t.Errorf("engines output lacks %s:\n%s", e, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "engines", "sqlite")
	if code != 0 || !strings.Contains(stdout, "journal_mode") {
		t.Errorf("engines sqlite: exit %d\n%s", code, stdout)
	}
	if code, _, _ := runCLI(t, "engines", "nope"); code != exitUsage {
		t.Errorf("engines nope: exit %d, want %d", code, exitUsage)
	}
}

// The server engines show each default with its source (the published configuration files).
func TestEnginesShowSources(t *testing.T) {
	for eng, want := range map[string][]string{
		"innodb":   {"SOURCE", "my.cnf.cz11a_c8r32", "log_bin", "innodb_adaptive_hash_index", "innodb_purge_threads", "table_engine", "scaled"},
		"myrocks":  {"SOURCE", "my.cnf.cza1_c8r32", "rocksdb_max_background_jobs", "table_engine"},
		"postgres": {"SOURCE", "conf.diff.cx10a_c8r32", "autovacuum_work_mem", "scaled"},
	} {
		code, stdout, _ := runCLI(t, "engines", eng)
		if code != 0 {
			t.Fatalf("engines %s: exit %d", eng, code)
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("engines %s lacks %q:\n%s", eng, w, stdout)
			}
		}
	}
	if _, stdout, _ := runCLI(t, "engines", "sqlite"); strings.Contains(stdout, "SOURCE") {
		t.Errorf("engines sqlite has a source column:\n%s", stdout)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "enginebench ") {
		t.Errorf("version: exit %d %q", code, stdout)
	}
}

// TestInterruptWritesResults builds the binary, starts a long load, sends SIGINT mid-step
// and checks that the run stops with status 130 and that run.json says interrupted.
func TestInterruptWritesResults(t *testing.T) {
	integration(t, "builds the binary")
	run, out, data := startTiny(t, "run", "--scale", "tiny", "--engines", "pebble", "--rows", "100000000")
	// Wait until the load has inserted rows (its progress says so), then interrupt.
	run.waitForProgress(t, "l.i0")
	r := run.interrupt(t, out)
	if r.Status != result.StatusInterrupted || len(r.Configs) != 1 {
		t.Fatalf("run status %q", r.Status)
	}
	steps := r.Configs[0].Steps
	if len(steps) != 1 || steps[0].Status != result.StatusInterrupted || steps[0].Ops["insert"] == nil {
		t.Fatalf("steps after interrupt: %+v", steps)
	}
	if steps[0].Ops["insert"].Units == 0 {
		t.Errorf("the interrupted load recorded no rows")
	}
	// The report of what ran is written too, and says the step was interrupted.
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), `class="failed">interrupted`) {
		t.Errorf("no report of the interrupted run, or it does not show the interrupted step: %v", err)
	}
	checkRemoved(t, filepath.Join(data, "pebble"))
}
