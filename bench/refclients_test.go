// Package bench_test holds the smoke test of bench/refclients.sh, the reference-client rig.
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
	"syscall"
	"testing"
	"time"
)

// The rig's smallest sizes: every part of it runs, in well under a minute without the
// references. The LinkBench graph comes from testdata/tiny-distribution.dat (at most 16 links a
// node), as the fork's own CDF gives its top node about 4M links at any maxid1.
const (
	smokeRounds     = 2
	smokeRows       = 1000
	smokeRequesters = 1
	smokeRequests   = 500
)

// smokeLimit bounds the rig's run, so that a hung rig fails the test instead of the package's
// timeout; it is no assertion on the time the rig takes.
const smokeLimit = 8 * time.Minute

func smokeArgs(out string) []string {
	return []string{"--refs", "auto", "--rounds", strconv.Itoa(smokeRounds), "--settle", "0",
		"--rows", strconv.Itoa(smokeRows), "--query-seconds", "1",
		"--distribution-file", filepath.Join("testdata", "tiny-distribution.dat"), "--maxid1", "1001",
		"--loaders", "1", "--requesters", strconv.Itoa(smokeRequesters), "--requests", strconv.Itoa(smokeRequests),
		"--out", out}
}

// TestRefclientsSmoke runs the rig at its smallest sizes, with the reference clients that are
// installed (--refs auto; CI has none: their checkouts come from GitHub) and enginebench's, and
// checks what it produced: a row per round, work and client with the figures the sizes fix,
// the medians, the table dumps (the same for every client of a workload), the statement
// counters, the server's settings without its private paths; and that it left no server and no
// cgroup behind. This covers what the rig takes from the product: the bootstrap of a managed
// data directory with --keep, mariadbd started on it with the rig's socket and tmpdir, the
// runs with --dsn and --keep, their run.json read by refclients_parse.py.
func TestRefclientsSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs MariaDB and the reference-client rig (-short)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the rig needs root: it makes cgroups and starts mariadbd as the mysql user")
	}
	bin := buildEnginebench(t)
	out := filepath.Join(t.TempDir(), "out")
	args := smokeArgs(out)
	refs := checkRig(t, bin, args)
	t.Logf("reference clients: %v", refs)
	stdout := runRig(t, bin, args)

	checkResults(t, out, refs)
	checkDDL(t, out, refs, stdout)
	checkStatements(t, out, refs)
	checkSummary(t, out, refs)
	checkSettings(t, out)
	checkLeftovers(t, stdout)
}

// buildEnginebench builds the enginebench binary the rig runs.
func buildEnginebench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "enginebench")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/enginebench")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// rigCommand is bench/refclients.sh with args and the enginebench binary bin.
func rigCommand(ctx context.Context, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "./refclients.sh", args...)
	cmd.Env = append(os.Environ(), "ENGINEBENCH="+bin)
	// The rig's trap ends its clients and its server on SIGTERM.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Minute
	return cmd
}

var refsRE = regexp.MustCompile(`reference clients: (\S+);`)

// checkRig runs the rig's check of what it needs, and returns the reference clients it will
// run. A machine without what the rig needs (cgroups, the MariaDB server and client, Python)
// skips the test with the rig's reason; under CI=true it fails.
func checkRig(t *testing.T, bin string, args []string) map[string]bool {
	t.Helper()
	out, err := rigCommand(context.Background(), bin, append([]string{"check"}, args...)...).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the rig cannot run here (%v):\n%s", err, out)
		}
		t.Skipf("the rig cannot run here (%v):\n%s", err, out)
	}
	m := refsRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("the rig's check names no reference clients:\n%s", out)
	}
	refs := map[string]bool{}
	for _, r := range strings.Split(string(m[1]), ",") {
		if r != "none" {
			refs[r] = true
		}
	}
	return refs
}

// runRig runs the rig and returns its standard output; it fails the test unless the rig
// exits 0.
func runRig(t *testing.T, bin string, args []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), smokeLimit)
	defer cancel()
	cmd := rigCommand(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench/refclients.sh: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	t.Logf("bench/refclients.sh:\n%s", &stdout)
	return stdout.String()
}

// client is one client of a work item: its name in results.tsv and in its table dumps.
type client struct{ name, ddl string }

// clientsOf returns the clients of work that ran, enginebench last.
func clientsOf(work string, refs map[string]bool) []client {
	var cs []client
	switch work {
	case "l.i0", "qr100", "qp100":
		if refs["iibench.py"] {
			cs = append(cs, client{"iibench.py", "iibench"})
		}
	default:
		if refs["java"] {
			cs = append(cs, client{"java", "java"})
		}
	}
	return append(cs, client{"enginebench", "enginebench"})
}

