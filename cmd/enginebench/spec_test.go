package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/workload/insertbench"
)

// writeSpec writes a run spec into a fresh directory and returns its path.
func writeSpec(t *testing.T, text string) string {
	t.Helper()
	return writeFile(t, "spec.yaml", text)
}

// writeFile writes text into a file called name in a fresh directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunSpecTwoConfigsOfOneEngine(t *testing.T) {
	// The spec asks for the small scale and 100,000 rows; the command line's --scale and
	// --rows win, so the run is tiny. query-seconds and steps come from the spec.
	text := `# two pebble configurations
workload: insert
scale: small
params:
  rows: 100000
  query-seconds: 0.5
  steps: [l.i0]
configs:
  - name: pebble-a
    engine: pebble
    settings:
      compression: snappy
  - name: pebble.b
    base: pebble-a
    settings: {compression: zstd}
`
	spec := writeSpec(t, text)
	dir := t.TempDir()
	out := filepath.Join(dir, "results")
	_, stderr := runOK(t, "run", "--config", spec, "--scale", "tiny", "--rows", "3000",
		"--out", out, "--data-dir", filepath.Join(dir, "data"),
		"--set", "pebble.b.cache_mb=8", "--set", "pebble.memtable_mb=16")
	run := loadRun(t, out)
	var names []string
	for _, c := range run.Configs {
		names = append(names, c.Name)
		if c.Engine != "pebble" || c.Status != result.StatusOK || len(c.Steps) != 1 || c.Steps[0].Name != "l.i0" {
			t.Errorf("%s: engine %s, status %s, %d steps", c.Name, c.Engine, c.Status, len(c.Steps))
		}
		if c.Settings["memtable_mb"] != "16" {
			t.Errorf("%s: memtable_mb %q, want 16 from --set pebble.memtable_mb (every pebble configuration)", c.Name, c.Settings["memtable_mb"])
		}
	}
	if !slices.Equal(names, []string{"pebble-a", "pebble.b"}) {
		t.Fatalf("configurations %v", names)
	}
	a, b := run.Configs[0].Settings, run.Configs[1].Settings
	if a["compression"] != "snappy" || b["compression"] != "zstd" {
		t.Errorf("compression %q and %q, want snappy and zstd", a["compression"], b["compression"])
	}
	if a["cache_mb"] != "64" || b["cache_mb"] != "8" {
		t.Errorf("cache_mb %q and %q, want the default 64 and 8 from --set pebble.b.cache_mb", a["cache_mb"], b["cache_mb"])
	}
	w := run.Workload
	if w.Scale != "tiny" || w.Params["rows"] != float64(3000) || w.Params["query_seconds"] != 0.5 {
		t.Errorf("workload %s, rows %v, query_seconds %v: want tiny, 3000 (command line) and 0.5 (spec)",
			w.Scale, w.Params["rows"], w.Params["query_seconds"])
	}
	if !slices.Contains(run.Notes, "run spec: "+spec+" (a copy is run-spec.yaml)") {
		t.Errorf("notes %q do not record the spec", run.Notes)
	}
	if copied, err := os.ReadFile(filepath.Join(out, "run-spec.yaml")); err != nil || string(copied) != text {
		t.Errorf("run-spec.yaml is not the spec: %v\n%s", err, copied)
	}
	if !strings.Contains(stderr, "configurations pebble-a, pebble.b") {
		t.Errorf("stderr does not name the configurations:\n%s", stderr)
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "data")); err != nil || len(entries) != 0 {
		t.Errorf("data directory not emptied: %v %v", entries, err)
	}
}

