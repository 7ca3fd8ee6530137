// Package pebble is the "pebble" engine: github.com/cockroachdb/pebble, CockroachDB's LSM
// key-value store in pure Go, as an ordered key-value engine (kv.DB).
//
// The engine keeps its files in the configuration's data directory. Every commit goes to the
// WAL; it waits for the WAL's fsync with sync=true, for the WAL's write to the OS with
// sync=write, and for nothing with sync=false (see walWriteFS). It implements engine.Cleaner
// (flush the memtables and wait for compactions to settle) and engine.Statser (LSM shape,
// compaction debt, write stalls).
package pebble

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// modulePath is the module whose version Version reports.
const modulePath = "github.com/cockroachdb/pebble"

// unknownVersion is Version's answer when the binary carries no module information.
const unknownVersion = "v1 (unknown)"

// errClosed is wrapped by the errors of operations on a closed engine.
var errClosed = kv.ErrClosed

// Driver returns the driver of the "pebble" engine.
func Driver() engine.Driver {
	d := kv.NewDriver("pebble",
		"Pebble (LSM, pure Go), CockroachDB's storage engine, through github.com/cockroachdb/pebble",
		settings(), nil, parseConfig,
		func(ctx context.Context, cfg engine.Config) (engine.Engine, error) { return open(ctx, cfg) })
	d.CapDefaults = capDefaults
	d.Snapshots = true // db.Snapshot (kv.Snapshotter)
	return d
}

// db is an open pebble engine.
type db struct {
	pdb *pebble.DB
	dir string
	cfg config
	wo  *pebble.WriteOptions
	// Base answers Family, Version and Settings, and keeps whether the engine is closed.
	kv.Base
	stalls stallCounter
	sp     *space // the disk's state (space.go)
	// broken is set when a commit panicked inside pebble, which then holds its commit
	// pipeline's lock for good: nothing may call into pebble's write path again, Close included.
	broken atomic.Bool
}

// Compile-time checks of the interfaces the engine implements.
var (
	_ kv.DB          = (*db)(nil)
	_ engine.Cleaner = (*db)(nil)
	_ engine.Statser = (*db)(nil)
	_ engine.Builder = (*db)(nil)
)

// open opens (or creates) the database in cfg.DataDir.
func open(ctx context.Context, cfg engine.Config) (*db, error) {
	c, err := kv.OpenConfig(ctx, "pebble", cfg, parseConfig)
	if err != nil {
		return nil, err
	}
	d := &db{
		dir:  cfg.DataDir,
		cfg:  c,
		wo:   c.writeOptions(),
		Base: kv.NewBase("pebble", engine.ModuleVersion(modulePath, unknownVersion), c.settings()),
	}
	start := time.Now()
	d.stalls.elapsed = func() time.Duration { return time.Since(start) }
	d.sp = newSpace()
	d.sp.reserve(filepath.Clean(cfg.DataDir) + ".ballast")
	opts := c.options()
	opts.FS = c.fileSystem(vfs.Default, d.sp)
	opts.EventListener = &pebble.EventListener{
		WriteStallBegin: func(pebble.WriteStallBeginInfo) { d.stalls.begin() },
		WriteStallEnd:   d.stalls.end,
		// Counted, not logged: pebble retries a failed flush at once, again and again.
		BackgroundError: func(err error) {
			d.sp.background.Add(1)
			d.sp.check(err)
		},
	}
	// The DB takes its own reference to the cache; ours is released once it is open (or not).
	cache := pebble.NewCache(int64(c.cacheMB) << 20)
	defer cache.Unref()
	opts.Cache = cache
	pdb, err := pebble.Open(cfg.DataDir, opts)
	if err != nil {
		d.sp.release()
		return nil, fmt.Errorf("pebble: open %s: %w", cfg.DataDir, err)
	}
	d.pdb = pdb
	return d, nil
}

// Build records pebble and its module's version (Version's, left out where the binary carries
// none).
func (d *db) Build() map[string]string {
	return engine.EmbeddedBuild("pebble", engine.ModuleVersion(modulePath, ""), modulePath)
}

