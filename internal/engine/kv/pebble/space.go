package pebble

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/pebble/vfs"
)

// A full disk. Pebble does not fail a write for want of space: a flush that fails is retried at
// once, again and again (a failed flush logged "no space left on device" 16 times a second),
// writers wait for the flush forever, and a WAL write that fails panics the next commit while
// it holds the commit pipeline's lock, so that every later commit, flush and Close wait forever.
// The engine therefore watches every write pebble makes (spaceFS): at the first one that fails
// for want of space it marks the engine full, and from then on its commits and its cleanup
// fail at once with that error, before they reach pebble. So that the writes already under way
// finish rather than panic, it reserves a ballast file next to the data directory when it
// opens, and pebble's vfs.OnDiskFull removes it at the first write that fails for want of
// space and runs that write again. (A failed preallocation is not a failed write: pebble
// ignores it, and so does the engine.)

// ballastBytes is the space the ballast reserves: the WAL writes of the commits in flight
// when the disk fills need far less.
const ballastBytes = 2 << 20

// space is the engine's state of the disk.
type space struct {
	full    atomic.Bool
	once    sync.Once
	fullCh  chan struct{} // closed when full
	mu      sync.Mutex    // guards err and ballast
	err     error         // the first write that failed for want of space
	ballast string        // the ballast file, "" once removed or when none could be made
	// background counts pebble's background errors (failed flushes and compactions).
	background atomic.Int64
}

func newSpace() *space { return &space{fullCh: make(chan struct{})} }

// reserve makes the ballast file path of ballastBytes; it gives up quietly where it cannot
// (the disk is already nearly full, or the file system cannot reserve space).
func (s *space) reserve(path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	err = syscall.Fallocate(int(f.Fd()), 0, 0, ballastBytes)
	if cerr := f.Close(); err != nil || cerr != nil {
		os.Remove(path)
		return
	}
	s.ballast = path
}

// release removes the ballast.
func (s *space) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ballast != "" {
		os.Remove(s.ballast)
		s.ballast = ""
	}
}

// check marks the disk full when err is a write that failed for want of space, and releases the
// ballast; it returns err.
func (s *space) check(err error) error {
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	s.once.Do(func() {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		s.full.Store(true)
		close(s.fullCh)
		s.release()
	})
	return err
}

// fullError returns the error of op on a full disk, wrapping the write that failed.
func (s *space) fullError(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Errorf("pebble: %s: the disk is full: %w", op, s.err)
}

// spaceFS is the OS's file system with every write and sync checked by check.
type spaceFS struct {
	vfs.FS
	s *space
}

func (fs spaceFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, fs.s.check(err)
	}
	return spaceFile{File: f, s: fs.s, name: name}, nil
}

func (fs spaceFS) Create(name string) (vfs.File, error) {
	f, err := fs.FS.Create(name)
	return fs.wrap(name, f, err)
}

func (fs spaceFS) OpenReadWrite(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, opts...)
	return fs.wrap(name, f, err)
}

func (fs spaceFS) ReuseForWrite(oldname, newname string) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname)
	return fs.wrap(newname, f, err)
}

// spaceFile is a file whose writes and syncs are checked by check.
type spaceFile struct {
	vfs.File
	s    *space
	name string
}

// check checks the error of op on the file; a bare errno gets the operation and the file's name.
func (f spaceFile) check(op string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) && errors.Is(err, errno) && err.Error() == errno.Error() {
		err = &os.PathError{Op: op, Path: f.name, Err: err}
	}
	return f.s.check(err)
}

func (f spaceFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.check("write", err)
}

func (f spaceFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.check("write", err)
}

func (f spaceFile) Sync() error { return f.check("sync", f.File.Sync()) }

func (f spaceFile) SyncData() error { return f.check("sync", f.File.SyncData()) }

func (f spaceFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.check("sync", err)
}
