package bench_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProfileOverheadSmoke runs bench/profile-overhead.sh at its smallest on pebble and
// sqlite (one round, 1-second query steps) and checks its table: a row per engine, step and
// kind of profiling, each with a rate and a ratio to the runs without profiling, which are
// 1.000x against themselves; and that the profiled runs wrote their profiles and counters.
func TestProfileOverheadSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Insert Benchmark eight times (-short)")
	}
	if _, err := exec.LookPath("perf"); err != nil && os.Getenv("CI") == "" {
		t.Skip("perf is not installed")
	}
	bin := buildEnginebench(t)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), smokeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./profile-overhead.sh", "--rounds", "1", "--engines", "pebble,sqlite",
		"--query-seconds", "1", "--rows-l.i1", "1000", "--out", out, "--enginebench", bin)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderrOf(err))
	}
	table := string(b)
	row := regexp.MustCompile(`(?m)^\| (pebble|sqlite) \| (l\.i1|qr100) \| (off|cpu99|cpu499|counters) \| 1 \| [0-9,]+ \| ([0-9.]+)x \| [0-9.]+ \| [0-9.]+x \|$`)
	rows := row.FindAllStringSubmatch(table, -1)
	if len(rows) != 2*2*4 {
		t.Fatalf("%d rows, want 16:\n%s", len(rows), table)
	}
	for _, r := range rows {
		if r[3] == "off" && r[4] != "1.000" {
			t.Errorf("%s %s off: %sx against itself", r[1], r[2], r[4])
		}
	}
	for _, kind := range []string{"cpu99", "counters"} {
		run, err := os.ReadFile(filepath.Join(out, "r1-"+kind, "run.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := `"cpu_profile"`
		if kind == "counters" {
			want = `"counters"`
		}
		if !strings.Contains(string(run), want) {
			t.Errorf("r1-%s/run.json has no %s", kind, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "r1-cpu499", "profiles", "sqlite", "qr100.pb.gz")); err != nil {
		t.Error(err)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