// Close closes the database; it fails if iterators are still open. A second Close fails too.
// After a commit panicked inside pebble it leaves pebble open (its Close would wait forever)
// and says so.
func (d *db) Close() error {
	if err := d.MarkClosed(d.dir); err != nil {
		return err
	}
	defer d.sp.release()
	if d.broken.Load() {
		return fmt.Errorf("pebble: close %s: left open: a commit failed inside pebble, which then waits forever", d.dir)
	}
	if err := d.pdb.Close(); err != nil {
		return fmt.Errorf("pebble: close %s: %w", d.dir, err)
	}
	return nil
}

// Get appends the value of key to dst.
func (d *db) Get(key, dst []byte) ([]byte, bool, error) {
	if err := d.CheckOpen("get"); err != nil {
		return dst, false, err
	}
	v, closer, err := d.pdb.Get(key)
	if err == pebble.ErrNotFound {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, fmt.Errorf("pebble: get: %w", err)
	}
	dst = append(dst, v...)
	if err := closer.Close(); err != nil {
		return dst, false, fmt.Errorf("pebble: get: release value: %w", err)
	}
	return dst, true, nil
}

// NewBatch returns an empty write batch.
func (d *db) NewBatch() kv.Batch { return &batch{d: d, b: d.pdb.NewBatch()} }

// NewIter returns an iterator over [lower, upper). It copies the bounds.
func (d *db) NewIter(lower, upper []byte) (kv.Iter, error) {
	if err := d.CheckOpen("new iterator"); err != nil {
		return nil, err
	}
	it := &iter{}
	it.opts.LowerBound, it.opts.UpperBound = it.copyBounds(lower, upper)
	pit, err := d.pdb.NewIter(&it.opts)
	if err != nil {
		return nil, fmt.Errorf("pebble: new iterator: %w", err)
	}
	it.it = pit
	return it, nil
}

// batch is a pebble batch that is reset after every Commit.
type batch struct {
	d *db
	b *pebble.Batch
	// err is the first error of Set or Delete, returned by the next Commit.
	err error
}

// Set adds key = value; pebble copies both.
func (b *batch) Set(key, value []byte) {
	if err := b.b.Set(key, value, nil); err != nil && b.err == nil {
		b.err = fmt.Errorf("pebble: batch set: %w", err)
	}
}

// Delete adds the deletion of key; pebble copies it.
func (b *batch) Delete(key []byte) {
	if err := b.b.Delete(key, nil); err != nil && b.err == nil {
		b.err = fmt.Errorf("pebble: batch delete: %w", err)
	}
}

// Len returns the number of writes in the batch.
func (b *batch) Len() int { return int(b.b.Count()) }

// Commit applies the batch atomically with the configured durability (sync setting), then
// empties it. An empty batch commits nothing. On a full disk it fails at once (space.go).
func (b *batch) Commit() (err error) {
	defer b.Reset()
	if b.err != nil {
		return b.err
	}
	if b.b.Empty() {
		return nil
	}
	if err := b.d.CheckOpen("commit"); err != nil {
		return err
	}
	if b.d.sp.full.Load() {
		return b.d.sp.fullError("commit")
	}
	defer func() {
		// Pebble panics when the WAL cannot be written (a full disk the ballast did not cover).
		if p := recover(); p != nil {
			b.d.broken.Store(true)
			perr, ok := p.(error)
			if !ok {
				perr = fmt.Errorf("%v", p)
			}
			err = fmt.Errorf("pebble: commit: %w", b.d.sp.check(perr))
		}
	}()
	if err := b.b.Commit(b.d.wo); err != nil {
		return fmt.Errorf("pebble: commit: %w", err)
	}
	return nil
}

// Reset empties the batch without applying it.
func (b *batch) Reset() {
	b.b.Reset()
	b.err = nil
}

// Close releases the batch.
func (b *batch) Close() error {
	if b.b == nil {
		return nil
	}
	err := b.b.Close()
	b.b = nil
	if err != nil {
		return fmt.Errorf("pebble: close batch: %w", err)
	}
	return nil
}

// iter wraps a pebble iterator. Pebble clamps a SeekGE below the lower bound to the bound.
type iter struct {
	it   *pebble.Iterator
	opts pebble.IterOptions
	// bounds holds copies of the bounds: pebble reads them for the iterator's lifetime, and the
	// caller may reuse its slices. Small bounds fit in inline, saving an allocation.
	bounds []byte
	inline [64]byte
}

