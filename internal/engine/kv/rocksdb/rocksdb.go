//go:build rocksdb && cgo

package rocksdb

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/malloc"
)

// errClosed is wrapped by the errors of operations on a closed engine.
var errClosed = kv.ErrClosed

// db is an open RocksDB database.
type db struct {
	rdb   *grocksdb.DB
	opts  *grocksdb.Options
	bbto  *grocksdb.BlockBasedTableOptions
	cache *grocksdb.Cache
	wo    *grocksdb.WriteOptions
	ro    *grocksdb.ReadOptions
	dir   string
	cfg   config
	// Base answers Family, Version and Settings.
	kv.Base
	// trim is the malloc trimmer of an engine under a memory cap (nil without one).
	trim *malloc.Trimmer
	// guard keeps Close from freeing the handles under an operation or an iterator.
	guard kv.Guard
	// build is Build's answer, asked of the library at open.
	build map[string]string
}

// Compile-time checks of the interfaces the engine implements.
var (
	_ kv.DB          = (*db)(nil)
	_ engine.Cleaner = (*db)(nil)
	_ engine.Statser = (*db)(nil)
	_ engine.Builder = (*db)(nil)
)

// compressionOf returns RocksDB's compression called name (a validated setting value).
func compressionOf(name string) grocksdb.CompressionType {
	switch name {
	case "snappy":
		return grocksdb.SnappyCompression
	case "zstd":
		return grocksdb.ZSTDCompression
	case "none":
		return grocksdb.NoCompression
	}
	return grocksdb.LZ4Compression
}

// available reports the engine available: librocksdb is linked in.
func available() error { return nil }

// open opens (or creates) the database in cfg.DataDir.
func open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	c, err := kv.OpenConfig(ctx, "rocksdb", cfg, parseConfig)
	if err != nil {
		return nil, err
	}
	if cfg.MemoryLimit > 0 {
		if err := malloc.Tune(); err != nil {
			return nil, err
		}
	}
	d := &db{dir: cfg.DataDir, cfg: c, guard: kv.Guard{Name: "rocksdb"}}
	d.bbto = grocksdb.NewDefaultBlockBasedTableOptions()
	if c.cacheMB > 0 {
		d.cache = grocksdb.NewLRUCache(uint64(c.cacheMB) << 20)
		d.bbto.SetBlockCache(d.cache)
		d.bbto.SetCacheIndexAndFilterBlocks(c.cacheIndex)
	} else {
		d.bbto.SetNoBlockCache(true)
	}
	if c.partitionIndex {
		d.bbto.SetIndexType(grocksdb.KTwoLevelIndexSearchIndexType)
		d.bbto.SetPartitionFilters(true)
		d.bbto.SetMetadataBlockSize(4096)
	}
	if c.bloomBitsPerKey > 0 {
		d.bbto.SetFilterPolicy(grocksdb.NewBloomFilter(float64(c.bloomBitsPerKey)))
	}
	o := grocksdb.NewDefaultOptions()
	o.SetCreateIfMissing(true)
	o.SetBlockBasedTableFactory(d.bbto)
	o.SetWriteBufferSize(uint64(c.memtableMB) << 20)
	o.SetMaxWriteBufferNumber(c.maxWriteBufferNumber)
	o.SetCompression(compressionOf(c.compression))
	o.SetBottommostCompression(compressionOf(c.compression))
	o.SetMaxBackgroundJobs(c.maxBackgroundJobs)
	o.SetLevel0FileNumCompactionTrigger(c.l0Compaction)
	o.SetLevel0SlowdownWritesTrigger(c.l0Slowdown)
	o.SetLevel0StopWritesTrigger(c.l0Stop)
	o.SetBytesPerSync(uint64(c.bytesPerSync))
	o.SetLevelCompactionDynamicLevelBytes(c.dynamicLevelBytes)
	o.SetUseDirectReads(c.directReads)
	o.SetUseDirectIOForFlushAndCompaction(c.directFlush)
	o.EnableStatistics()
	d.opts = o
	rdb, err := grocksdb.OpenDb(o, cfg.DataDir)
	if err != nil {
		d.free()
		return nil, fmt.Errorf("rocksdb: open %s: %w", cfg.DataDir, err)
	}
	d.rdb = rdb
	d.wo = grocksdb.NewDefaultWriteOptions()
	d.wo.SetSync(c.sync)
	d.ro = grocksdb.NewDefaultReadOptions()
	d.Base = kv.NewBase("rocksdb", optionsVersion(cfg.DataDir), c.settings())
	d.build = build()
	if cfg.MemoryLimit > 0 {
		d.trim = malloc.StartTrimmer()
	}
	return d, nil
}