func TestRunSpecBadInputExitsTwoBeforeWork(t *testing.T) {
	one := "configs:\n  - name: a\n    engine: sqlite\n"
	cases := []struct {
		name string
		spec string
		args []string
		want string
	}{
		{"typo in a configuration's key", "configs:\n  - name: a\n    engine: sqlite\n    setings: {cache_mb: 5}\n", nil,
			`spec.yaml:4: unknown key "setings" in a configuration (accepted: name, engine, base, settings,`},
		{"typo in a top-level key", "config:\n  - name: a\n", nil, `spec.yaml:1: unknown key "config" in the run spec`},
		{"unknown engine", "configs:\n  - name: a\n    engine: oracle\n", nil, `spec.yaml:2: configuration a: unknown engine "oracle"`},
		{"duplicate name", "configs:\n  - name: a\n    engine: sqlite\n  - name: a\n    engine: pebble\n", nil,
			`spec.yaml:4: configuration name "a" is used twice (first at line 2)`},
		{"base does not exist", "configs:\n  - name: a\n    engine: sqlite\n  - name: b\n    base: nope\n", nil,
			`spec.yaml:4: configuration b: base "nope" does not exist (configurations: a, b)`},
		{"base cycle", "configs:\n  - name: a\n    base: b\n  - name: b\n    base: a\n", nil, "base chain is a cycle"},
		{"nested map setting", "configs:\n  - name: a\n    engine: sqlite\n    settings:\n      cache_mb: {x: 1}\n", nil,
			"spec.yaml:5: configuration a: settings: cache_mb is a nested map"},
		{"nested list setting", "configs:\n  - name: a\n    engine: sqlite\n    settings:\n      cache_mb: [1, 2]\n", nil,
			"cache_mb is a nested list"},
		{"setting without value", "configs:\n  - name: a\n    engine: sqlite\n    settings:\n      cache_mb:\n", nil, "cache_mb has no value"},
		{"merge key", "x: &x {cache_mb: 5}\n" + one, nil, `unknown key "x"`},
		{"merge key in settings", "configs:\n  - name: a\n    engine: sqlite\n    settings: &s {cache_mb: 5}\n  - name: b\n    engine: sqlite\n    settings: {<<: *s}\n", nil,
			"merge keys (<<) are not supported"},
		{"settings not a map", "configs:\n  - name: a\n    engine: sqlite\n    settings: [cache_mb]\n", nil, "settings must be a map"},
		{"engines with config", one, []string{"--engines", "sqlite"}, "--engines and --config cannot be used together"},
		{"unknown parameter", "params:\n  rowz: 5\n" + one, nil, `spec.yaml:2: params: unknown insert parameter "rowz" (accepted: `},
		{"parameter that is not a size", "params:\n  out: x\n" + one, nil, `params: unknown insert parameter "out"`},
		{"what the invocation prints", "params:\n  summary: full\n" + one, nil, `spec.yaml:2: params: unknown insert parameter "summary"`},
		{"bad parameter value", "params:\n  rows: many\n" + one, nil, `spec.yaml:2: params: rows: "many" is not valid`},
		{"parameter out of range", "params:\n  clients: 0\n" + one, nil, "--clients must be > 0"},
		{"client CPU limit out of range", "params:\n  client-cpu-limit: 101\n" + one, nil, "--client-cpu-limit 101: want a percentage of all CPUs"},
		{"warm-up longer than a step", "workload: iibench\nparams:\n  seconds: 5\n  exclude-warmup: 5\n" + one, nil, "--exclude-warmup 5: step run runs for 5"},
		{"seconds not finite", "params:\n  query-seconds: .nan\n" + one, nil, `spec.yaml:2: params: query-seconds: ".nan" is not valid`},
		{"seconds too large", "params:\n  query-seconds: 1e300\n" + one, nil, `spec.yaml:2: params: query-seconds: "1e300" is not valid`},
		{"unknown scale", "scale: huge\n" + one, nil, `unknown scale "huge"`},
		{"unknown workload", "workload: ycsb\n" + one, nil, `unknown workload "ycsb"`},
		{"linkbench parameter for insert", "params:\n  requesters: 5\n" + one, nil, `spec.yaml:2: params: unknown insert parameter "requesters"`},
		{"insert parameter for linkbench", "workload: linkbench\nparams:\n  rows: 5\n" + one, nil, `spec.yaml:3: params: unknown linkbench parameter "rows"`},
		{"bad linkbench value", "workload: linkbench\nparams:\n  maxid1: 1\n" + one, nil, "--maxid1 must be > --startid1"},
		{"insert parameter for iibench", "workload: iibench\nparams:\n  rows: 5\n" + one, nil, `spec.yaml:3: params: unknown iibench parameter "rows"`},
		{"bad iibench value", "workload: iibench\nparams:\n  secondary-indexes: 9\n" + one, nil, "--secondary-indexes must be within 0..3, got 9"},
		{"iibench scale", "workload: iibench\nscale: huge\n" + one, nil, `unknown iibench scale "huge"`},
		{"unknown setting", "configs:\n  - name: a\n    engine: sqlite\n    settings: {cache_mbb: 4}\n", nil,
			"spec.yaml:2: configuration a: engine sqlite: unknown setting cache_mbb"},
		{"bad setting value", "configs:\n  - name: a\n    engine: pebble\n    settings: {cache_mb: lots}\n", nil, "cache_mb"},
		{"inherited bad setting", "configs:\n  - name: a\n    engine: pebble\n    settings: {cache_mb: lots}\n  - name: b\n    base: a\n", nil, "cache_mb"},
		{"invalid name", "configs:\n  - name: a/b\n    engine: sqlite\n", nil, `configuration name "a/b"`},
		{"name starting with a dot", "configs:\n  - name: ..\n    engine: sqlite\n", nil, `configuration name ".."`},
		{"no name", "configs:\n  - engine: sqlite\n", nil, "configuration 1 has no name"},
		{"neither engine nor base", "configs:\n  - name: a\n", nil, "has neither engine nor base"},
		{"no configs", "scale: tiny\n", nil, "no configs"},
		{"empty file", "", nil, "the run spec is empty"},
		{"syntax error", "configs: [\n", nil, "spec.yaml:"},
		{"two documents", one + "---\n" + one, nil, "one YAML document"},
		{"wrong type", "configs:\n  - name: a\n    engine: sqlite\n    db_pid: many\n", nil, "spec.yaml:4: cannot unmarshal"},
		{"set for no configuration", one, []string{"--set", "b.cache_mb=5"}, `"b" is neither a configuration nor an engine`},
		{"dsn for an embedded engine", one, []string{"--dsn", "user@unix(/tmp/x)/db"}, "configuration a (DSN from --dsn): engine sqlite is not a server"},
		{"dsn and dsn_env", "configs:\n  - name: a\n    engine: sqlite\n    dsn: x\n    dsn_env: Y\n", nil, "has both dsn and dsn_env"},
		{"dsn_env not set", "configs:\n  - name: a\n    engine: sqlite\n    dsn_env: ENGINEBENCH_TEST_UNSET\n", nil,
			"dsn_env: the environment variable ENGINEBENCH_TEST_UNSET is not set"},
		{"db_pid without a dsn", "configs:\n  - name: a\n    engine: sqlite\n    db_pid: 1\n", nil, "needs an existing server"},
		{"data_dir without a dsn", "configs:\n  - name: a\n    engine: sqlite\n    data_dir: /tmp\n", nil, "data_dir names an existing server's data directory"},
		{"spec file missing", "", []string{"--config", "/nonexistent/spec.yaml"}, "run spec: open /nonexistent/spec.yaml"},
		{"spec is a device", "", []string{"--config", "/dev/zero"}, "run spec /dev/zero: not a regular file (a device)"},
		{"spec is a directory", "", []string{"--config", "/"}, "run spec /: not a regular file (a directory)"},
		{"spec too large", "# " + strings.Repeat("x", runspec.MaxBytes) + "\n" + one, nil, "spec.yaml: the run spec is larger than 1 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := writeSpec(t, c.spec)
			dir := t.TempDir()
			out, data := filepath.Join(dir, "results"), filepath.Join(dir, "data")
			// No size flags: they would win over the spec's, whose errors are tested here.
			args := append([]string{"run", "--config", spec, "--out", out, "--data-dir", data}, c.args...)
			runBad(t, c.want, args...)
			for _, d := range []string{out, data} {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Errorf("%s was created", d)
				}
			}
		})
	}
}

