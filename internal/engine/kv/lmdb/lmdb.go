//go:build lmdb && cgo

package lmdb

/*
#cgo pkg-config: lmdb
#include <stdlib.h>
#include <stdint.h>
#include <lmdb.h>

// eb_open creates and opens the environment in dir and opens its main database.
static int eb_open(const char *dir, size_t mapsize, unsigned int maxreaders, unsigned int flags,
                   MDB_env **env, MDB_dbi *dbi) {
	int rc = mdb_env_create(env);
	if (rc) return rc;
	if ((rc = mdb_env_set_mapsize(*env, mapsize)) ||
	    (rc = mdb_env_set_maxreaders(*env, maxreaders)) ||
	    (rc = mdb_env_open(*env, dir, flags, 0644))) {
		mdb_env_close(*env);
		*env = NULL;
		return rc;
	}
	MDB_txn *txn;
	if ((rc = mdb_txn_begin(*env, NULL, 0, &txn))) goto fail;
	if ((rc = mdb_dbi_open(txn, NULL, 0, dbi))) { mdb_txn_abort(txn); goto fail; }
	if ((rc = mdb_txn_commit(txn))) goto fail;
	return 0;
fail:
	mdb_env_close(*env);
	*env = NULL;
	return rc;
}

// eb_apply applies a batch in one write transaction: op i is ops[5i..5i+4] = kind (0 put,
// 1 delete), key offset, key length, value offset, value length in buf. *failed is the index
// of the op that failed, or -1.
static int eb_apply(MDB_env *env, MDB_dbi dbi, const char *buf, const int64_t *ops, int nops, int *failed) {
	MDB_txn *txn;
	*failed = -1;
	int rc = mdb_txn_begin(env, NULL, 0, &txn);
	if (rc) return rc;
	for (int i = 0; i < nops; i++) {
		const int64_t *op = ops + 5*i;
		MDB_val k = { (size_t)op[2], (void *)(buf + op[1]) };
		if (op[0] == 1) {
			rc = mdb_del(txn, dbi, &k, NULL);
			if (rc == MDB_NOTFOUND) rc = 0;
		} else {
			MDB_val v = { (size_t)op[4], (void *)(buf + op[3]) };
			rc = mdb_put(txn, dbi, &k, &v, 0);
		}
		if (rc) {
			*failed = i;
			mdb_txn_abort(txn);
			return rc;
		}
	}
	return mdb_txn_commit(txn);
}

// eb_get looks key up in a new read transaction, which the caller aborts after copying the
// value.
// eb_got is eb_get's result, returned by value: a Go local whose address went to C would be
// allocated on the heap at every Get.
typedef struct { int rc; MDB_txn *txn; MDB_val val; } eb_got;

// eb_get looks key up in a new read transaction; on success the value points into the map and
// the transaction stays open until the caller aborts it.
static eb_got eb_get(MDB_env *env, MDB_dbi dbi, const char *key, size_t klen) {
	eb_got g = { 0, NULL, { 0, NULL } };
	g.rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &g.txn);
	if (g.rc) return g;
	MDB_val k = { klen, (void *)key };
	g.rc = mdb_get(g.txn, dbi, &k, &g.val);
	if (g.rc) {
		mdb_txn_abort(g.txn);
		g.txn = NULL;
	}
	return g;
}

// eb_cursor opens a read transaction and a cursor in it.
static int eb_cursor(MDB_env *env, MDB_dbi dbi, MDB_txn **txn, MDB_cursor **cur) {
	int rc = mdb_txn_begin(env, NULL, MDB_RDONLY, txn);
	if (rc) return rc;
	rc = mdb_cursor_open(*txn, dbi, cur);
	if (rc) {
		mdb_txn_abort(*txn);
		*txn = NULL;
	}
	return rc;
}

// eb_seek positions the cursor with op; for MDB_SET_RANGE, k holds the key to seek.
static int eb_seek(MDB_cursor *cur, const char *key, size_t klen, int op, MDB_val *k, MDB_val *v) {
	if (op == MDB_SET_RANGE) {
		k->mv_size = klen;
		k->mv_data = (void *)key;
	}
	return mdb_cursor_get(cur, k, v, (MDB_cursor_op)op);
}

static void eb_close_cursor(MDB_txn *txn, MDB_cursor *cur) {
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
}
*/
import "C"

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// errClosed is wrapped by the errors of operations on a closed engine.
var errClosed = kv.ErrClosed

// Error is an error of liblmdb: its return code and its message (mdb_strerror).
type Error struct {
	Op   string
	Code int
	Msg  string
}

func (e *Error) Error() string { return "lmdb: " + e.Op + ": " + e.Msg }

// mapFull is LMDB's MDB_MAP_FULL: the environment's map size is reached.
const mapFull = int(C.MDB_MAP_FULL)