var works = []string{"l.i0", "qr100", "qp100", "lb-load", "linkbench"}

// row is a line of results.tsv.
type row struct {
	ops, clientNS, serverNS int64
	seconds                 float64
	runJSON                 string
}

// readResults reads results.tsv by round, work and client.
func readResults(t *testing.T, out string) map[[3]string]row {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "results.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[[3]string]row{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			t.Fatalf("results.tsv line %d: %d fields, want 8: %q", i+2, len(f), line)
		}
		var r row
		var errs [4]error
		r.ops, errs[0] = strconv.ParseInt(f[3], 10, 64)
		r.seconds, errs[1] = strconv.ParseFloat(f[4], 64)
		r.clientNS, errs[2] = strconv.ParseInt(f[5], 10, 64)
		r.serverNS, errs[3] = strconv.ParseInt(f[6], 10, 64)
		for _, err := range errs {
			if err != nil {
				t.Fatalf("results.tsv line %d: %v: %q", i+2, err, line)
			}
		}
		r.runJSON = f[7]
		key := [3]string{f[0], f[1], f[2]}
		if _, dup := rows[key]; dup {
			t.Errorf("results.tsv: two rows of %v", key)
		}
		rows[key] = r
	}
	return rows
}

// checkResults: one row per round, work and client that ran, and no other; the figures the
// sizes fix (rows inserted, requests made, the same links loaded by every client); CPU
// figures that are there.
func checkResults(t *testing.T, out string, refs map[string]bool) {
	t.Helper()
	rows := readResults(t, out)
	want := 0
	loaded := map[int64][]string{}
	for r := 1; r <= smokeRounds; r++ {
		for _, w := range works {
			for _, c := range clientsOf(w, refs) {
				want++
				key := [3]string{strconv.Itoa(r), w, c.name}
				got, ok := rows[key]
				if !ok {
					t.Errorf("results.tsv: no row of round %d, %s, %s", r, w, c.name)
					continue
				}
				checkRow(t, key, got)
				if w == "lb-load" {
					loaded[got.ops] = append(loaded[got.ops], c.name)
				}
			}
		}
	}
	if len(rows) != want {
		t.Errorf("results.tsv: %d rows, want %d", len(rows), want)
	}
	if len(loaded) > 1 {
		t.Errorf("the LinkBench loads wrote different numbers of links (links: clients): %v", loaded)
	}
}

func checkRow(t *testing.T, key [3]string, r row) {
	t.Helper()
	switch {
	case key[1] == "l.i0" && r.ops != smokeRows:
		t.Errorf("%v: %d rows inserted, want %d", key, r.ops, smokeRows)
	case key[1] == "linkbench" && r.ops != smokeRequesters*smokeRequests:
		t.Errorf("%v: %d requests, want %d", key, r.ops, smokeRequesters*smokeRequests)
	case r.ops <= 0:
		t.Errorf("%v: %d ops", key, r.ops)
	}
	if r.seconds <= 0 || r.clientNS <= 0 || r.serverNS < 0 {
		t.Errorf("%v: %g s, client %d ns, server %d ns", key, r.seconds, r.clientNS, r.serverNS)
	}
	if key[2] == "enginebench" {
		if v, err := strconv.ParseFloat(r.runJSON, 64); err != nil || v <= 0 {
			t.Errorf("%v: run.json client CPU %q, want seconds", key, r.runJSON)
		}
	} else if r.runJSON != "-" {
		t.Errorf("%v: run.json client CPU %q for a reference client, want -", key, r.runJSON)
	}
}

// checkDDL: every client of a workload ran on the same tables: each dump is there, holds the
// workload's tables, and is the same as the others, as the rig says.
func checkDDL(t *testing.T, out string, refs map[string]bool, stdout string) {
	t.Helper()
	for _, wl := range []struct {
		kind, work string
		tables     []string
		extra      []string
	}{
		{"insert", "l.i0", []string{"pi1"}, nil},
		{"linkbench", "linkbench", []string{"linktable", "counttable", "nodetable"}, []string{"linkbench.schema.sql"}},
	} {
		files := wl.extra
		for r := 1; r <= smokeRounds; r++ {
			for _, c := range clientsOf(wl.work, refs) {
				files = append(files, wl.kind+"."+c.ddl+".r"+strconv.Itoa(r)+".sql")
			}
		}
		var first []byte
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(out, "ddl", f))
			if err != nil {
				t.Error(err)
				continue
			}
			for _, tb := range wl.tables {
				if !bytes.Contains(data, []byte("CREATE TABLE `"+tb+"`")) {
					t.Errorf("ddl/%s: no CREATE TABLE `%s`:\n%s", f, tb, data)
				}
			}
			if first == nil {
				first = data
			} else if !bytes.Equal(first, data) {
				t.Errorf("ddl/%s differs from ddl/%s", f, files[0])
			}
		}
		if !strings.Contains(stdout, wl.kind+": every client ran on the same table definitions") {
			t.Errorf("the rig does not say that every %s client ran on the same tables", wl.kind)
		}
	}
	if strings.Contains(stdout, "WARNING") {
		t.Errorf("the rig warned:\n%s", stdout)
	}
}

