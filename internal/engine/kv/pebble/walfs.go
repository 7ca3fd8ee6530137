package pebble

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/vfs"
)

// walWriteFS is the file system of sync=write: pebble's, except that syncing a WAL file while
// it is written does nothing. A commit that asks pebble for a sync then returns once pebble's
// WAL writer has written it to the WAL file, that is to the OS, and no later: it is safe from
// a crash of the process, not of the machine. Pebble has no option for this: without a sync,
// a commit stays in the WAL writer's 32 KiB block in process memory until the block fills.
//
// A WAL file is still fsynced when pebble closes it (when it moves to a new WAL, and at
// Close), as it is with sync=false. Every other file (sstables, manifests, directories) is
// synced as pebble asks.
type walWriteFS struct {
	vfs.FS
}

// isWAL reports whether name is a WAL file: pebble names them NNNNNN.log; no other file of
// pebble's ends in .log.
func isWAL(name string) bool { return strings.HasSuffix(name, ".log") }

// Create creates name; a WAL file is wrapped in walFile.
func (fs walWriteFS) Create(name string) (vfs.File, error) {
	f, err := fs.FS.Create(name)
	return wrapWAL(name, f, err)
}

// ReuseForWrite recycles oldname as newname, a new WAL file, wrapped in walFile.
func (fs walWriteFS) ReuseForWrite(oldname, newname string) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname)
	return wrapWAL(newname, f, err)
}

func wrapWAL(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !isWAL(name) {
		return f, err
	}
	return walFile{File: f}, nil
}

// walFile is a WAL file whose syncs do nothing until it is closed.
type walFile struct {
	vfs.File
}

// Sync does nothing: the WAL writer has written the data to the file before it syncs.
func (walFile) Sync() error { return nil }

// SyncData does nothing, as Sync.
func (walFile) SyncData() error { return nil }

// SyncTo does nothing; it reports that it gave no guarantee (fullSync false).
func (walFile) SyncTo(int64) (bool, error) { return false, nil }

// Close fsyncs the file's data, then closes it.
func (f walFile) Close() error {
	if err := f.File.SyncData(); err != nil {
		return errors.Join(fmt.Errorf("sync WAL file: %w", err), f.File.Close())
	}
	return f.File.Close()
}
