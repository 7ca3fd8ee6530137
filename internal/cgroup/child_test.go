package cgroup

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// childEnv tells a re-executed test binary to act as a child: "read:PATH"
// reads a file through the page cache, "alloc:BYTES" touches that much
// anonymous memory. The child waits for a line on stdin before it starts, so
// the test can put it into a group first, and prints "done N" at the end.
const childEnv = "ENGINEBENCH_CGROUP_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	os.Exit(m.Run())
}

func runChild(role string) int {
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, "child: wait for start:", err)
		return 1
	}
	kind, arg, _ := strings.Cut(role, ":")
	var n int64
	var err error
	switch kind {
	case "read":
		n, err = readAll(arg)
	case "alloc":
		n, err = touch(arg)
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	fmt.Printf("done %d\n", n)
	return 0
}

func readAll(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.CopyBuffer(io.Discard, f, make([]byte, 1<<16))
}

func touch(arg string) (int64, error) {
	size, err := strconv.Atoi(arg)
	if err != nil {
		return 0, err
	}
	b := make([]byte, size)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	return int64(len(b)), nil
}

// child is a re-executed test binary waiting for its start line.
type child struct {
	cmd   *exec.Cmd
	start io.WriteCloser
	out   *strings.Builder
}

// startChild starts a child in the test's own group; the whole run is bounded
// by a generous guard against a stuck kernel, not by a measured time.
func startChild(t *testing.T, role string) *child {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+role)
	out := &strings.Builder{}
	cmd.Stdout = out
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &child{cmd: cmd, start: in, out: out}
}

// run lets the child start and waits for it to end.
func (c *child) run() error {
	if _, err := io.WriteString(c.start, "go\n"); err != nil {
		return err
	}
	c.start.Close()
	return c.cmd.Wait()
}

// dropCache writes nothing but evicts path's clean pages from the page cache,
// so that the next read charges them anew.
func dropCache(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatalf("fadvise DONTNEED %s: %v", path, err)
	}
}

// cachedPages counts how many of path's pages are in the page cache.
func cachedPages(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore %s: %v", path, errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// writeBigFile writes size bytes of non-zero data to a file on disk, syncs it
// and evicts it from the page cache.
func writeBigFile(t *testing.T, size int) string {
	t.Helper()
	path := t.TempDir() + "/big"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	for w := 0; w < size; w += len(buf) {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	dropCache(t, path)
	return path
}