// lmdbErr turns a return code into an *Error, nil for success.
func lmdbErr(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Msg: C.GoString(C.mdb_strerror(rc))}
}

// db is an open LMDB environment.
type db struct {
	env *C.MDB_env
	dbi C.MDB_dbi
	dir string
	cfg config
	// Base answers Family, Version and Settings.
	kv.Base
	// guard keeps Close from closing the environment under an operation or an iterator.
	guard kv.Guard
	// commits counts the write transactions committed.
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

// available checks that the linked liblmdb is the LMDB version the binding was compiled against
// (the major and minor versions of lmdb.h: LMDB's structures are the same within them), which
// matters when liblmdb is a shared library upgraded after the build.
func available() error {
	var major, minor, patch C.int
	C.mdb_version(&major, &minor, &patch)
	if major != C.MDB_VERSION_MAJOR || minor != C.MDB_VERSION_MINOR {
		return fmt.Errorf("its library is LMDB %d.%d.%d and this binary was built against LMDB %d.%d: rebuild it (make)",
			major, minor, patch, C.MDB_VERSION_MAJOR, C.MDB_VERSION_MINOR)
	}
	return nil
}

// open opens (or creates) the environment in cfg.DataDir.
func open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	if err := available(); err != nil {
		return nil, fmt.Errorf("lmdb: %w", err)
	}
	c, err := kv.OpenConfig(ctx, "lmdb", cfg, parseConfig)
	if err != nil {
		return nil, err
	}
	flags := C.uint(C.MDB_NOTLS)
	if !c.sync {
		flags |= C.MDB_NOSYNC
	}
	if c.writeMap {
		flags |= C.MDB_WRITEMAP
	}
	dir := C.CString(cfg.DataDir)
	defer C.free(unsafe.Pointer(dir))
	d := &db{dir: cfg.DataDir, cfg: c, Base: kv.NewBase("lmdb", version(), c.settings()), guard: kv.Guard{Name: "lmdb"}}
	rc := C.eb_open(dir, C.size_t(c.mapSizeMB)<<20, C.uint(c.maxReaders), flags, &d.env, &d.dbi)
	if err := lmdbErr("open "+cfg.DataDir, rc); err != nil {
		return nil, err
	}
	return d, nil
}

// version returns liblmdb's version, e.g. "0.9.24".
func version() string {
	v, _ := versions()
	return v
}

// versions returns liblmdb's version and its own version string,
// e.g. "LMDB 0.9.24: (July 24, 2019)".
func versions() (version, banner string) {
	var major, minor, patch C.int
	b := C.mdb_version(&major, &minor, &patch)
	return fmt.Sprintf("%d.%d.%d", major, minor, patch), C.GoString(b)
}

// Build records liblmdb's version and version string: the binding is enginebench's own, no Go
// module.
func (d *db) Build() map[string]string {
	v, banner := versions()
	b := engine.EmbeddedBuild("lmdb", v, "")
	if banner != "" {
		b[engine.BuildLibraryBanner] = banner
	}
	return b
}

// Close closes the environment once no operation runs. It fails while iterators are open, and
// a second time.
func (d *db) Close() error {
	return d.guard.Close(d.dir, func() error {
		C.mdb_env_close(d.env)
		d.env = nil
		return nil
	})
}

// cbytes returns a pointer to b's first byte for C, or nil for an empty b.
func cbytes(b []byte) *C.char { return (*C.char)(kv.CPtr(b)) }

// goBytes returns the bytes of an MDB_val, pointing into the map: valid until the transaction
// ends (or the cursor moves).
func goBytes(v C.MDB_val) []byte { return kv.CBytes(v.mv_data, int(v.mv_size)) }

// Get appends the value of key to dst.
func (d *db) Get(key, dst []byte) ([]byte, bool, error) {
	if err := d.guard.Enter("get"); err != nil {
		return dst, false, err
	}
	defer d.guard.Leave()
	g := C.eb_get(d.env, d.dbi, cbytes(key), C.size_t(len(key)))
	rc := g.rc
	if rc == C.MDB_NOTFOUND {
		return dst, false, nil
	}
	if err := lmdbErr("get", rc); err != nil {
		return dst, false, err
	}
	dst = append(dst, goBytes(g.val)...)
	C.mdb_txn_abort(g.txn)
	return dst, true, nil
}

// NewBatch returns an empty write batch.
func (d *db) NewBatch() kv.Batch { return &batch{d: d} }

// batch collects writes in a kv.OpBuffer, which eb_apply reads as it is.
type batch struct {
	d *db
	kv.OpBuffer
	failed C.int // the failing op of a commit (a field, so that passing it to C allocates nothing)
}

