package server

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestStaleSocketDirs: a directory whose owner is gone is stale, one whose owner runs is not,
// and one without an owner file only once it is older than the grace period.
func TestStaleSocketDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name, owner string) string {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, OwnerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	live := mk("eb-pg-live", "")
	if err := writeOwner(live, "/data"); err != nil {
		t.Fatal(err)
	}
	gone := mk("eb-my-gone", fmt.Sprintf("pid=%d\nstart=1\ndatadir=/x\n", dead.Process.Pid))
	reused := mk("eb-pg-reused", fmt.Sprintf("pid=%d\nstart=1\ndatadir=/x\n", os.Getpid())) // our pid, another start
	starting := mk("eb-my-starting", "")
	mk("other-dir", "")

	now := time.Now()
	got := StaleSocketDirs(now, time.Hour)
	slices.Sort(got)
	want := []string{gone, reused}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("stale now: %v, want %v", got, want)
	}
	got = StaleSocketDirs(now.Add(2*time.Hour), time.Hour)
	if !slices.Contains(got, starting) || slices.Contains(got, live) {
		t.Errorf("stale two hours later: %v, want %s among them and not %s", got, starting, live)
	}
}
