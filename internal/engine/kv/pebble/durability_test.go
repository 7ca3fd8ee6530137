package pebble

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
)

// Environment of the child process of TestAcknowledgedCommitsAfterSIGKILL.
const (
	childDirEnv  = "ENGINEBENCH_PEBBLE_KILL_DIR"
	childSyncEnv = "ENGINEBENCH_PEBBLE_KILL_SYNC"
)

// killCommits is how many commits the child acknowledges before it is killed: small ones, 26
// KB in all, less than the WAL writer's 32 KiB block.
const killCommits = 200

func killKey(i int) []byte   { return []byte(fmt.Sprintf("key%06d", i)) }
func killValue(i int) []byte { return []byte(fmt.Sprintf("%0100d", i)) }

// TestKillChild is the child process of TestAcknowledgedCommitsAfterSIGKILL: it opens the
// engine with the sync setting it is given, commits killCommits batches, writes "ack i" after
// commit i returns, and waits on stdin for the SIGKILL.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("the child process of TestAcknowledgedCommitsAfterSIGKILL")
	}
	d := openTest(t, dir, map[string]string{"sync": os.Getenv(childSyncEnv)})
	b := d.NewBatch()
	for i := range killCommits {
		b.Set(killKey(i), killValue(i))
		if err := b.Commit(); err != nil {
			fmt.Printf("error %v\n", err)
			return
		}
		fmt.Printf("ack %d\n", i)
	}
	io.Copy(io.Discard, os.Stdin) // until killed
}

// A commit acknowledged with sync=write or sync=true survives a SIGKILL of the process right
// after it; with sync=false the commits still in pebble's WAL buffer are lost, as the setting
// says.
func TestAcknowledgedCommitsAfterSIGKILL(t *testing.T) {
	for _, c := range []struct {
		sync     string
		loseSome bool
	}{{"write", false}, {"true", false}, {"false", true}} {
		t.Run("sync="+c.sync, func(t *testing.T) {
			dir := t.TempDir()
			acked := runAndKill(t, dir, c.sync)
			d := openTest(t, dir, nil)
			closeAtEnd(t, d)
			lost := 0
			for i := range acked {
				v, ok, err := d.Get(killKey(i), nil)
				if err != nil {
					t.Fatal(err)
				}
				if !ok || string(v) != string(killValue(i)) {
					lost++
				}
			}
			t.Logf("sync=%s: %d of %d acknowledged commits lost", c.sync, lost, acked)
			if lost > 0 != c.loseSome {
				t.Errorf("sync=%s: %d of %d acknowledged commits lost after SIGKILL, want %s", c.sync, lost, acked,
					map[bool]string{false: "none", true: "some"}[c.loseSome])
			}
		})
	}
}

// runAndKill runs the child on dir with the sync setting, kills it with SIGKILL once it has
// acknowledged every commit, and returns how many it acknowledged.
func runAndKill(t *testing.T, dir, sync string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childSyncEnv+"="+sync)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := 0
	for sc := bufio.NewScanner(stdout); acked < killCommits && sc.Scan(); {
		var i int
		if _, err := fmt.Sscanf(sc.Text(), "ack %d", &i); err != nil || i != acked {
			t.Errorf("child: %q", sc.Text())
			break
		}
		acked++
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed by SIGKILL", err)
	}
	if acked != killCommits {
		t.Fatalf("the child acknowledged %d commits of %d", acked, killCommits)
	}
	return acked
}

// Only sync=write turns a WAL sync into nothing, on the file system pebble opens with (over the
// full-disk watch), and for WAL files alone; every other sync reaches the disk. A wrapped file
// still writes and closes.
func TestSyncWriteFS(t *testing.T) {
	for _, mode := range []string{"write", "true", "false"} {
		c, err := parseConfig(map[string]string{"sync": mode})
		if err != nil {
			t.Fatal(err)
		}
		if c.writeOptions().Sync != (mode != "false") {
			t.Errorf("sync=%s: commit sync %v", mode, c.writeOptions().Sync)
		}
		base := &syncCountFS{FS: vfs.Default}
		fs := c.fileSystem(base, newSpace())
		dir := t.TempDir()
		for _, name := range []string{"000004.log", "000005.sst", "MANIFEST-000001"} {
			f, err := fs.Create(dir + "/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
			before := base.syncs.Load()
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			reached := base.syncs.Load() > before
			if want := !(mode == "write" && name == "000004.log"); reached != want {
				t.Errorf("sync=%s, %s: the sync reached the disk %v, want %v", mode, name, reached, want)
			}
			if err := f.Close(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
		}
	}
}

// syncCountFS counts the syncs of the files it creates.
type syncCountFS struct {
	vfs.FS
	syncs atomic.Int64
}

func (fs *syncCountFS) Create(name string) (vfs.File, error) {
	f, err := fs.FS.Create(name)
	return syncCountFile{File: f, n: &fs.syncs}, err
}

type syncCountFile struct {
	vfs.File
	n *atomic.Int64
}

func (f syncCountFile) Sync() error     { f.n.Add(1); return f.File.Sync() }
func (f syncCountFile) SyncData() error { f.n.Add(1); return f.File.SyncData() }
func (f syncCountFile) SyncTo(length int64) (bool, error) {
	f.n.Add(1)
	return f.File.SyncTo(length)
}