// Commit applies the batch in one write transaction, then empties it. A full map fails with
// an error that says which setting to raise.
func (b *batch) Commit() error {
	defer b.Reset()
	if b.Len() == 0 {
		return nil
	}
	d := b.d
	if err := d.guard.Enter("commit"); err != nil {
		return err
	}
	defer d.guard.Leave()
	rc := C.eb_apply(d.env, d.dbi, cbytes(b.Bytes()), (*C.int64_t)(unsafe.Pointer(&b.Ops()[0])), C.int(b.Len()), &b.failed)
	if rc != 0 {
		err := lmdbErr("commit", rc)
		if int(b.failed) >= 0 {
			_, key, _ := b.Op(int(b.failed))
			err = fmt.Errorf("%w (key %q)", err, key)
		}
		if int(rc) == mapFull {
			err = fmt.Errorf("%w: the map is full (%s=%d MiB): raise %s", err, settingMapSizeMB, d.cfg.mapSizeMB, settingMapSizeMB)
		}
		return err
	}
	d.commits.Add(1)
	return nil
}

// Close releases the batch.
func (b *batch) Close() error {
	b.Release()
	return nil
}

// cursor is an LMDB cursor in its own read transaction, until Close; its entries point into the
// map. The engine does not close under an open iterator.
type cursor struct {
	d   *db
	txn *C.MDB_txn
	cur *C.MDB_cursor
	// k and v receive the entry from C (fields: no allocation per move).
	k, v C.MDB_val
}

// NewIter returns an iterator over [lower, upper). It copies the bounds.
func (d *db) NewIter(lower, upper []byte) (kv.Iter, error) {
	if err := d.guard.Enter("new iterator"); err != nil {
		return nil, err
	}
	defer d.guard.Leave()
	c := &cursor{d: d}
	if rc := C.eb_cursor(d.env, d.dbi, &c.txn, &c.cur); rc != 0 {
		return nil, lmdbErr("new iterator", rc)
	}
	d.guard.IterOpened()
	return kv.NewBoundedIter(c, lower, upper), nil
}

// move runs one cursor operation (key: MDB_SET_RANGE's) and returns the entry it lands on.
func (c *cursor) move(op C.int, key []byte) ([]byte, []byte, bool, error) {
	// Cleared first: after a seek the key may still point at the Go bytes searched for, and
	// cgo refuses Go memory that holds a Go pointer.
	c.k, c.v = C.MDB_val{}, C.MDB_val{}
	rc := C.eb_seek(c.cur, cbytes(key), C.size_t(len(key)), op, &c.k, &c.v)
	if rc == C.MDB_NOTFOUND {
		return nil, nil, false, nil
	}
	if err := lmdbErr("iterate", rc); err != nil {
		return nil, nil, false, err
	}
	return goBytes(c.k), goBytes(c.v), true, nil
}

func (c *cursor) First() ([]byte, []byte, bool, error) { return c.move(C.MDB_FIRST, nil) }
func (c *cursor) Last() ([]byte, []byte, bool, error)  { return c.move(C.MDB_LAST, nil) }
func (c *cursor) Next() ([]byte, []byte, bool, error)  { return c.move(C.MDB_NEXT, nil) }
func (c *cursor) Prev() ([]byte, []byte, bool, error)  { return c.move(C.MDB_PREV, nil) }

// SeekGE moves to the first key >= key (LMDB has no empty key: every key is >= it).
func (c *cursor) SeekGE(key []byte) ([]byte, []byte, bool, error) {
	if len(key) == 0 {
		return c.First()
	}
	return c.move(C.MDB_SET_RANGE, key)
}

// Close ends the cursor's read transaction.
func (c *cursor) Close() error {
	C.eb_close_cursor(c.txn, c.cur)
	c.d.guard.IterClosed()
	return nil
}

// Cleanup flushes the environment to the disk (mdb_env_sync, forced), LMDB's analogue of the
// servers' cleanup: LMDB keeps no other debt (no compaction, no checkpoint, no statistics);
// freed pages are reused in place. The caller's wait comes after it.
func (d *db) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("lmdb: cleanup: %w", err)
	}
	if err := d.guard.Enter("cleanup"); err != nil {
		return err
	}
	defer d.guard.Leave()
	t0 := time.Now()
	if err := lmdbErr("cleanup: sync", C.mdb_env_sync(d.env, 1)); err != nil {
		return err
	}
	h.Notef("mdb_env_sync (forced): %.1f s", time.Since(t0).Seconds())
	return nil
}