// free releases the options and the cache.
func (d *db) free() {
	for _, f := range []func(){
		func() {
			if d.wo != nil {
				d.wo.Destroy()
			}
		},
		func() {
			if d.ro != nil {
				d.ro.Destroy()
			}
		},
		func() {
			if d.opts != nil {
				d.opts.Destroy()
			}
		},
		func() {
			if d.bbto != nil {
				d.bbto.Destroy()
			}
		},
		func() {
			if d.cache != nil {
				d.cache.Destroy()
			}
		},
	} {
		f()
	}
	d.wo, d.ro, d.opts, d.bbto, d.cache = nil, nil, nil, nil, nil
}

// optionsVersion reads the library's version from the newest OPTIONS file RocksDB wrote in dir
// ("rocksdb_version=7.8.3"); Build asks the library itself (build.cc).
func optionsVersion(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	sort.Strings(files)
	for i := len(files) - 1; i >= 0; i-- {
		f, err := os.Open(files[i])
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "rocksdb_version="); ok {
				f.Close()
				return v
			}
		}
		f.Close()
	}
	return "unknown"
}

// Build records the linked librocksdb's version and the compressions it was built with, and
// grocksdb's module.
func (d *db) Build() map[string]string { return maps.Clone(d.build) }

// Close closes the database once no operation runs. It fails while iterators are open, and a
// second time.
func (d *db) Close() error {
	return d.guard.Close(d.dir, func() error {
		d.trim.Stop()
		d.rdb.Close()
		d.free()
		return nil
	})
}

// Get appends the value of key to dst.
func (d *db) Get(key, dst []byte) ([]byte, bool, error) {
	if err := d.guard.Enter("get"); err != nil {
		return dst, false, err
	}
	defer d.guard.Leave()
	s, err := d.rdb.Get(d.ro, key)
	if err != nil {
		return dst, false, fmt.Errorf("rocksdb: get: %w", err)
	}
	defer s.Free()
	if !s.Exists() {
		return dst, false, nil
	}
	return append(dst, s.Data()...), true, nil
}

// NewBatch returns an empty write batch.
func (d *db) NewBatch() kv.Batch { return &batch{d: d, wb: grocksdb.NewWriteBatch()} }

// batch is a RocksDB write batch that is cleared after every Commit.
type batch struct {
	d  *db
	wb *grocksdb.WriteBatch
}

// Set adds key = value; RocksDB copies both.
func (b *batch) Set(key, value []byte) { b.wb.Put(key, value) }

// Delete adds the deletion of key; RocksDB copies it.
func (b *batch) Delete(key []byte) { b.wb.Delete(key) }

// Len returns the number of writes in the batch.
func (b *batch) Len() int { return b.wb.Count() }

// Commit applies the batch atomically with the configured durability, then empties it.
func (b *batch) Commit() error {
	defer b.Reset()
	if b.wb.Count() == 0 {
		return nil
	}
	if err := b.d.guard.Enter("commit"); err != nil {
		return err
	}
	defer b.d.guard.Leave()
	if err := b.d.rdb.Write(b.d.wo, b.wb); err != nil {
		return fmt.Errorf("rocksdb: commit: %w", err)
	}
	return nil
}

// Reset empties the batch without applying it.
func (b *batch) Reset() { b.wb.Clear() }

// Close releases the batch.
func (b *batch) Close() error {
	if b.wb != nil {
		b.wb.Destroy()
		b.wb = nil
	}
	return nil
}

// iter wraps a RocksDB iterator over a snapshot (the iterator's implicit one) with bounds.
type iter struct {
	d            *db
	it           *grocksdb.Iterator
	ro           *grocksdb.ReadOptions
	lower, upper []byte
	valid        bool
	err          error
}

// NewIter returns an iterator over [lower, upper). It copies the bounds.
func (d *db) NewIter(lower, upper []byte) (kv.Iter, error) {
	if err := d.guard.Enter("new iterator"); err != nil {
		return nil, err
	}
	defer d.guard.Leave()
	it := &iter{d: d, ro: grocksdb.NewDefaultReadOptions()}
	if lower != nil {
		it.lower = append([]byte{}, lower...)
		it.ro.SetIterateLowerBound(it.lower)
	}
	if upper != nil {
		it.upper = append([]byte{}, upper...)
		it.ro.SetIterateUpperBound(it.upper)
	}
	it.it = d.rdb.NewIterator(it.ro)
	d.guard.IterOpened()
	return it, nil
}

