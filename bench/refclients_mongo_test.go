package bench_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Mongo rig's smallest sizes: 5 batches of 100 small documents an iiBench run; a LinkBench
// graph of about 300 links (the tiny CDF) and 100 requests.
const (
	mongoSmokeRows     = 500
	mongoSmokeRequests = 100
	mongoSmokeLimit    = 8 * time.Minute
)

// goBuild builds pkg (a path from the module's root) into the test's temporary directory.
func goBuild(t *testing.T, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// TestRefclientsMongoSmoke runs bench/refclients-mongo.sh with enginebench's clients only (CI
// has no GitHub access, so no reference checkouts), iiBench and LinkBench (through mongoshim)
// at tiny sizes, two rounds, with --trace, and checks what it produced: a row per round and
// work with the operations the sizes fix and run.json's CPU, the medians, the command summaries
// from FerretDB's debug log (iiBench's unordered 100-document inserts and three indexes,
// LinkBench's sorted GET_LINKS_LIST find), and that it left neither its server nor its cgroup.
func TestRefclientsMongoSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs FerretDB and the Mongo reference-client rig (-short)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the rig needs root: it makes cgroups")
	}
	if _, err := exec.LookPath("ferretdb"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: no ferretdb on PATH (make deps): %v", err)
		}
		t.Skipf("no ferretdb on PATH (make deps): %v", err)
	}
	eb := goBuild(t, "./cmd/enginebench", "enginebench")
	shim := goBuild(t, "./bench/mongoshim", "mongoshim")
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), mongoSmokeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "refclients-mongo.sh", "--clients", "eb", "--work", "iibench,linkbench",
		"--rounds", "2", "--settle", "0", "--rows", strconv.Itoa(mongoSmokeRows), "--insert-batch", "100",
		"--char-fields", "2", "--char-length", "100", "--maxid1", "101", "--requests", strconv.Itoa(mongoSmokeRequests),
		"--trace", "--out", out)
	cmd.Env = append(os.Environ(), "ENGINEBENCH="+eb, "MONGOSHIM="+shim)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench/refclients-mongo.sh: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	t.Logf("bench/refclients-mongo.sh:\n%s", &stdout)

	checkMongoRows(t, out)
	summary, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, work := range []string{"iibench", "lb-load", "linkbench"} {
		if !regexp.MustCompile(`(?m)^` + work + `\s+enginebench\s+2\s`).Match(summary) {
			t.Errorf("summary.txt has no median line of enginebench's 2 %s runs:\n%s", work, summary)
		}
	}
	for r := 1; r <= 2; r++ {
		path := filepath.Join(out, "commands", "r"+strconv.Itoa(r)+".iibench.enginebench.txt")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c := string(b)
		wantInserts := regexp.MustCompile(`(?m)^\s+` + strconv.Itoa(mongoSmokeRows/100) +
			`\s+OP_MSG\s+\{insert: str, ordered: false, .*\} \+ documents: 100 x \{_id: ObjectID, dateandtime: int64, cashregisterid: int32, customerid: int32, productid: int32, price: double, cf1: str, cf2: str\}$`)
		if !wantInserts.MatchString(c) {
			t.Errorf("%s: no line of %d unordered inserts of 100 documents:\n%s", path, mongoSmokeRows/100, c)
		}
		if n := strings.Count(c, "createIndexes: str"); n != 3 {
			t.Errorf("%s: %d createIndexes shapes, want the 3 secondary indexes:\n%s", path, n, c)
		}
		path = filepath.Join(out, "commands", "r"+strconv.Itoa(r)+".linkbench.enginebench.txt")
		if b, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "{find: str, filter: {id1: int64, link_type: int64, visibility: int32, time: {$gte: int64, $lte: int64}}, limit: int64(10000), sort: {time: int32(-1)}") {
			t.Errorf("%s: no GET_LINKS_LIST find:\n%s", path, b)
		}
	}
	checkMongoLeftovers(t, stdout.String())
}

// checkMongoRows: one row per round and work, enginebench's, with the operations the sizes fix
// (the load's links are the graph's), CPU figures from the cgroup and from run.json.
func checkMongoRows(t *testing.T, out string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "results.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := [][3]string{{"1", "iibench", strconv.Itoa(mongoSmokeRows)}, {"1", "lb-load", ""}, {"1", "linkbench", strconv.Itoa(mongoSmokeRequests)},
		{"2", "iibench", strconv.Itoa(mongoSmokeRows)}, {"2", "lb-load", ""}, {"2", "linkbench", strconv.Itoa(mongoSmokeRequests)}}
	if len(lines) != len(want)+1 {
		t.Fatalf("results.tsv: %d lines, want a header and %d rows:\n%s", len(lines), len(want), b)
	}
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 9 {
			t.Fatalf("results.tsv row %q: %d fields, want 9", l, len(f))
		}
		w := want[i]
		if f[0] != w[0] || f[1] != w[1] || f[2] != "enginebench" || (w[2] != "" && f[3] != w[2]) {
			t.Errorf("results.tsv row %q: want round %s, %s, enginebench, %s ops", l, w[0], w[1], w[2])
		}
		for _, k := range []int{3, 4, 5, 6, 8} {
			if v, err := strconv.ParseFloat(f[k], 64); err != nil || v <= 0 {
				t.Errorf("results.tsv row %q: field %d is %q, want a positive number", l, k+1, f[k])
			}
		}
	}
}

var serverPidRE = regexp.MustCompile(`server up: .* pid (\d+),`)

// checkMongoLeftovers: the rig's server has stopped and its cgroup is gone.
func checkMongoLeftovers(t *testing.T, stdout string) {
	t.Helper()
	m := serverPidRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("the rig did not say its server's pid:\n%s", stdout)
	}
	if _, err := os.Stat("/proc/" + m[1] + "/cmdline"); err == nil {
		if cmdline, _ := os.ReadFile("/proc/" + m[1] + "/cmdline"); bytes.Contains(cmdline, []byte("ferretdb")) {
			t.Errorf("the rig's ferretdb (pid %s) is still running", m[1])
		}
	}
	cg := regexp.MustCompile(`cgroup accounting: \S+ at (\S+);`).FindStringSubmatch(stdout)
	if cg == nil {
		t.Fatalf("the rig did not say its cgroup:\n%s", stdout)
	}
	if _, err := os.Stat(cg[1]); !os.IsNotExist(err) {
		t.Errorf("the rig's cgroup %s is still there: %v", cg[1], err)
	}
}