// Stats returns the engine's counters:
//
//	map_size_bytes  the map's size (map_size_mb)
//	pages_in_use    pages of the file in use (the last page number + 1), of page_size bytes
//	page_size       the page size
//	tree_depth      depth of the B+tree
//	branch_pages, leaf_pages, overflow_pages   pages of each kind in the tree
//	entries         keys stored
//	readers         reader slots in use
//	write_txs       write transactions committed (batches)
func (d *db) Stats(context.Context) (map[string]float64, error) {
	if err := d.guard.Enter("stats"); err != nil {
		return nil, err
	}
	defer d.guard.Leave()
	var st C.MDB_stat
	var info C.MDB_envinfo
	if err := lmdbErr("stats", C.mdb_env_stat(d.env, &st)); err != nil {
		return nil, err
	}
	if err := lmdbErr("stats", C.mdb_env_info(d.env, &info)); err != nil {
		return nil, err
	}
	return map[string]float64{
		"map_size_bytes": float64(info.me_mapsize),
		"pages_in_use":   float64(info.me_last_pgno) + 1,
		"page_size":      float64(st.ms_psize),
		"tree_depth":     float64(st.ms_depth),
		"branch_pages":   float64(st.ms_branch_pages),
		"leaf_pages":     float64(st.ms_leaf_pages),
		"overflow_pages": float64(st.ms_overflow_pages),
		"entries":        float64(st.ms_entries),
		"readers":        float64(info.me_numreaders),
		"write_txs":      float64(d.commits.Load()),
	}, nil
}

// IsDataFile reports whether rel (relative to the data directory) is the data file, not the
// lock file.
func (d *db) IsDataFile(rel string) bool { return filepath.Clean(rel) == "data.mdb" }

// settings returns the effective settings in the normalized form of their values.
func (c config) settings() map[string]string {
	return map[string]string{
		settingMapSizeMB:  strconv.Itoa(c.mapSizeMB),
		settingSync:       strconv.FormatBool(c.sync),
		settingMaxReaders: strconv.Itoa(c.maxReaders),
		settingWriteMap:   strconv.FormatBool(c.writeMap),
	}
}

// Cgo implements engine.Cgo: the library is C, reached through cgo.
func (*db) Cgo() {}

// bareEnv calls the binding's C functions directly, without the engine's Go layers (the
// guard, kv.Iter's bounds, the batch's buffer type): the floor that BenchmarkAdapterFloor puts
// kv.DB beside. One goroutine uses it.
type bareEnv struct {
	env *C.MDB_env
	dbi C.MDB_dbi
	// txn, cur, k and v receive results from C (fields: no allocation per call).
	txn    *C.MDB_txn
	cur    *C.MDB_cursor
	k, v   C.MDB_val
	failed C.int
	buf    []byte
	ops    []int64
}

// get appends key's value to dst: one read transaction, as eb_get makes it.
func (e *bareEnv) get(key, dst []byte) ([]byte, bool, error) {
	g := C.eb_get(e.env, e.dbi, cbytes(key), C.size_t(len(key)))
	if g.rc == C.MDB_NOTFOUND {
		return dst, false, nil
	}
	if err := lmdbErr("get", g.rc); err != nil {
		return dst, false, err
	}
	dst = append(dst, goBytes(g.val)...)
	C.mdb_txn_abort(g.txn)
	return dst, true, nil
}

// scan reads at most n entries from the first key >= start below upper, with a cursor in a read
// transaction of its own.
func (e *bareEnv) scan(_, upper, start []byte, n int) (int, error) {
	if rc := C.eb_cursor(e.env, e.dbi, &e.txn, &e.cur); rc != 0 {
		return 0, lmdbErr("cursor", rc)
	}
	got := 0
	e.k, e.v = C.MDB_val{}, C.MDB_val{}
	rc := C.eb_seek(e.cur, cbytes(start), C.size_t(len(start)), C.MDB_SET_RANGE, &e.k, &e.v)
	for rc == 0 && got < n && string(goBytes(e.k)) < string(upper) {
		got++
		rc = C.eb_seek(e.cur, nil, 0, C.MDB_NEXT, &e.k, &e.v)
	}
	C.eb_close_cursor(e.txn, e.cur)
	if rc != 0 && rc != C.MDB_NOTFOUND {
		return got, lmdbErr("iterate", rc)
	}
	return got, nil
}

// write puts every key = val in one write transaction: eb_apply, on the keys and values laid
// out as it reads them.
func (e *bareEnv) write(keys [][]byte, val []byte) error {
	e.buf, e.ops = e.buf[:0], e.ops[:0]
	for _, k := range keys {
		off := int64(len(e.buf))
		e.buf = append(append(e.buf, k...), val...)
		e.ops = append(e.ops, kv.OpSet, off, int64(len(k)), off+int64(len(k)), int64(len(val)))
	}
	rc := C.eb_apply(e.env, e.dbi, cbytes(e.buf), (*C.int64_t)(unsafe.Pointer(&e.ops[0])), C.int(len(keys)), &e.failed)
	return lmdbErr("commit", rc)
}