// settle records whether the iterator is on a key within the bounds, and its error.
func (it *iter) settle() bool {
	it.valid = it.it.Valid()
	if it.valid && it.lower != nil && bytes.Compare(it.it.Key().Data(), it.lower) < 0 {
		it.valid = false
	}
	if !it.valid {
		if err := it.it.Err(); err != nil {
			it.err = fmt.Errorf("rocksdb: iterate: %w", err)
		}
	}
	return it.valid
}

func (it *iter) open() bool {
	if it.it == nil {
		if it.err == nil {
			it.err = fmt.Errorf("rocksdb: iterate: %w", errClosed)
		}
		return false
	}
	return true
}

// First positions the iterator on the range's first key.
func (it *iter) First() bool {
	if !it.open() {
		return false
	}
	it.it.SeekToFirst()
	return it.settle()
}

// Last positions the iterator on the range's last key.
func (it *iter) Last() bool {
	if !it.open() {
		return false
	}
	it.it.SeekToLast()
	return it.settle()
}

// SeekGE positions the iterator on the first key >= key (and >= lower).
func (it *iter) SeekGE(key []byte) bool {
	if !it.open() {
		return false
	}
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	it.it.Seek(key)
	return it.settle()
}

// Next moves to the next key.
func (it *iter) Next() bool {
	if !it.Valid() {
		return false
	}
	it.it.Next()
	return it.settle()
}

// Prev moves to the previous key.
func (it *iter) Prev() bool {
	if !it.Valid() {
		return false
	}
	it.it.Prev()
	return it.settle()
}

// Valid reports whether the iterator is on a key.
func (it *iter) Valid() bool { return it.err == nil && it.valid && it.it != nil }

// Key returns the current key; it stays valid until the iterator moves or closes.
func (it *iter) Key() []byte { return it.it.Key().Data() }

// Value returns the current value; it stays valid until the iterator moves or closes.
func (it *iter) Value() []byte { return it.it.Value().Data() }

// Err returns the error that made the iterator invalid, if any.
func (it *iter) Err() error { return it.err }

// Close releases the iterator.
func (it *iter) Close() error {
	if it.it == nil {
		return nil
	}
	it.it.Close()
	it.ro.Destroy()
	it.it, it.ro, it.valid = nil, nil, false
	it.d.guard.IterClosed()
	return nil
}

// settleTimeout bounds how long Cleanup waits for compactions after the flush.
const settleTimeout = 10 * time.Minute

