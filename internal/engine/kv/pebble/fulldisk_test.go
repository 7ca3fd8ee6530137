package pebble

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/testfs"
)

// TestFullDisk fills a 16 MiB tmpfs: a commit must then fail with ENOSPC instead of waiting
// forever for a flush that cannot succeed, later commits fail at once, the cleanup fails with
// one clear error instead of waiting (pebble retried the flush and logged it 16 times a
// second), and the engine closes.
func TestFullDisk(t *testing.T) {
	dir := testfs.Tmpfs(t, "16m")
	d := openTest(t, dir+"/db", map[string]string{"memtable_mb": "4"})
	b := d.NewBatch()
	val := make([]byte, 1000)
	var err error
	for i := 0; err == nil; i++ {
		for j := 0; j < 100; j++ {
			b.Set(fmt.Appendf(nil, "k%09d-%03d", i, j), val)
		}
		err = b.Commit()
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("commit on a full disk: %v, want ENOSPC", err)
	}
	b.Set([]byte("after"), val)
	if err2 := b.Commit(); !errors.Is(err2, syscall.ENOSPC) {
		t.Errorf("the next commit: %v, want ENOSPC at once", err2)
	}
	var notes []string
	err = d.Cleanup(context.Background(), engine.CleanupHooks{Note: func(n string) { notes = append(notes, n) }})
	if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), "pebble: cleanup: ") {
		t.Errorf("cleanup on a full disk: %v, want one ENOSPC error", err)
	}
	if st, _ := d.Stats(context.Background()); st["disk_full"] != 1 {
		t.Errorf("stats %v: want disk_full 1", st)
	}
	if err := b.Close(); err != nil {
		t.Errorf("close the batch: %v", err)
	}
	if err := d.Close(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("close: %v", err)
	}
}