// copyBounds copies lower and upper into it and returns the copies; nil stays nil.
func (it *iter) copyBounds(lower, upper []byte) (lo, hi []byte) {
	it.bounds = it.inline[:0]
	if lower != nil {
		it.bounds = append(it.bounds, lower...)
	}
	if upper != nil {
		it.bounds = append(it.bounds, upper...)
	}
	if lower != nil {
		lo = it.bounds[:len(lower):len(lower)]
	}
	if upper != nil {
		n := len(it.bounds) - len(upper)
		hi = it.bounds[n:len(it.bounds):len(it.bounds)]
	}
	return lo, hi
}

// First moves to the first key in range.
func (it *iter) First() bool { return it.it.First() }

// Last moves to the last key in range.
func (it *iter) Last() bool { return it.it.Last() }

// SeekGE moves to the first key in range that is >= key.
func (it *iter) SeekGE(key []byte) bool { return it.it.SeekGE(key) }

// Next moves to the next key.
func (it *iter) Next() bool { return it.it.Next() }

// Prev moves to the previous key.
func (it *iter) Prev() bool { return it.it.Prev() }

// Valid reports whether the iterator is positioned on a key in range.
func (it *iter) Valid() bool { return it.it.Valid() }

// Key returns the current key, valid until the iterator moves.
func (it *iter) Key() []byte { return it.it.Key() }

// Value returns the current value, valid until the iterator moves. An error reading the value
// is reported by Err.
func (it *iter) Value() []byte {
	v, _ := it.it.ValueAndErr()
	return v
}

// Err returns the error that made the iterator invalid, if any.
func (it *iter) Err() error {
	if err := it.it.Error(); err != nil {
		return fmt.Errorf("pebble: iterator: %w", err)
	}
	return nil
}

// Close releases the iterator.
func (it *iter) Close() error {
	if it.it == nil {
		return nil
	}
	err := it.it.Close()
	it.it = nil
	if err != nil {
		return fmt.Errorf("pebble: close iterator: %w", err)
	}
	return nil
}

// stallCounter counts write stalls and their duration. Pebble calls begin and end in pairs,
// from the goroutine that stalls; Stats reads the counters concurrently.
type stallCounter struct {
	// elapsed reads a monotonic clock: the time since an origin (the engine's open).
	elapsed func() time.Duration
	count   atomic.Int64 // stalls begun
	nanos   atomic.Int64 // total duration of the stalls that ended
	began   atomic.Int64 // start of the current stall (elapsed nanoseconds, +1), 0 if none
}

func (s *stallCounter) now() int64 { return int64(s.elapsed()) + 1 }

func (s *stallCounter) begin() {
	s.count.Add(1)
	s.began.Store(s.now())
}

func (s *stallCounter) end() {
	if b := s.began.Swap(0); b != 0 {
		s.nanos.Add(s.now() - b)
	}
}

// seconds returns the stalled time so far, the current stall included.
func (s *stallCounter) seconds() float64 {
	n := s.nanos.Load()
	if b := s.began.Load(); b != 0 {
		n += s.now() - b
	}
	return time.Duration(n).Seconds()
}

// cleanupPoll is how often Cleanup reads the metrics while it waits for compactions.
const cleanupPoll = 20 * time.Millisecond

// Cleanup is pebble's analogue of the MyRocks cleanup: it flushes the memtables and waits,
// honouring ctx, until the LSM has settled: no flush or compaction runs, and either pebble's
// estimated compaction debt is 0 or no level's compaction score reaches 1 (the automatic
// compactions have nothing left to do). It runs no manual compaction: pebble can compact a key
// range through every level, but not L0 alone, as MyRocks' cleanup does. The caller's wait
// comes after it.
//
// The estimated debt can stay above 0 after Cleanup: pebble counts all of L0 (plus Lbase) as
// debt whenever both hold data, even when L0 holds fewer sublevels than l0_compaction_threshold,
// and no compaction will pay it until more writes arrive. Stats reports it as
// pending_compaction_bytes.
func (d *db) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := d.CheckOpen("cleanup"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pebble: cleanup: %w", err)
	}
	if d.sp.full.Load() || d.broken.Load() {
		return d.sp.fullError("cleanup")
	}
	t0 := time.Now()
	flushed, err := d.pdb.AsyncFlush()
	if err != nil {
		return fmt.Errorf("pebble: cleanup: flush: %w", err)
	}
	select {
	case <-flushed:
	case <-d.sp.fullCh:
		return d.sp.fullError("cleanup: flush the memtables")
	case <-ctx.Done():
		return fmt.Errorf("pebble: cleanup: waiting for the memtable flush: %w", ctx.Err())
	}
	tick := time.NewTicker(cleanupPoll)
	defer tick.Stop()
	// The LSM must look settled on two polls in a row: the end of a compaction can schedule
	// another, and table statistics load in the background.
	quiet := 0
	for {
		m := d.pdb.Metrics()
		if settled(m) {
			quiet++
			if quiet == 2 {
				h.Notef("flush the memtables, then wait until no flush or compaction runs or is owed: %.1f s", time.Since(t0).Seconds())
				return nil
			}
		} else {
			quiet = 0
		}
		select {
		case <-tick.C:
		case <-d.sp.fullCh:
			return d.sp.fullError("cleanup: wait for compactions")
		case <-ctx.Done():
			return fmt.Errorf("pebble: cleanup: waiting for compactions (%d running, estimated debt %d bytes): %w",
				m.Compact.NumInProgress, m.Compact.EstimatedDebt, ctx.Err())
		}
	}
}

