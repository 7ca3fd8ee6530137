package testfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFillAndFree: a filled tmpfs refuses a write with ENOSPC, and takes it once freed; the
// tmpfs's root keeps the mode of the directory it covers.
func TestFillAndFree(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	Mount(t, dir, "1m")
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != 0x01021994 { // TMPFS_MAGIC
		t.Fatalf("%s is not a tmpfs: %v, type %#x", dir, err, st.Type)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("the tmpfs's root: %v %v, want the directory's mode 0750", fi.Mode(), err)
	}
	free := Fill(t, dir)
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a write on the full tmpfs: %v, want ENOSPC", err)
	}
	free()
	if err := os.WriteFile(path, make([]byte, 4096), 0o644); err != nil {
		t.Errorf("a write once freed: %v", err)
	}
}