var questionsRE = regexp.MustCompile(`(?m)^Questions +(\d+)$`)

// checkStatements: each client's sequence, and its LinkBench request phase, has its server
// statement counters; the summary shows the request phases' counters per request.
func checkStatements(t *testing.T, out string, refs map[string]bool) {
	t.Helper()
	for r := 1; r <= smokeRounds; r++ {
		for _, kind := range []string{"insert", "linkbench", "linkbench-requests"} {
			seqs := []string{"eb"}
			if (kind == "insert" && refs["iibench.py"]) || (kind != "insert" && refs["java"]) {
				seqs = append(seqs, "ref")
			}
			for _, s := range seqs {
				name := "r" + strconv.Itoa(r) + "." + s + "." + kind + ".statements"
				data, err := os.ReadFile(filepath.Join(out, "logs", name))
				if err != nil {
					t.Error(err)
					continue
				}
				m := questionsRE.FindSubmatch(data)
				if m == nil || string(m[1]) == "0" {
					t.Errorf("logs/%s: no statements counted:\n%s", name, data)
				}
				if kind == "linkbench-requests" && !executeRE.Match(data) {
					t.Errorf("logs/%s: no prepared statement executed in the requests:\n%s", name, data)
				}
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !perRequestRE.Match(data) {
		t.Errorf("summary.txt: no server counters per LinkBench request:\n%s", data)
	}
}

var (
	executeRE    = regexp.MustCompile(`(?m)^Com_stmt_execute +[1-9]\d*$`)
	perRequestRE = regexp.MustCompile(`(?m)^Com_stmt_execute +(\d[\d,]*\.\d+ +)+`)
)

// checkSummary: the medians table has a line per work and client, of every round.
func checkSummary(t *testing.T, out string, refs map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range works {
		for _, c := range clientsOf(w, refs) {
			re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(w) + ` +` + regexp.QuoteMeta(c.name) + ` +` +
				strconv.Itoa(smokeRounds) + ` `)
			if !re.Match(data) {
				t.Errorf("summary.txt: no medians of %s, %s over %d runs:\n%s", w, c.name, smokeRounds, data)
			}
		}
	}
}

var (
	noTCPRE = regexp.MustCompile(`(?m)^skip-networking$`)
	pathRE  = regexp.MustCompile(`(?m)^(datadir|socket|pid-file|tmpdir)=.*$`)
)

// checkSettings: the server's settings are shown without its paths, and it had no TCP.
func checkSettings(t *testing.T, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "server-settings.cnf"))
	if err != nil {
		t.Fatal(err)
	}
	if !noTCPRE.Match(data) {
		t.Errorf("server-settings.cnf: no skip-networking:\n%s", data)
	}
	if m := pathRE.Find(data); m != nil {
		t.Errorf("server-settings.cnf shows a path: %s", m)
	}
}

var (
	cgroupRE = regexp.MustCompile(`cgroup accounting: v[12] at (\S+);`)
	serverRE = regexp.MustCompile(`server up: .*, pid (\d+),`)
)

// checkLeftovers: the rig's cgroup is gone, and so is its server.
func checkLeftovers(t *testing.T, stdout string) {
	t.Helper()
	if m := cgroupRE.FindStringSubmatch(stdout); m == nil {
		t.Error("the rig names no cgroup")
	} else if _, err := os.Stat(m[1]); err == nil {
		t.Errorf("the rig left its cgroup %s", m[1])
	}
	m := serverRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatal("the rig names no server pid")
	}
	// A pid reused since is not the server: only a mariadbd is.
	if exe, err := os.Readlink("/proc/" + m[1] + "/exe"); err == nil && strings.HasSuffix(exe, "/mariadbd") {
		t.Errorf("the rig's server (pid %s) still runs", m[1])
	}
}