// Cleanup is RocksDB's analogue of the MyRocks cleanup: it flushes the memtables and waits
// until no flush or compaction runs or is pending, as the pebble engine does. It does not
// compact L0 as MyRocks' cleanup does: RocksDB's C API compacts a key range through every
// level (a full manual compaction), but has no call that compacts L0 alone. The caller's wait
// comes after it.
func (d *db) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := d.guard.Enter("cleanup"); err != nil {
		return err
	}
	defer d.guard.Leave()
	t0 := time.Now()
	fo := grocksdb.NewDefaultFlushOptions()
	fo.SetWait(true)
	err := d.rdb.Flush(fo)
	fo.Destroy()
	if err != nil {
		return fmt.Errorf("rocksdb: cleanup: flush: %w", err)
	}
	deadline := time.Now().Add(settleTimeout)
	for {
		busy := d.intProp("rocksdb.num-running-compactions") + d.intProp("rocksdb.num-running-flushes") +
			d.intProp("rocksdb.compaction-pending") + d.intProp("rocksdb.mem-table-flush-pending")
		if busy == 0 {
			h.Notef("flush the memtables, then wait until no flush or compaction runs or is pending: %.1f s", time.Since(t0).Seconds())
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rocksdb: cleanup: compactions still running after %s", settleTimeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("rocksdb: cleanup: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (d *db) intProp(name string) float64 {
	v, ok := d.rdb.GetIntProperty(name)
	if !ok {
		return 0
	}
	return float64(v)
}

// statistics are the tickers of RocksDB's statistics the engine reports, by stat name.
var statistics = map[string]string{
	"rocksdb.flush.write.bytes":   "flush_bytes_written",
	"rocksdb.compact.write.bytes": "compaction_bytes_written",
	"rocksdb.compact.read.bytes":  "compaction_bytes_read",
	"rocksdb.stall.micros":        "stall_micros",
	"rocksdb.wal.bytes":           "wal_bytes",
	"rocksdb.block.cache.hit":     "block_cache_hits",
	"rocksdb.block.cache.miss":    "block_cache_misses",
}

// Stats returns the engine's counters: the LSM's debt from its properties
// (pending_compaction_bytes, l0_files, compactions_running, flushes_running,
// memtable_bytes, immutable_memtables, write_stopped, delayed_write_rate, live_sst_bytes), its
// memory (block_cache_bytes, block_cache_pinned_bytes, memtables_all_bytes with the memtables
// iterators still pin, table_readers_bytes), glibc malloc's of the process (malloc_in_use_bytes,
// malloc_free_bytes: freed but kept in its heaps) and the bytes written by flush and compaction,
// stall time, WAL bytes and block cache hits from its statistics.
func (d *db) Stats(context.Context) (map[string]float64, error) {
	if err := d.guard.Enter("stats"); err != nil {
		return nil, err
	}
	defer d.guard.Leave()
	m := map[string]float64{
		"pending_compaction_bytes": d.intProp("rocksdb.estimate-pending-compaction-bytes"),
		"l0_files":                 d.intProp("rocksdb.num-files-at-level0"),
		"compactions_running":      d.intProp("rocksdb.num-running-compactions"),
		"flushes_running":          d.intProp("rocksdb.num-running-flushes"),
		"memtable_bytes":           d.intProp("rocksdb.cur-size-all-mem-tables"),
		"immutable_memtables":      d.intProp("rocksdb.num-immutable-mem-table"),
		"write_stopped":            d.intProp("rocksdb.is-write-stopped"),
		"delayed_write_rate":       d.intProp("rocksdb.actual-delayed-write-rate"),
		"live_sst_bytes":           d.intProp("rocksdb.live-sst-files-size"),
		"block_cache_bytes":        d.intProp("rocksdb.block-cache-usage"),
		"block_cache_pinned_bytes": d.intProp("rocksdb.block-cache-pinned-usage"),
		"memtables_all_bytes":      d.intProp("rocksdb.size-all-mem-tables"),
		"table_readers_bytes":      d.intProp("rocksdb.estimate-table-readers-mem"),
	}
	if inUse, free, ok := malloc.Stats(); ok {
		m["malloc_in_use_bytes"], m["malloc_free_bytes"] = inUse, free
	}
	for _, line := range strings.Split(d.opts.GetStatisticsString(), "\n") {
		// "rocksdb.flush.write.bytes COUNT : 1234"
		name, rest, ok := strings.Cut(line, " COUNT : ")
		if key, want := statistics[strings.TrimSpace(name)]; ok && want {
			if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
				m[key] = v
			}
		}
	}
	return m, nil
}

// settings returns the effective settings in the normalized form of their values.
func (c config) settings() map[string]string {
	return map[string]string{
		settingCacheMB:              strconv.Itoa(c.cacheMB),
		settingMemtableMB:           strconv.Itoa(c.memtableMB),
		settingMaxWriteBufferNumber: strconv.Itoa(c.maxWriteBufferNumber),
		settingCompression:          c.compression,
		settingSync:                 strconv.FormatBool(c.sync),
		settingMaxBackgroundJobs:    strconv.Itoa(c.maxBackgroundJobs),
		settingL0CompactionTrigger:  strconv.Itoa(c.l0Compaction),
		settingL0SlowdownWritesTrig: strconv.Itoa(c.l0Slowdown),
		settingL0StopWritesTrigger:  strconv.Itoa(c.l0Stop),
		settingBytesPerSync:         strconv.Itoa(c.bytesPerSync),
		settingBloomBitsPerKey:      strconv.Itoa(c.bloomBitsPerKey),
		settingDynamicLevelBytes:    strconv.FormatBool(c.dynamicLevelBytes),
		settingDirectReads:          strconv.FormatBool(c.directReads),
		settingDirectFlush:          strconv.FormatBool(c.directFlush),
		settingCacheIndexFilter:     strconv.FormatBool(c.cacheIndex),
		settingPartitionIndex:       strconv.FormatBool(c.partitionIndex),
	}
}

// Cgo implements engine.Cgo: the library is C, reached through cgo.
func (*db) Cgo() {}