func TestApplySpecCommandLineWins(t *testing.T) {
	cmd, f := runCommand(nil, nil)
	fl := cmd.Flags()
	if err := fl.Parse([]string{"--rows", "7", "--scale", "tiny"}); err != nil {
		t.Fatal(err)
	}
	sp := &runspec.Spec{Path: "s.yaml", Scale: "cached", Params: []runspec.Param{
		{Flag: "rows", Value: "9", Line: 2}, {Flag: "clients", Value: "3", Line: 3}, {Flag: "steps", Value: "l.i0,l.x", Line: 4}, {Flag: "query-seconds", Value: "0.25", Line: 5}}}
	if err := f.applySpec(fl, sp, "insert"); err != nil {
		t.Fatal(err)
	}
	w, err := f.workload(fl, insertbench.Name)
	if err != nil {
		t.Fatal(err)
	}
	p := w.Params()
	if p["scale"] != "tiny" || p["rows"] != int64(7) || p["clients"] != 3 || p["query_seconds"] != 0.25 || !slices.Equal(p["steps"].([]string), []string{"l.i0", "l.x"}) {
		t.Errorf("params %+v: want scale tiny and rows 7 from the command line, clients 3, query-seconds 0.25, steps l.i0,l.x from the spec", p)
	}
	// Without a scale on the command line, the spec's applies.
	cmd, f = runCommand(nil, nil)
	if err := f.applySpec(cmd.Flags(), &runspec.Spec{Path: "s.yaml", Scale: "cached"}, "insert"); err != nil {
		t.Fatal(err)
	}
	if f.scale != "cached" {
		t.Errorf("scale %q, want the spec's cached", f.scale)
	}
}

