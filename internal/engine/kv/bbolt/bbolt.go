// Package bbolt is the "bbolt" engine: go.etcd.io/bbolt, etcd's copy-on-write B+tree in one
// memory-mapped file (the LMDB design in pure Go), as an ordered key-value engine (kv.DB).
//
// Every key lives in one bucket. A batch commits as one read-write transaction; bbolt runs one
// writer at a time. Iterators copy their entries out of short read transactions, a chunk at a
// time (see iter.go), so that no reader is held open across a writer's commit. It implements
// engine.Cleaner (fsync the file), engine.Statser (freelist, transactions, page writes) and
// engine.DataFiler.
package bbolt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// modulePath is the module whose version Version reports.
const modulePath = "go.etcd.io/bbolt"

// unknownVersion is Version's answer when the binary carries no module information.
const unknownVersion = "v1 (unknown)"

// fileName is the database file in the data directory.
const fileName = "bbolt.db"

// bucketName is the one bucket that holds every key.
var bucketName = []byte("kv")

// errClosed is wrapped by the errors of operations on a closed engine.
var errClosed = kv.ErrClosed

// Driver returns the driver of the "bbolt" engine.
func Driver() engine.Driver {
	return kv.NewDriver("bbolt",
		"bbolt (copy-on-write B+tree in one memory-mapped file, pure Go), etcd's storage engine, through go.etcd.io/bbolt",
		settings(), nil, parseConfig,
		func(ctx context.Context, cfg engine.Config) (engine.Engine, error) { return open(ctx, cfg) })
}

// db is an open bbolt engine.
type db struct {
	bdb  *bolt.DB
	path string
	cfg  config
	// Base answers Family, Version and Settings, and keeps whether the engine is closed.
	kv.Base
	// commits counts the read-write transactions committed.
	commits atomic.Int64
}

// Compile-time checks of the interfaces the engine implements.
var (
	_ kv.DB            = (*db)(nil)
	_ engine.Cleaner   = (*db)(nil)
	_ engine.Statser   = (*db)(nil)
	_ engine.DataFiler = (*db)(nil)
	_ engine.Builder   = (*db)(nil)
)

// open opens (or creates) the database file in cfg.DataDir and its bucket.
func open(ctx context.Context, cfg engine.Config) (*db, error) {
	c, err := kv.OpenConfig(ctx, "bbolt", cfg, parseConfig)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(cfg.DataDir, fileName)
	bdb, err := bolt.Open(path, 0o644, c.options())
	if err != nil {
		return nil, fmt.Errorf("bbolt: open %s: %w", path, err)
	}
	err = bdb.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketName)
		return err
	})
	if err != nil {
		bdb.Close()
		return nil, fmt.Errorf("bbolt: open %s: create the bucket: %w", path, err)
	}
	return &db{bdb: bdb, path: path, cfg: c,
		Base: kv.NewBase("bbolt", engine.ModuleVersion(modulePath, unknownVersion), c.settings())}, nil
}

// Build records bbolt and its module's version (Version's, left out where the binary carries
// none).
func (d *db) Build() map[string]string {
	return engine.EmbeddedBuild("bbolt", engine.ModuleVersion(modulePath, ""), modulePath)
}

// Close closes the database file. A second Close fails.
func (d *db) Close() error {
	if err := d.MarkClosed(d.path); err != nil {
		return err
	}
	if err := d.bdb.Close(); err != nil {
		return fmt.Errorf("bbolt: close %s: %w", d.path, err)
	}
	return nil
}

// Get appends the value of key to dst. It seeks with a cursor, so that an empty value is told
// apart from a missing key.
func (d *db) Get(key, dst []byte) ([]byte, bool, error) {
	if err := d.CheckOpen("get"); err != nil {
		return dst, false, err
	}
	found := false
	err := d.bdb.View(func(tx *bolt.Tx) error {
		k, v := tx.Bucket(bucketName).Cursor().Seek(key)
		if k != nil && bytes.Equal(k, key) {
			found = true
			dst = append(dst, v...)
		}
		return nil
	})
	if err != nil {
		return dst, false, fmt.Errorf("bbolt: get: %w", err)
	}
	return dst, found, nil
}

// NewBatch returns an empty write batch.
func (d *db) NewBatch() kv.Batch { return &batch{d: d} }

// batch collects writes in a kv.OpBuffer and applies them in one read-write transaction.
type batch struct {
	d *db
	kv.OpBuffer
}

// Commit applies the batch in one read-write transaction (with an fsync when sync is set), then
// empties it. An empty batch commits nothing.
func (b *batch) Commit() error {
	defer b.Reset()
	if b.Len() == 0 {
		return nil
	}
	if err := b.d.CheckOpen("commit"); err != nil {
		return err
	}
	err := b.d.bdb.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName)
		bk.FillPercent = float64(b.d.cfg.fillPercent) / 100
		for i := range b.Len() {
			del, key, value := b.Op(i)
			var err error
			if del {
				err = bk.Delete(key)
			} else {
				err = bk.Put(key, value)
			}
			if err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bbolt: commit: %w", err)
	}
	b.d.commits.Add(1)
	return nil
}

// Close releases the batch.
func (b *batch) Close() error {
	b.Release()
	return nil
}

// Cleanup writes everything to the disk (fsync), bbolt's analogue of the servers' cleanup:
// bbolt keeps no background debt to settle (no compaction, no checkpoint, no statistics); its
// free pages are reused in place. The caller's wait comes after it.
func (d *db) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := d.CheckOpen("cleanup"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bbolt: cleanup: %w", err)
	}
	t0 := time.Now()
	if err := d.bdb.Sync(); err != nil {
		return fmt.Errorf("bbolt: cleanup: fsync: %w", err)
	}
	h.Notef("fsync: %.1f s", time.Since(t0).Seconds())
	return nil
}

// Stats returns the engine's counters:
//
//	freelist_pages     free pages on the freelist, reusable by the next writes
//	pending_pages      pages freed by commits that readers may still see
//	freelist_bytes     bytes the freelist takes
//	read_txs           read transactions started (Get, and each chunk of an iterator)
//	open_read_txs      read transactions open now
//	write_txs          read-write transactions committed (batches)
//	pages_written      pages written by commits
//	page_splits        B+tree nodes split by commits
//	page_rebalances    B+tree nodes merged by commits
//	file_bytes         size of the database file
func (d *db) Stats(context.Context) (map[string]float64, error) {
	if err := d.CheckOpen("stats"); err != nil {
		return nil, err
	}
	s := d.bdb.Stats()
	m := map[string]float64{
		"freelist_pages":  float64(s.FreePageN),
		"pending_pages":   float64(s.PendingPageN),
		"freelist_bytes":  float64(s.FreelistInuse),
		"read_txs":        float64(s.TxN),
		"open_read_txs":   float64(s.OpenTxN),
		"write_txs":       float64(d.commits.Load()),
		"pages_written":   float64(s.TxStats.GetWrite()),
		"page_splits":     float64(s.TxStats.GetSplit()),
		"page_rebalances": float64(s.TxStats.GetRebalance()),
	}
	if st, err := os.Stat(d.path); err == nil {
		m["file_bytes"] = float64(st.Size())
	}
	return m, nil
}

// IsDataFile reports whether rel (relative to the data directory) is the database file.
func (d *db) IsDataFile(rel string) bool { return rel == fileName }
