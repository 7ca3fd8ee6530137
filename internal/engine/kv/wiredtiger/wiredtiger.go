//go:build wiredtiger && cgo

package wiredtiger

/*
#cgo pkg-config: wiredtiger
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <wiredtiger.h>

enum { EB_FIRST, EB_LAST, EB_GE, EB_NEXT, EB_PREV };

// The library's error and informational messages are not printed: every error also comes back
// as a return code, which the engine turns into a Go error with wiredtiger_strerror's message.
static int eb_quiet_error(WT_EVENT_HANDLER *h, WT_SESSION *s, int error, const char *msg) { return 0; }
static int eb_quiet_message(WT_EVENT_HANDLER *h, WT_SESSION *s, const char *msg) { return 0; }
static WT_EVENT_HANDLER eb_quiet = { eb_quiet_error, eb_quiet_message, NULL, NULL };

static int eb_open(const char *home, const char *config, WT_CONNECTION **conn) {
	return wiredtiger_open(home, &eb_quiet, config, conn);
}
static int eb_conn_close(WT_CONNECTION *conn) { return conn->close(conn, NULL); }

static int eb_session(WT_CONNECTION *conn, WT_SESSION **s) {
	return conn->open_session(conn, &eb_quiet, "isolation=snapshot", s);
}
static int eb_create(WT_SESSION *s, const char *uri, const char *config) { return s->create(s, uri, config); }
static int eb_open_cursor(WT_SESSION *s, const char *uri, WT_CURSOR **c) {
	return s->open_cursor(s, uri, NULL, NULL, c);
}
static int eb_metadata(WT_SESSION *s, WT_CURSOR **c) { return s->open_cursor(s, "metadata:", NULL, NULL, c); }
// eb_next_key moves c to its next entry and returns its string key.
static int eb_next_key(WT_CURSOR *c, const char **key) {
	int rc = c->next(c);
	if (rc == 0) rc = c->get_key(c, key);
	return rc;
}
static int eb_cursor_close(WT_CURSOR *c) { return c->close(c); }
static int eb_session_close(WT_SESSION *s) { return s->close(s, NULL); }
static int eb_begin(WT_SESSION *s) { return s->begin_transaction(s, "isolation=snapshot"); }
static int eb_rollback(WT_SESSION *s) { return s->rollback_transaction(s, NULL); }
static int eb_reset(WT_CURSOR *c) { return c->reset(c); }
static int eb_checkpoint(WT_SESSION *s) { return s->checkpoint(s, NULL); }

// eb_apply applies a batch in one transaction: op i is ops[5i..5i+4] = kind (0 put, 1 delete),
// key offset, key length, value offset, value length in buf, on cursor cs[tables[i]]. Every cursor
// of cs (ncs of them, NULL for none) is reset at the end. *failed is the failing op or -1.
static int eb_apply(WT_SESSION *s, WT_CURSOR **cs, int ncs, const int *tables, const char *buf, const int64_t *ops, int nops, int *failed) {
	*failed = -1;
	int rc = s->begin_transaction(s, "isolation=snapshot");
	if (rc) return rc;
	for (int i = 0; i < nops && rc == 0; i++) {
		const int64_t *op = ops + 5*i;
		WT_CURSOR *c = cs[tables[i]];
		WT_ITEM k;
		memset(&k, 0, sizeof k);
		k.data = buf + op[1];
		k.size = (size_t)op[2];
		c->set_key(c, &k);
		if (op[0] == 1) {
			rc = c->remove(c);
			if (rc == WT_NOTFOUND) rc = 0;
		} else {
			WT_ITEM v;
			memset(&v, 0, sizeof v);
			v.data = buf + op[3];
			v.size = (size_t)op[4];
			c->set_value(c, &v);
			rc = c->insert(c);
		}
		if (rc) *failed = i;
	}
	for (int i = 0; i < ncs; i++)
		if (cs[i]) cs[i]->reset(cs[i]);
	if (rc) {
		s->rollback_transaction(s, NULL);
		return rc;
	}
	return s->commit_transaction(s, NULL);
}

// eb_get looks key up; the value stays valid until the cursor is reset.
static int eb_get(WT_CURSOR *c, const char *key, size_t klen, WT_ITEM *v) {
	WT_ITEM k;
	memset(&k, 0, sizeof k);
	k.data = key;
	k.size = klen;
	c->set_key(c, &k);
	int rc = c->search(c);
	if (rc == 0) rc = c->get_value(c, v);
	return rc;
}

static int eb_cmp(const WT_ITEM *a, const char *b, size_t blen) {
	size_t n = a->size < blen ? a->size : blen;
	int r = n ? memcmp(a->data, b, n) : 0;
	if (r) return r;
	return a->size < blen ? -1 : (a->size > blen ? 1 : 0);
}

// eb_seek moves the cursor (EB_GE: to the first key >= key) and reads its entry.
static int eb_seek(WT_CURSOR *c, int op, const char *key, size_t klen, WT_ITEM *k, WT_ITEM *v) {
	int rc, exact;
	switch (op) {
	case EB_FIRST: c->reset(c); rc = c->next(c); break;
	case EB_LAST: c->reset(c); rc = c->prev(c); break;
	case EB_NEXT: rc = c->next(c); break;
	case EB_PREV: rc = c->prev(c); break;
	default: {
		WT_ITEM sk;
		memset(&sk, 0, sizeof sk);
		sk.data = key;
		sk.size = klen;
		c->set_key(c, &sk);
		rc = c->search_near(c, &exact);
		if (rc == 0 && exact < 0) rc = c->next(c);
		// The nearest key is a neighbour of the search key; skip smaller ones all the same.
		while (rc == 0 && (rc = c->get_key(c, k)) == 0 && eb_cmp(k, key, klen) < 0) rc = c->next(c);
	}
	}
	if (rc == 0) rc = c->get_key(c, k);
	if (rc == 0) rc = c->get_value(c, v);
	return rc;
}

// eb_stats reads n connection statistics.
static int eb_stats(WT_SESSION *s, const int *keys, int n, int64_t *out) {
	WT_CURSOR *c;
	int rc = s->open_cursor(s, "statistics:", NULL, NULL, &c);
	if (rc) return rc;
	for (int i = 0; i < n && rc == 0; i++) {
		const char *desc, *pvalue;
		c->set_key(c, keys[i]);
		if ((rc = c->search(c)) == 0) rc = c->get_value(c, &desc, &pvalue, &out[i]);
	}
	c->close(c);
	return rc;
}
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/malloc"
)

// defaultURI is the table of every key outside the declared ranges.
const defaultURI = "table:kv"

// rangePrefix starts the name of a declared range's table:
// table:kv_<prefix in hex>_<table|index>_<range name>.
const rangePrefix = "table:kv_"

// maxConflictRetries bounds the retries of a batch that WiredTiger rolled back for a write
// conflict with a concurrent transaction.
const maxConflictRetries = 1000

// errClosed is wrapped by the errors of operations on a closed engine.
var errClosed = kv.ErrClosed

// Error is an error of libwiredtiger: its return code and its message (wiredtiger_strerror).
type Error struct {
	Op   string
	Code int
	Msg  string
}

func (e *Error) Error() string { return "wiredtiger: " + e.Op + ": " + e.Msg }

func wtErr(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Msg: C.GoString(C.wiredtiger_strerror(rc))}
}

// tables is the engine's tables and which keys each holds; it is replaced, never changed.
type tables struct {
	layout *kv.Layout
	// ids holds, by layout part, the number of the part's table.
	ids []int
	// uris holds the tables by number: table 0 is defaultURI, then the ranges' tables in the
	// order they were created, so that a number stays valid as ranges are added.
	uris []string
}

// rangeURI returns the table of range r.
func rangeURI(r kv.Range) string {
	kind := "table"
	if r.Secondary {
		kind = "index"
	}
	return rangePrefix + hex.EncodeToString(r.Prefix) + "_" + kind + "_" + r.Name
}

// parseRangeURI is the inverse of rangeURI.
func parseRangeURI(uri string) (kv.Range, error) {
	parts := strings.SplitN(strings.TrimPrefix(uri, rangePrefix), "_", 3)
	if len(parts) != 3 || (parts[1] != "table" && parts[1] != "index") {
		return kv.Range{}, fmt.Errorf("table %s: not a key range's table", uri)
	}
	prefix, err := hex.DecodeString(parts[0])
	if err != nil {
		return kv.Range{}, fmt.Errorf("table %s: %w", uri, err)
	}
	return kv.Range{Name: parts[2], Prefix: prefix, Secondary: parts[1] == "index"}, nil
}

// with returns t with the added ranges of layout l, whose tables are new.
func (t *tables) with(l *kv.Layout, added []kv.Range) *tables {
	next := &tables{layout: l, uris: append([]string{}, t.uris...)}
	for _, r := range added {
		next.uris = append(next.uris, rangeURI(r))
	}
	num := make(map[string]int, len(next.uris))
	for i, u := range next.uris {
		num[u] = i
	}
	next.ids = []int{0}
	for _, r := range l.Ranges() {
		next.ids = append(next.ids, num[rangeURI(r)])
	}
	return next
}

// session is a WiredTiger session with its cursors, opened as they are first needed, by table
// number; one goroutine uses it at a time.
type session struct {
	s       *C.WT_SESSION
	cursors []*C.WT_CURSOR
	// item and failed receive results from C: fields, so that a call allocates nothing (a
	// local variable whose address goes to C escapes to the heap).
	item   C.WT_ITEM
	failed C.int
}

// cursor returns the session's cursor on table number id of t, opening it the first time.
func (s *session) cursor(t *tables, id int) (*C.WT_CURSOR, error) {
	if id < len(s.cursors) && s.cursors[id] != nil {
		return s.cursors[id], nil
	}
	if id >= len(s.cursors) {
		s.cursors = append(s.cursors, make([]*C.WT_CURSOR, len(t.uris)-len(s.cursors))...)
	}
	curi := C.CString(t.uris[id])
	defer C.free(unsafe.Pointer(curi))
	if err := wtErr("open a cursor on "+t.uris[id], C.eb_open_cursor(s.s, curi, &s.cursors[id])); err != nil {
		return nil, err
	}
	return s.cursors[id], nil
}

// db is an open WiredTiger connection.
type db struct {
	conn *C.WT_CONNECTION
	dir  string
	cfg  config
	// Base answers Family, Version and Settings.
	kv.Base
	// guard keeps Close from closing the connection under an operation or an iterator.
	guard kv.Guard
	// pool holds idle sessions.
	pool chan *session
	// tables is read by every operation; declare replaces it under declareMu.
	tables    atomic.Pointer[tables]
	declareMu sync.Mutex
	// trim is the malloc trimmer of an engine under a memory cap (nil without one).
	trim *malloc.Trimmer
}

// Compile-time checks of the interfaces the engine implements.
var (
	_ kv.DB          = (*db)(nil)
	_ kv.Ranger      = (*db)(nil)
	_ engine.Cleaner = (*db)(nil)
	_ engine.Statser = (*db)(nil)
	_ engine.Builder = (*db)(nil)
)

// open opens (or creates) the database in cfg.DataDir and its default table, and finds the
// tables of the ranges declared before.
func open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	c, err := kv.OpenConfig(ctx, "wiredtiger", cfg, parseConfig)
	if err != nil {
		return nil, err
	}
	connCfg := fmt.Sprintf("create,cache_size=%dMB,log=(enabled=true),transaction_sync=(enabled=%t,method=fsync),"+
		"statistics=(fast),eviction=(threads_max=%d),eviction_target=%d,eviction_trigger=%d,"+
		"eviction_dirty_target=%d,eviction_dirty_trigger=%d",
		c.cacheMB, c.sync, c.evictionThreads, c.evictionTarget, c.evictionTrigger, c.dirtyTarget, c.dirtyTrigger)
	if c.checkpointSecs > 0 {
		connCfg += fmt.Sprintf(",checkpoint=(wait=%d)", c.checkpointSecs)
	}
	if len(c.directIO) > 0 {
		connCfg += ",direct_io=[" + strings.Join(c.directIO, ",") + "]"
	}
	connCfg += extensionConfig(c.compression)
	if cfg.MemoryLimit > 0 {
		if err := malloc.Tune(); err != nil {
			return nil, err
		}
	}
	home, ccfg := C.CString(cfg.DataDir), C.CString(connCfg)
	defer C.free(unsafe.Pointer(home))
	defer C.free(unsafe.Pointer(ccfg))
	d := &db{dir: cfg.DataDir, cfg: c, Base: kv.NewBase("wiredtiger", version(), c.settings()),
		guard: kv.Guard{Name: "wiredtiger"}, pool: make(chan *session, 256)}
	if err := wtErr("open "+cfg.DataDir, C.eb_open(home, ccfg, &d.conn)); err != nil {
		return nil, err
	}
	s, err := d.newSession()
	if err == nil {
		err = d.load(s)
	}
	if err != nil {
		C.eb_conn_close(d.conn)
		return nil, err
	}
	d.put(s)
	if cfg.MemoryLimit > 0 {
		d.trim = malloc.StartTrimmer()
	}
	return d, nil
}

// tableConfig is the configuration that creates a table of type typ ("btree" or "lsm").
func (c config) tableConfig(typ string) string {
	create := "key_format=u,value_format=u" // a B-tree (type=file)
	if c.compression != "none" {
		create += ",block_compressor=" + c.compression
	}
	if typ == "lsm" {
		create += fmt.Sprintf(",type=lsm,lsm=(chunk_size=%dMB)", c.lsmChunkMB)
	}
	return create
}

// create creates table uri with the configuration that typ gives, when it does not exist.
func (d *db) create(s *session, uri, typ string) error {
	curi, ccreate := C.CString(uri), C.CString(d.cfg.tableConfig(typ))
	defer C.free(unsafe.Pointer(curi))
	defer C.free(unsafe.Pointer(ccreate))
	if err := wtErr("create "+uri, C.eb_create(s.s, curi, ccreate)); err != nil {
		return fmt.Errorf("%w (%s)", err, d.cfg.tableConfig(typ))
	}
	return nil
}

// load creates the default table when it does not exist, and finds the ranges' tables in
// WiredTiger's metadata.
func (d *db) load(s *session) error {
	if err := d.create(s, defaultURI, d.cfg.tableType); err != nil {
		return err
	}
	var meta *C.WT_CURSOR
	if err := wtErr("read the metadata", C.eb_metadata(s.s, &meta)); err != nil {
		return err
	}
	defer C.eb_cursor_close(meta)
	var ranges []kv.Range
	for {
		var key *C.char
		rc := C.eb_next_key(meta, &key)
		if rc == C.WT_NOTFOUND {
			break
		}
		if err := wtErr("read the metadata", rc); err != nil {
			return err
		}
		if uri := C.GoString(key); strings.HasPrefix(uri, rangePrefix) {
			r, err := parseRangeURI(uri)
			if err != nil {
				return fmt.Errorf("wiredtiger: open %s: %w", d.dir, err)
			}
			ranges = append(ranges, r)
		}
	}
	empty, _ := kv.NewLayout(nil)
	l, added, err := empty.With(ranges)
	if err != nil {
		return fmt.Errorf("wiredtiger: open %s: the tables' key ranges: %w", d.dir, err)
	}
	d.tables.Store((&tables{layout: empty, uris: []string{defaultURI}, ids: []int{0}}).with(l, added))
	return nil
}

// DeclareRanges creates a table for each range not declared before: of table_type for a table's
// rows, of index_type for a secondary index.
func (d *db) DeclareRanges(ranges []kv.Range) error {
	if err := d.guard.Enter("declare key ranges"); err != nil {
		return err
	}
	defer d.guard.Leave()
	d.declareMu.Lock()
	defer d.declareMu.Unlock()
	t := d.tables.Load()
	l, added, err := t.layout.With(ranges)
	if err != nil {
		return fmt.Errorf("wiredtiger: %w", err)
	}
	if len(added) == 0 {
		return nil
	}
	s, err := d.get()
	if err != nil {
		return err
	}
	defer d.put(s)
	for _, r := range added {
		typ := d.cfg.tableType
		if r.Secondary {
			typ = d.cfg.indexType
		}
		if err := d.create(s, rangeURI(r), typ); err != nil {
			return err
		}
	}
	d.tables.Store(t.with(l, added))
	return nil
}

// newSession opens a session.
func (d *db) newSession() (*session, error) {
	s := &session{}
	if err := wtErr("open session", C.eb_session(d.conn, &s.s)); err != nil {
		return nil, err
	}
	return s, nil
}

// acquire enters the guard for op and takes a session; release gives both back.
func (d *db) acquire(op string) (*session, error) {
	if err := d.guard.Enter(op); err != nil {
		return nil, err
	}
	s, err := d.get()
	if err != nil {
		d.guard.Leave()
		return nil, err
	}
	return s, nil
}

// release gives back the session and the guard that acquire took.
func (d *db) release(s *session) {
	d.put(s)
	d.guard.Leave()
}

// get takes an idle session, or opens one. The caller is inside the guard.
func (d *db) get() (*session, error) {
	select {
	case s := <-d.pool:
		return s, nil
	default:
		return d.newSession()
	}
}

// put gives a session back to the pool, or closes it (and its cursors) when the pool is full.
func (d *db) put(s *session) {
	select {
	case d.pool <- s:
	default:
		C.eb_session_close(s.s)
	}
}

// available reports the engine available: libwiredtiger is linked in.
func available() error { return nil }

// version returns libwiredtiger's version, e.g. "3.2.1".
func version() string {
	v, _ := versions()
	return v
}

// versions returns libwiredtiger's version and its own version string,
// e.g. "WiredTiger 3.2.1: (August 27, 2019)".
func versions() (version, banner string) {
	var major, minor, patch C.int
	b := C.wiredtiger_version(&major, &minor, &patch)
	return fmt.Sprintf("%d.%d.%d", major, minor, patch), C.GoString(b)
}

// Build records libwiredtiger's version and version string: the binding is enginebench's own, no Go
// module.
func (d *db) Build() map[string]string {
	v, banner := versions()
	b := engine.EmbeddedBuild("wiredtiger", v, "")
	if banner != "" {
		b[engine.BuildLibraryBanner] = banner
	}
	return b
}

// Close closes the connection (and every session) once no operation runs. It fails while
// iterators are open, and a second time.
func (d *db) Close() error {
	return d.guard.Close(d.dir, func() error {
		for len(d.pool) > 0 {
			<-d.pool // the connection's close closes its sessions
		}
		err := wtErr("close "+d.dir, C.eb_conn_close(d.conn))
		d.conn = nil
		d.trim.Stop()
		return err
	})
}

// cbytes returns a pointer to b's first byte for C, or nil for an empty b.
func cbytes(b []byte) *C.char { return (*C.char)(kv.CPtr(b)) }

// goBytes returns the bytes of a WT_ITEM, valid until its cursor moves or is reset.
func goBytes(v C.WT_ITEM) []byte { return kv.CBytes(v.data, int(v.size)) }

// Get appends the value of key to dst.
func (d *db) Get(key, dst []byte) ([]byte, bool, error) {
	s, err := d.acquire("get")
	if err != nil {
		return dst, false, err
	}
	defer d.release(s)
	t := d.tables.Load()
	c, err := s.cursor(t, t.ids[t.layout.Find(key)])
	if err != nil {
		return dst, false, err
	}
	// &s.item in the call itself: cgo's pointer check then covers the field, not the session.
	rc := C.eb_get(c, cbytes(key), C.size_t(len(key)), &s.item)
	if rc == C.WT_NOTFOUND {
		C.eb_reset(c)
		return dst, false, nil
	}
	if rc != 0 {
		C.eb_reset(c)
		return dst, false, wtErr("get", rc)
	}
	dst = append(dst, goBytes(s.item)...)
	C.eb_reset(c)
	return dst, true, nil
}

// NewBatch returns an empty write batch.
func (d *db) NewBatch() kv.Batch { return &batch{d: d} }

// batch collects writes in a kv.OpBuffer, which eb_apply reads as it is.
type batch struct {
	d *db
	kv.OpBuffer
	tables []C.int // the table number of each op, filled at Commit
}

// Commit applies the batch in one transaction, then empties it. A transaction that WiredTiger
// rolls back for a write conflict with a concurrent one is applied again.
func (b *batch) Commit() error {
	defer b.Reset()
	if b.Len() == 0 {
		return nil
	}
	d := b.d
	s, err := d.acquire("commit")
	if err != nil {
		return err
	}
	defer d.release(s)
	t := d.tables.Load()
	b.tables = b.tables[:0]
	for i := range b.Len() {
		_, key, _ := b.Op(i)
		id := t.ids[t.layout.Find(key)]
		if _, err := s.cursor(t, id); err != nil {
			return err
		}
		b.tables = append(b.tables, C.int(id))
	}
	for attempt := 0; ; attempt++ {
		rc := C.eb_apply(s.s, &s.cursors[0], C.int(len(s.cursors)), &b.tables[0], cbytes(b.Bytes()),
			(*C.int64_t)(unsafe.Pointer(&b.Ops()[0])), C.int(b.Len()), &s.failed)
		if rc == C.WT_ROLLBACK && attempt < maxConflictRetries {
			continue
		}
		if rc != 0 {
			err := wtErr("commit", rc)
			if int(s.failed) >= 0 {
				_, key, _ := b.Op(int(s.failed))
				err = fmt.Errorf("%w (key %q)", err, key)
			}
			return err
		}
		return nil
	}
}

// Close releases the batch.
func (b *batch) Close() error {
	b.Release()
	b.tables = nil
	return nil
}

// refreshMoves is how many moves an iterator makes in one snapshot. WiredTiger 3.2 keeps in its
// cache every update newer than the oldest open snapshot: an iterator that held one snapshot
// while its own client wrote behind it (index creation does) stalled the writes. So a long scan
// takes a new snapshot every refreshMoves moves and goes on from the key it was on.
const refreshMoves = 1000

// iterSession is the session of an iterator, in a snapshot transaction (renewed every
// refreshMoves moves) until Close.
type iterSession struct {
	d *db
	s *session
}

// release ends the transaction and gives the session back.
func (is *iterSession) release() error {
	err := wtErr("close iterator", C.eb_rollback(is.s.s))
	is.d.put(is.s)
	is.d.guard.IterClosed()
	return err
}

// cursor is an iterator's cursor on one table.
type cursor struct {
	is    *iterSession
	c     *C.WT_CURSOR
	owner bool   // Close releases the session: the iterator's only cursor
	k     []byte // the key the cursor is on, to go on from after a renewal
	moves int
	saved []byte
	// key and val receive the entry from C (fields: no allocation per move).
	key, val C.WT_ITEM
}

// NewIter returns an iterator over [lower, upper). It copies the bounds. Over the keys of more
// than one table, it goes through each table's part of the bounds in turn, all in the one
// snapshot of its session.
func (d *db) NewIter(lower, upper []byte) (kv.Iter, error) {
	s, err := d.acquire("new iterator")
	if err != nil {
		return nil, err
	}
	defer d.guard.Leave() // the iterator keeps the session, not the guard (it counts as open)
	if err := wtErr("new iterator", C.eb_begin(s.s)); err != nil {
		d.put(s)
		return nil, err
	}
	d.guard.IterOpened()
	is := &iterSession{d: d, s: s}
	t := d.tables.Load()
	spans := t.layout.Split(lower, upper, nil)
	if len(spans) == 1 {
		c, err := s.cursor(t, t.ids[spans[0].Part])
		if err != nil {
			return nil, errors.Join(err, is.release())
		}
		return kv.NewBoundedIter(&cursor{is: is, c: c, owner: true}, lower, upper), nil
	}
	parts := make([]kv.Iter, len(spans))
	uppers := make([][]byte, len(spans))
	for i, sp := range spans {
		c, err := s.cursor(t, t.ids[sp.Part])
		if err != nil {
			return nil, errors.Join(err, is.release())
		}
		parts[i], uppers[i] = kv.NewBoundedIter(&cursor{is: is, c: c}, sp.Lower, sp.Upper), sp.Upper
	}
	return kv.NewConcatIter(parts, uppers, is.release), nil
}

// move runs one cursor move (key: EB_GE's) and returns the entry it lands on.
func (c *cursor) move(op C.int, key []byte) ([]byte, []byte, bool, error) {
	rc := C.eb_seek(c.c, op, cbytes(key), C.size_t(len(key)), &c.key, &c.val)
	c.k = nil
	if rc == C.WT_NOTFOUND {
		return nil, nil, false, nil
	}
	if err := wtErr("iterate", rc); err != nil {
		return nil, nil, false, err
	}
	c.k = goBytes(c.key)
	return c.k, goBytes(c.val), true, nil
}

func (c *cursor) First() ([]byte, []byte, bool, error) { c.moves = 0; return c.move(C.EB_FIRST, nil) }
func (c *cursor) Last() ([]byte, []byte, bool, error)  { c.moves = 0; return c.move(C.EB_LAST, nil) }
func (c *cursor) Next() ([]byte, []byte, bool, error)  { return c.step(C.EB_NEXT) }
func (c *cursor) Prev() ([]byte, []byte, bool, error)  { return c.step(C.EB_PREV) }

// SeekGE moves to the first key >= key (WiredTiger has no empty key: every key is >= it).
func (c *cursor) SeekGE(key []byte) ([]byte, []byte, bool, error) {
	c.moves = 0
	if len(key) == 0 {
		return c.move(C.EB_FIRST, nil)
	}
	return c.move(C.EB_GE, key)
}

// step moves to the next or previous key, first renewing the snapshot when it has served
// refreshMoves moves: it ends the transaction, begins a new one and finds the key it was on
// again (or, when that key was deleted meanwhile, the first key after it). The session's other
// cursors are reset with the transaction; an iterator positions a cursor before moving it.
func (c *cursor) step(op C.int) ([]byte, []byte, bool, error) {
	if c.moves++; c.moves < refreshMoves || c.k == nil {
		return c.move(op, nil)
	}
	c.moves = 0
	c.saved = append(c.saved[:0], c.k...)
	C.eb_reset(c.c)
	s := c.is.s.s
	if err := wtErr("iterate: renew the snapshot", C.eb_rollback(s)); err != nil {
		return nil, nil, false, err
	}
	if err := wtErr("iterate: renew the snapshot", C.eb_begin(s)); err != nil {
		return nil, nil, false, err
	}
	k, v, ok, err := c.move(C.EB_GE, c.saved)
	switch {
	case err != nil:
		return nil, nil, false, err
	case !ok: // nothing at or after the saved key any more
		if op == C.EB_NEXT {
			return nil, nil, false, nil
		}
		return c.move(C.EB_LAST, nil)
	case op == C.EB_NEXT && !bytes.Equal(k, c.saved):
		return k, v, true, nil // the saved key is gone: this is the one after it
	}
	return c.move(op, nil)
}

// Close resets the cursor; the iterator's only cursor also releases its session.
func (c *cursor) Close() error {
	C.eb_reset(c.c)
	if c.owner {
		return c.is.release()
	}
	return nil
}

// Cleanup takes a checkpoint, WiredTiger's analogue of the servers' cleanup: it writes its
// dirty pages and can drop the log before it. An LSM tree's merges run in the background on
// their own. The caller's wait comes after it.
func (d *db) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wiredtiger: cleanup: %w", err)
	}
	s, err := d.acquire("cleanup")
	if err != nil {
		return err
	}
	defer d.release(s)
	t0 := time.Now()
	if err := wtErr("cleanup: checkpoint", C.eb_checkpoint(s.s)); err != nil {
		return err
	}
	h.Notef("checkpoint: %.1f s", time.Since(t0).Seconds())
	return nil
}

// statKeys are the connection statistics Stats reports, by name.
var statKeys = []struct {
	name string
	key  C.int
}{
	{"cache_dirty_bytes", C.WT_STAT_CONN_CACHE_BYTES_DIRTY},
	{"cache_bytes", C.WT_STAT_CONN_CACHE_BYTES_INUSE},
	{"cache_max_bytes", C.WT_STAT_CONN_CACHE_BYTES_MAX},
	{"checkpoints", C.WT_STAT_CONN_TXN_CHECKPOINT},
	{"lsm_rows_merged", C.WT_STAT_CONN_LSM_ROWS_MERGED},
	{"lsm_work_units_done", C.WT_STAT_CONN_LSM_WORK_UNITS_DONE},
	{"lsm_work_queue_max", C.WT_STAT_CONN_LSM_WORK_QUEUE_MAX},
	{"log_bytes_written", C.WT_STAT_CONN_LOG_BYTES_WRITTEN},
	{"txn_commits", C.WT_STAT_CONN_TXN_COMMIT},
	{"txn_rollbacks", C.WT_STAT_CONN_TXN_ROLLBACK},
	{"txn_pinned_range", C.WT_STAT_CONN_TXN_PINNED_RANGE},
}

// Stats returns the engine's counters from WiredTiger's connection statistics: the cache's
// dirty and used bytes and its size, checkpoints, LSM merges (rows merged, work units done, the
// longest work queue), log bytes written, transactions committed and rolled back, and the range
// of transaction IDs the oldest snapshot pins (txn_pinned_range: the updates WiredTiger must
// keep for it; it grows while a snapshot is held open, --htap-transaction-seconds).
func (d *db) Stats(context.Context) (map[string]float64, error) {
	s, err := d.acquire("stats")
	if err != nil {
		return nil, err
	}
	defer d.release(s)
	keys := make([]C.int, len(statKeys))
	for i, k := range statKeys {
		keys[i] = k.key
	}
	vals := make([]C.int64_t, len(statKeys))
	if err := wtErr("stats", C.eb_stats(s.s, &keys[0], C.int(len(keys)), &vals[0])); err != nil {
		return nil, err
	}
	m := make(map[string]float64, len(statKeys))
	for i, k := range statKeys {
		m[k.name] = float64(vals[i])
	}
	if inUse, free, ok := malloc.Stats(); ok {
		m["malloc_in_use_bytes"], m["malloc_free_bytes"] = inUse, free
	}
	return m, nil
}

// settings returns the effective settings in the normalized form of their values.
func (c config) settings() map[string]string {
	return map[string]string{
		settingTableType:       c.tableType,
		settingIndexType:       c.indexType,
		settingCacheMB:         strconv.Itoa(c.cacheMB),
		settingSync:            strconv.FormatBool(c.sync),
		settingCompression:     c.compression,
		settingCheckpointSecs:  strconv.Itoa(c.checkpointSecs),
		settingLSMChunkMB:      strconv.Itoa(c.lsmChunkMB),
		settingEvictionThreads: strconv.Itoa(c.evictionThreads),
		settingEvictionTarget:  strconv.Itoa(c.evictionTarget),
		settingEvictionTrigger: strconv.Itoa(c.evictionTrigger),
		settingDirtyTarget:     strconv.Itoa(c.dirtyTarget),
		settingDirtyTrigger:    strconv.Itoa(c.dirtyTrigger),
		settingDirectIO:        strings.Join(c.directIO, ","),
	}
}

// Cgo implements engine.Cgo: the library is C, reached through cgo.
func (*db) Cgo() {}

// bareSession calls the binding's C functions directly on one session's cursor of one table,
// without the engine's Go layers (the guard, the session pool, the tables' lookup, kv.Iter's
// bounds, the batch's buffer type): the floor that BenchmarkAdapterFloor puts kv.DB beside.
// One goroutine uses it.
type bareSession struct {
	s *session
	c *C.WT_CURSOR
	// cs, tables, key, val and failed are eb_apply's and eb_seek's arguments and results.
	cs       [1]*C.WT_CURSOR
	tables   []C.int
	key, val C.WT_ITEM
	failed   C.int
	buf      []byte
	ops      []int64
}

// get appends key's value to dst and resets the cursor, as a point read does.
func (e *bareSession) get(key, dst []byte) ([]byte, bool, error) {
	rc := C.eb_get(e.c, cbytes(key), C.size_t(len(key)), &e.s.item)
	if rc == 0 {
		dst = append(dst, goBytes(e.s.item)...)
	}
	C.eb_reset(e.c)
	if rc == C.WT_NOTFOUND {
		return dst, false, nil
	}
	return dst, rc == 0, wtErr("get", rc)
}

// scan reads at most n entries from the first key >= start below upper, in a snapshot
// transaction of its own.
func (e *bareSession) scan(_, upper, start []byte, n int) (int, error) {
	if rc := C.eb_begin(e.s.s); rc != 0 {
		return 0, wtErr("begin", rc)
	}
	got := 0
	rc := C.eb_seek(e.c, C.EB_GE, cbytes(start), C.size_t(len(start)), &e.key, &e.val)
	for rc == 0 && got < n && string(goBytes(e.key)) < string(upper) {
		got++
		rc = C.eb_seek(e.c, C.EB_NEXT, nil, 0, &e.key, &e.val)
	}
	C.eb_reset(e.c)
	if rc2 := C.eb_rollback(e.s.s); rc == 0 || rc == C.WT_NOTFOUND {
		rc = rc2
	}
	return got, wtErr("iterate", rc)
}

// write puts every key = val in one transaction: eb_apply, on the keys and values laid out as
// it reads them.
func (e *bareSession) write(keys [][]byte, val []byte) error {
	e.buf, e.ops, e.tables = e.buf[:0], e.ops[:0], e.tables[:0]
	for _, k := range keys {
		off := int64(len(e.buf))
		e.buf = append(append(e.buf, k...), val...)
		e.ops = append(e.ops, kv.OpSet, off, int64(len(k)), off+int64(len(k)), int64(len(val)))
		e.tables = append(e.tables, 0)
	}
	rc := C.eb_apply(e.s.s, &e.cs[0], 1, &e.tables[0], cbytes(e.buf),
		(*C.int64_t)(unsafe.Pointer(&e.ops[0])), C.int(len(keys)), &e.failed)
	return wtErr("commit", rc)
}

// newBare opens a session of d with its cursor on the table that holds key.
func (d *db) newBare(key []byte) (*bareSession, error) {
	s, err := d.newSession()
	if err != nil {
		return nil, err
	}
	t := d.tables.Load()
	c, err := s.cursor(t, t.ids[t.layout.Find(key)])
	if err != nil {
		d.put(s)
		return nil, err
	}
	return &bareSession{s: s, c: c, cs: [1]*C.WT_CURSOR{c}}, nil
}
