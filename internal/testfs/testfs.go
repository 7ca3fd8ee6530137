// Package testfs gives tests a real small filesystem: a tmpfs of a given size, which they can
// fill, to see what enginebench does on a full disk.
package testfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size (mount's form: "4m", "512k") on a fresh directory
// (t.TempDir) and returns it; see Mount.
func Tmpfs(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	Mount(t, dir, size)
	return dir
}

// Mount mounts a tmpfs of size on the existing directory dir, its root with dir's owner and
// mode, and unmounts it when the test ends. Mounting needs root (CAP_SYS_ADMIN): without it
// the test is skipped, or fails under CI=true.
func Mount(t testing.TB, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		cannot(t, errors.New("not root"))
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		t.Fatalf("mount a tmpfs on %s: %v", dir, err)
	}
	opts := fmt.Sprintf("size=%s,mode=%o,uid=%d,gid=%d", size, st.Mode&0o7777, st.Uid, st.Gid)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		if errors.Is(err, syscall.EPERM) {
			cannot(t, err)
		}
		t.Fatalf("mount a tmpfs (%s) on %s: %v", opts, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
}

// cannot ends a test that cannot mount a tmpfs: skipped, or failed under CI=true.
func cannot(t testing.TB, why error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: mounting a tmpfs needs root: %v", why)
	}
	t.Skipf("mounting a tmpfs needs root: %v", why)
}

// Fill writes a file in dir until its filesystem is full and returns a function that removes
// the file again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// What a 64 KiB write could not take: the last bytes, one at a time.
	for {
		if _, err := f.Write(chunk[:1]); err != nil {
			break
		}
	}
	return func() {
		if err := os.Remove(path); err != nil {
			t.Errorf("free %s: %v", dir, err)
		}
	}
}