// TestSpecVariant: a run spec sets the variant and the verification policy under params, as any
// flag, and run.json records them.
func TestSpecVariant(t *testing.T) {
	spec := writeSpec(t, "workload: iibench\nscale: tiny\nparams:\n  variant: corrected\n  verify: each-step\nconfigs:\n  - name: n1\n    engine: \"null\"\n")
	out := filepath.Join(t.TempDir(), "results")
	if code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out, "--data-dir", filepath.Join(t.TempDir(), "d")); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if w := run.Workload; w.Variant != "corrected" || w.Verify != "each-step" {
		t.Errorf("run.json: variant %q, verify %q", w.Variant, w.Verify)
	}
}

// TestRunSpecCopyWithoutPassword runs a spec whose comments hold passwords and reads the copy
// the run writes into its results.
func TestRunSpecCopyWithoutPassword(t *testing.T) {
	spec := writeSpec(t, `# the server's password: hunter2 (not needed for the null engine)
# postgres://u:urlpw@h/db
params: {rows: 2000, steps: [l.i0]}
configs:
  - name: a
    engine: "null"
`)
	args, out := tinyArgs(t, "null")
	args = slices.DeleteFunc(args, func(a string) bool { return a == "--engines" || a == "null" })
	runOK(t, append(args, "--config", spec)...)
	copied, err := os.ReadFile(filepath.Join(out, "run-spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(copied), "hunter2") || strings.Contains(string(copied), "urlpw") ||
		!strings.Contains(string(copied), "# the server's password: <redacted>") {
		t.Errorf("run-spec.yaml keeps a password or lost its comment:\n%s", copied)
	}
}

// TestRunSpecFromAFIFOIsRefused: a named pipe is refused at once, without waiting for a writer.
func TestRunSpecFromAFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "spec.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runBad(t, "run spec "+fifo+": not a regular file (a named pipe)",
		"run", "--config", fifo, "--out", filepath.Join(dir, "r"), "--data-dir", filepath.Join(dir, "d"))
}

// TestSpecProfiling: a run spec asks for CPU profiles and counters under params, as any flag
// (iiBench on the null engine: runtime/pprof, which needs no perf); a bad value there is bad
// input naming the spec's line.
func TestSpecProfiling(t *testing.T) {
	spec := writeSpec(t, "workload: iibench\nscale: tiny\nparams:\n  cpu-profile: step\n  cpu-profile-hz: 199\nconfigs:\n  - name: n1\n    engine: \"null\"\n")
	out := filepath.Join(t.TempDir(), "results")
	if code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out, "--data-dir", filepath.Join(t.TempDir(), "d")); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := loadRun(t, out)
	for _, s := range run.Configs[0].Steps {
		if pr := s.Profile; pr == nil || pr.Tool != "runtime/pprof" || pr.File == "" || pr.Shares == nil {
			t.Errorf("%s: profile %+v", s.Name, pr)
		}
	}
	bad := writeSpec(t, "workload: iibench\nscale: tiny\nparams:\n  counters: hardware\nconfigs:\n  - name: n1\n    engine: \"null\"\n")
	code, _, stderr := runCLI(t, "run", "--config", bad, "--out", filepath.Join(t.TempDir(), "r2"))
	if code != exitUsage || !strings.Contains(stderr, `--counters "hardware": want off, software or all`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