// settled reports whether no flush or compaction runs and none is owed: the estimated debt is 0,
// or no level scores high enough to be picked for compaction and no file is marked for one.
func settled(m *pebble.Metrics) bool {
	if m.Compact.NumInProgress > 0 || m.Flush.NumInProgress > 0 {
		return false
	}
	if m.Compact.EstimatedDebt == 0 {
		return true
	}
	if m.Compact.MarkedFiles > 0 {
		return false
	}
	for i := range m.Levels {
		if m.Levels[i].Score >= 1 {
			return false
		}
	}
	return true
}

// Stats returns the engine's counters:
//
//   - l0_files, l0_sublevels (L0 read amplification), l0_bytes, read_amp (sublevels of L0 plus
//     the other non-empty levels)
//   - pending_compaction_bytes: pebble's estimate of the bytes compactions must write to settle
//     the LSM (compaction debt); compactions_in_progress
//   - write_stalls, write_stall_seconds: stalls of writes waiting for a flush or for L0 to shrink
//     below l0_stop_writes_threshold, since Open
//   - flush_bytes_written, compaction_bytes_written: bytes written to sstables by flushes and
//     compactions since Open; flushes, compactions: their counts
//   - memtable_bytes: memory of the memtables; wal_bytes: size of the live WAL files
//   - disk_bytes: size of every file of the database (sstables, WAL, manifests)
//   - block_cache_bytes, block_cache_hits, block_cache_misses
//   - background_errors: flushes and compactions that failed since Open; disk_full: 1 once a
//     write failed for want of space (space.go), else 0
func (d *db) Stats(ctx context.Context) (map[string]float64, error) {
	if err := d.CheckOpen("stats"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pebble: stats: %w", err)
	}
	m := d.pdb.Metrics()
	total := m.Total()
	return map[string]float64{
		"l0_files":                 float64(m.Levels[0].NumFiles),
		"l0_sublevels":             float64(m.Levels[0].Sublevels),
		"l0_bytes":                 float64(m.Levels[0].Size),
		"read_amp":                 float64(m.ReadAmp()),
		"pending_compaction_bytes": float64(m.Compact.EstimatedDebt),
		"compactions_in_progress":  float64(m.Compact.NumInProgress),
		"write_stalls":             float64(d.stalls.count.Load()),
		"write_stall_seconds":      d.stalls.seconds(),
		"flush_bytes_written":      float64(total.BytesFlushed),
		"compaction_bytes_written": float64(total.BytesCompacted),
		"flushes":                  float64(m.Flush.Count),
		"compactions":              float64(m.Compact.Count),
		"memtable_bytes":           float64(m.MemTable.Size),
		"wal_bytes":                float64(m.WAL.PhysicalSize),
		"disk_bytes":               float64(m.DiskSpaceUsage()),
		"block_cache_bytes":        float64(m.BlockCache.Size),
		"block_cache_hits":         float64(m.BlockCache.Hits),
		"block_cache_misses":       float64(m.BlockCache.Misses),
		"background_errors":        float64(d.sp.background.Load()),
		"disk_full":                b2f(d.sp.full.Load()),
	}, nil
}

// b2f returns 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
