package runlock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func info(run string) Info {
	return Info{PID: os.Getpid(), RunID: run, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Role: "results"}
}

func TestAcquireIsExclusiveAndNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, info("first"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, info("second"))
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Holder.RunID != "first" || busy.Holder.PID != os.Getpid() || busy.Dir != dir {
		t.Fatalf("second Acquire: %v, want a BusyError naming run first and pid %d", err, os.Getpid())
	}
	if st, in, err := Probe(dir); err != nil || st != Held || in != info("first") {
		t.Errorf("Probe: %v %+v %v, want Held by first", st, in, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Release left %v", entries)
	}
	if st, _, _ := Probe(dir); st != None {
		t.Errorf("Probe after Release: %v, want None", st)
	}
	l, err = Acquire(dir, info("third"))
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l.Release()
}

// TestRacingAcquires: of many runs that lock one directory at once, exactly one gets it and
// every other is told who has it; when a dead run's lock file is there, none gets it and every
// one is told whose it is.
func TestRacingAcquires(t *testing.T) {
	for round := 0; round < 60; round++ {
		dir := t.TempDir()
		dead := round%3 == 2
		if dead {
			os.WriteFile(filepath.Join(dir, FileName), info("dead").encode(), 0o644)
		}
		const n = 8
		var wg sync.WaitGroup
		locks := make([]*Lock, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				locks[i], errs[i] = Acquire(dir, info(fmt.Sprint("r", i)))
			}()
		}
		wg.Wait()
		winner := -1
		for i := range n {
			if errs[i] == nil {
				if winner >= 0 {
					t.Fatalf("round %d: runs %d and %d both hold the lock", round, winner, i)
				}
				winner = i
			}
		}
		for i := range n {
			var busy *BusyError
			var stale *StaleError
			switch {
			case dead && (!errors.As(errs[i], &stale) || stale.Dead.RunID != "dead"):
				t.Errorf("round %d: run %d: %v, want the dead run's lock reported", round, i, errs[i])
			case !dead && winner < 0:
				t.Fatalf("round %d: nobody got the lock: %v", round, errs)
			case !dead && i != winner && (!errors.As(errs[i], &busy) || busy.Holder.RunID != fmt.Sprint("r", winner)):
				t.Errorf("round %d: run %d: %v, want busy naming r%d", round, i, errs[i], winner)
			}
		}
		if winner >= 0 {
			locks[winner].Release()
		}
		want := 0 // a released lock leaves nothing; the dead run's lock file stays
		if dead {
			want = 1
		}
		if entries, _ := os.ReadDir(dir); len(entries) != want {
			t.Errorf("round %d: left %v", round, entries)
		}
	}
}

// TestKilledHolderLeavesAStaleLock: a process killed with SIGKILL while holding the lock
// leaves the lock file, which nobody holds: Probe says Stale with the dead run's record, and
// the next Acquire takes it over.
func TestKilledHolderLeavesAStaleLock(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "RUNLOCK_HELPER_DIR="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // the helper holds the lock until its stdin closes
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	st, in, err := Probe(dir)
	if err != nil || st != Held || in.PID != cmd.Process.Pid || in.RunID != "helper" {
		t.Fatalf("Probe while the helper holds it: %v %+v %v", st, in, err)
	}
	var busy *BusyError
	if _, err := Acquire(dir, info("mine")); !errors.As(err, &busy) || busy.Holder.PID != cmd.Process.Pid {
		t.Fatalf("Acquire while the helper holds the lock: %v, want busy naming pid %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	st, in, err = Probe(dir)
	if err != nil || st != Stale || in.PID != cmd.Process.Pid || in.RunID != "helper" || in.Role != "data" || !in.Created {
		t.Fatalf("Probe after SIGKILL: %v %+v %v, want Stale with the helper's record", st, in, err)
	}
	_, err = Acquire(dir, info("mine"))
	var stale *StaleError
	if !errors.As(err, &stale) || stale.Dead.PID != cmd.Process.Pid {
		t.Fatalf("Acquire over the dead run's lock: %v, want a StaleError naming pid %d", err, cmd.Process.Pid)
	}
	var seen Info
	if in, err := RemoveStale(dir, func(in Info) error { seen = in; return nil }); err != nil || in.RunID != "helper" || seen != in {
		t.Fatalf("RemoveStale: %+v %v, then saw %+v", in, err, seen)
	}
	l, err := Acquire(dir, info("mine"))
	if err != nil {
		t.Fatalf("Acquire once the dead run's lock is removed: %v", err)
	}
	if _, err := RemoveStale(dir, nil); err == nil {
		t.Error("RemoveStale removed a live run's lock")
	}
	if st, in, _ := Probe(dir); st != Held || in.RunID != "mine" {
		t.Errorf("after RemoveStale and Acquire: %v %+v", st, in)
	}
	l.Release()
}

// TestHelperHoldLock is TestKilledHolderLeavesAStaleLock's child process.
func TestHelperHoldLock(t *testing.T) {
	dir := os.Getenv("RUNLOCK_HELPER_DIR")
	if dir == "" {
		t.Skip("the child of TestKilledHolderLeavesAStaleLock")
	}
	if _, err := Acquire(dir, Info{PID: os.Getpid(), RunID: "helper", Role: "data", Created: true}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}
