package killedrun

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// runDir makes dir, with a run.json of status (none when status is "") and, when role is not
// "", the lock file a run killed while it held dir left.
func runDir(t *testing.T, dir, status, role string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if status != "" {
		r := &result.Run{RunID: "r", Status: status, Configs: []result.Config{{Name: "a", Status: status}, {Name: "b", Status: result.StatusOK}}}
		if err := result.OpenDir(dir).WriteRun(r); err != nil {
			t.Fatal(err)
		}
	}
	if role != "" {
		lock := "pid: 2147483646\nrun: dead\nrole: " + role + "\ncreated: true\n"
		if err := os.WriteFile(filepath.Join(dir, runlock.FileName), []byte(lock), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInDirs: a killed run's results, data and a finished run's stale lock are found in a
// directory of runs; a live run's locked directory and a finished run are not; a run without
// a lock file counts only when the look is thorough.
func TestInDirs(t *testing.T) {
	base := t.TempDir()
	results, data := filepath.Join(base, "results"), filepath.Join(base, "data")
	runDir(t, filepath.Join(results, "killed"), result.StatusRunning, "results")
	runDir(t, filepath.Join(results, "finished"), result.StatusOK, "results")
	runDir(t, filepath.Join(results, "old"), result.StatusRunning, "")
	runDir(t, filepath.Join(results, "done"), result.StatusOK, "")
	runDir(t, filepath.Join(data, "killed"), "", "data")
	if err := os.WriteFile(filepath.Join(data, "killed", "db"), make([]byte, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(data, "live")
	runDir(t, live, "", "")
	l, err := runlock.Acquire(live, runlock.Info{PID: os.Getpid(), Role: "data"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()

	kinds := func(found []Leftover) map[string]Kind {
		m := map[string]Kind{}
		for _, f := range found {
			m[filepath.Base(filepath.Dir(f.Path))+"/"+filepath.Base(f.Path)] = f.Kind
		}
		return m
	}
	want := map[string]Kind{"results/killed": Results, "results/finished": Lock, "data/killed": Data}
	found := InDirs([]string{results, data, results}, false)
	if got := kinds(found); !equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	st, err := os.Stat(filepath.Join(data, "killed", runlock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(found, func(l Leftover) bool { return l.Kind == Data }); i < 0 || found[i].Size != 10+st.Size() || found[i].Dead.RunID != "dead" {
		t.Errorf("the data leftover %+v: want its files' bytes, of run dead", found)
	}
	want["results/old"] = Results
	if got := kinds(InDirs([]string{results, data}, true)); !equal(got, want) {
		t.Errorf("found thoroughly %v, want %v", got, want)
	}
}

func equal(a, b map[string]Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestClean: a killed run's results are marked killed and keep their run.json; a data root is
// left without remove and removed with it, and a stale lock file goes.
func TestClean(t *testing.T) {
	base := t.TempDir()
	res, data, lock := filepath.Join(base, "res"), filepath.Join(base, "data"), filepath.Join(base, "lock")
	runDir(t, res, result.StatusRunning, "results")
	runDir(t, data, "", "data")
	runDir(t, lock, result.StatusOK, "results")
	if did, err := (Leftover{Kind: Results, Path: res}).Clean(true); did != "marked killed" || err != nil {
		t.Fatalf("Clean of the results: %q, %v", did, err)
	}
	r, err := result.Load(res)
	if err != nil || r.Status != result.StatusKilled || r.Error != killedError ||
		r.Configs[0].Status != result.StatusKilled || r.Configs[1].Status != result.StatusOK {
		t.Fatalf("run.json after Clean: %+v, %v", r, err)
	}
	if did, err := (Leftover{Kind: Data, Path: data}).Clean(false); did != "left (--remove removes it)" || err != nil {
		t.Fatalf("Clean of the data without remove: %q, %v", did, err)
	}
	for _, l := range []Leftover{{Kind: Data, Path: data}, {Kind: Lock, Path: lock}} {
		if did, err := l.Clean(true); did != "removed" || err != nil {
			t.Fatalf("Clean of %s: %q, %v", l, did, err)
		}
	}
	for _, gone := range []string{filepath.Join(res, runlock.FileName), data, filepath.Join(lock, runlock.FileName)} {
		if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(lock, "run.json")); err != nil {
		t.Errorf("a finished run's run.json went with its lock: %v", err)
	}
}
