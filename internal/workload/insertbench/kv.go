package insertbench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

// The KV layout is MyRocks': one key range per table and index, keyed by
// [table number (8 bytes)][index number (1 byte)] and then:
//
//	primary key:     transactionid                                   -> the other columns
//	marketsegment:   productid, customerid, price, transactionid     -> empty
//	registersegment: cashregisterid, customerid, price, transactionid -> empty
//	pdc:             price, dateandtime, customerid, transactionid   -> empty
//
// int columns take 4 bytes and bigint columns 8, all order-preserving (sign bit flipped, big
// endian). The primary key value holds dateandtime, cashregisterid, customerid, productid and
// price in fixed width, then the data bytes.

const pkValueFixed = 8 + 4*4

// createIndexBatch is how many rows' index entries createIndexes commits at once.
const createIndexBatch = 1000

type kvBackend struct {
	db kv.DB
	p  *Params
	// discards is set for an engine that keeps nothing (null): what it reads is not checked.
	discards bool
}

func newKVBackend(db kv.DB, p *Params) *kvBackend { return &kvBackend{db: db, p: p} }

func appendPrefix(dst []byte, t *table, idx int) []byte {
	dst = kv.AppendUint64(dst, uint64(t.no))
	return append(dst, byte(idx))
}

// appendInt32 appends v as an order-preserving 4-byte key part.
func appendInt32(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(int32(v))^(1<<31))
}

func appendPK(dst []byte, t *table, id int64) []byte {
	return kv.AppendInt64(appendPrefix(dst, t, idxPK), id)
}

// appendIndexKey appends the key of row r in secondary index idx.
func appendIndexKey(dst []byte, t *table, idx int, r *Row) []byte {
	dst = appendPrefix(dst, t, idx)
	switch idx {
	case idxMarket:
		dst = appendInt32(appendInt32(appendInt32(dst, r.ProductID), r.CustomerID), r.Price)
	case idxRegister:
		dst = appendInt32(appendInt32(appendInt32(dst, r.CashRegisterID), r.CustomerID), r.Price)
	case idxPDC:
		dst = appendInt32(kv.AppendInt64(appendInt32(dst, r.Price), r.DateAndTime), r.CustomerID)
	}
	return kv.AppendInt64(dst, r.ID)
}

func appendPKValue(dst []byte, r *Row) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.DateAndTime))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.CashRegisterID))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.CustomerID))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.ProductID))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Price))
	return append(dst, r.Data...)
}

// decodePK fills r from a primary key entry; r.Data aliases val.
func decodePK(key, val []byte, r *Row) error {
	if len(key) < 9 || len(val) < pkValueFixed {
		return fmt.Errorf("corrupt primary key entry (key %d bytes, value %d bytes)", len(key), len(val))
	}
	id, _, err := kv.DecodeInt64(key[9:])
	if err != nil {
		return fmt.Errorf("decode transactionid: %w", err)
	}
	r.ID = id
	r.DateAndTime = int64(binary.BigEndian.Uint64(val))
	r.CashRegisterID = int64(int32(binary.BigEndian.Uint32(val[8:])))
	r.CustomerID = int64(int32(binary.BigEndian.Uint32(val[12:])))
	r.ProductID = int64(int32(binary.BigEndian.Uint32(val[16:])))
	r.Price = int64(int32(binary.BigEndian.Uint32(val[20:])))
	r.Data = val[pkValueFixed:]
	return nil
}

// createTable declares the key ranges of t's rows and indexes: an engine that keeps ranges
// apart makes each a table or an index of its own (kv.Ranger).
func (b *kvBackend) createTable(_ context.Context, t *table) error {
	ranges := make([]kv.Range, numIndexes)
	for idx := range ranges {
		ranges[idx] = kv.Range{Name: t.name + "_" + indexNames[idx], Prefix: appendPrefix(nil, t, idx), Secondary: idx != idxPK}
	}
	if err := kv.DeclareRanges(b.db, ranges); err != nil {
		return fmt.Errorf("create %s: %w", t.name, err)
	}
	return nil
}

func (b *kvBackend) retryable(error) bool { return false }

func (b *kvBackend) rowLocks() bool { return false }

func (b *kvBackend) newSession(context.Context, bool) (session, error) {
	return &kvSession{db: b.db, p: b.p, batch: b.db.NewBatch(), discards: b.discards}, nil
}

// indexRange returns the key range of index idx of t: the next index number bounds it.
func indexRange(t *table, idx int) (lower, upper []byte) {
	return appendPrefix(nil, t, idx), appendPrefix(nil, t, idx+1)
}

// minID returns the first transactionid of t's primary key range.
func (s *kvSession) minID(_ context.Context, t *table) (int64, bool, error) {
	return s.edgeID(t, kv.Iter.First)
}

// maxID returns the last transactionid of t's primary key range.
func (s *kvSession) maxID(_ context.Context, t *table) (int64, bool, error) {
	return s.edgeID(t, kv.Iter.Last)
}

// edgeID positions an iterator over t's primary key with pos (First or Last) and decodes the
// transactionid there.
func (s *kvSession) edgeID(t *table, pos func(kv.Iter) bool) (int64, bool, error) {
	lo, hi := indexRange(t, idxPK)
	it, err := s.db.NewIter(lo, hi)
	if err != nil {
		return 0, false, err
	}
	defer it.Close()
	if !pos(it) {
		return 0, false, it.Err()
	}
	id, _, err := kv.DecodeInt64(it.Key()[len(lo):])
	return id, err == nil, err
}

// prepareQueries implements session: a KV engine has nothing to prepare.
func (s *kvSession) prepareQueries(context.Context, *table, bool) error { return nil }

func (b *kvBackend) count(ctx context.Context, t *table, idx int) (int64, error) {
	lo, hi := indexRange(t, idx)
	return kv.Count(ctx, b.db, lo, hi)
}

// kvSession reuses one batch and its key buffers for every operation.
type kvSession struct {
	db    kv.DB
	p     *Params
	batch kv.Batch
	key   []byte
	val   []byte
	lo    []byte // iterator bounds: kept apart from key, which changes while an iterator is open
	hi    []byte
	row   Row
	// discards: the engine keeps nothing, so createIndexes reads no rows (kvBackend.discards).
	discards bool
}

func (s *kvSession) close() error { return s.batch.Close() }

// fresh implements session: a KV session has no connection.
func (s *kvSession) fresh() {}

// setRow adds r's primary key entry and, when indexed, its index entries to the batch.
func (s *kvSession) setRow(t *table, r *Row, indexed bool) {
	s.key = appendPK(s.key[:0], t, r.ID)
	s.val = appendPKValue(s.val[:0], r)
	s.batch.Set(s.key, s.val)
	if indexed {
		s.setIndexes(t, r)
	}
}

func (s *kvSession) setIndexes(t *table, r *Row) {
	for idx := idxMarket; idx <= idxPDC; idx++ {
		s.key = appendIndexKey(s.key[:0], t, idx, r)
		s.batch.Set(s.key, nil)
	}
}

// insert writes rows under the next transactionids of t, in insert order as an engine's
// auto-increment column: with one writer per table each is the row's key plus one.
func (s *kvSession) insert(_ context.Context, t *table, rows []Row) error {
	first := t.maxID.Add(int64(len(rows))) - int64(len(rows)) + 1
	indexed := t.indexed.Load()
	for i := range rows {
		rows[i].ID = first + int64(i)
		s.setRow(t, &rows[i], indexed)
	}
	if err := s.batch.Commit(); err != nil {
		return fmt.Errorf("insert into %s: %w", t.name, err)
	}
	t.inserted.Add(int64(len(rows)))
	return nil
}

// createIndexes reads the primary key in order and writes the three index entries of every
// row, committing every createIndexBatch rows. It reads through a new iterator after each
// commit (kv.ScanChunks): a copy-on-write B-tree cannot reuse the pages of its commits while one
// snapshot of the whole primary key is open.
func (s *kvSession) createIndexes(ctx context.Context, t *table) (int64, error) {
	lo, hi := indexRange(t, idxPK)
	n, err := kv.ScanChunks(ctx, s.db, lo, hi, createIndexBatch, func(k, v []byte) error {
		if err := decodePK(k, v, &s.row); err != nil {
			return err
		}
		s.setIndexes(t, &s.row)
		return nil
	}, s.batch.Commit)
	if err == nil {
		err = s.batch.Commit()
	}
	if err != nil {
		s.batch.Reset()
		return n, fmt.Errorf("create indexes on %s: %w", t.name, err)
	}
	if want := t.live(); n != want && !s.discards {
		return n, fmt.Errorf("create indexes on %s: read %d rows, the table must hold %d", t.name, n, want)
	}
	t.indexed.Store(true)
	return n, nil
}

func (s *kvSession) deleteOldest(_ context.Context, t *table, low int64, n int) (int64, error) {
	s.lo = appendPK(s.lo[:0], t, low)
	s.hi = appendPrefix(s.hi[:0], t, idxPK+1)
	it, err := s.db.NewIter(s.lo, s.hi)
	if err != nil {
		return 0, err
	}
	indexed := t.indexed.Load()
	var deleted int64
	for ok := it.First(); ok && deleted < int64(n); ok = it.Next() {
		if err := decodePK(it.Key(), it.Value(), &s.row); err != nil {
			it.Close()
			return 0, err
		}
		s.batch.Delete(it.Key())
		if indexed {
			for idx := idxMarket; idx <= idxPDC; idx++ {
				s.key = appendIndexKey(s.key[:0], t, idx, &s.row)
				s.batch.Delete(s.key)
			}
		}
		deleted++
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		s.batch.Reset()
		return 0, err
	}
	if err := s.batch.Commit(); err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.name, err)
	}
	return deleted, nil
}

// rangeQuery reads limit entries from start on (after start where rangeAfter: > v is >= v+1 on
// an integer column).
func (s *kvSession) rangeQuery(_ context.Context, t *table, idx int, start int64, limit int) (int, error) {
	if rangeAfter(s.p, idx) {
		start++
	}
	if idx == idxPK {
		s.lo = kv.AppendInt64(appendPrefix(s.lo[:0], t, idx), start)
	} else {
		s.lo = appendInt32(appendPrefix(s.lo[:0], t, idx), start)
	}
	s.hi = appendPrefix(s.hi[:0], t, idx+1)
	it, err := s.db.NewIter(s.lo, s.hi)
	if err != nil {
		return 0, err
	}
	n := 0
	for ok := it.First(); ok && n < limit; ok = it.Next() {
		n++
	}
	return n, errors.Join(it.Err(), it.Close())
}

func (s *kvSession) pointQuery(_ context.Context, t *table, ids []int64) (int, error) {
	found := 0
	for _, id := range ids {
		s.key = appendPK(s.key[:0], t, id)
		v, ok, err := s.db.Get(s.key, s.val[:0])
		if err != nil {
			return found, err
		}
		s.val = v
		if ok {
			found++
		}
	}
	return found, nil
}

func (b *kvBackend) storedTime(sec int64) int64 { return sec }

// assignsKeys implements backend: the client assigns transactionid in insert order, which is the
// key order when each table has one writer.
func (b *kvBackend) assignsKeys() bool { return !b.p.SharedTable }

// readChunk is how many keys readRows and readIndex read per iterator (kv.ScanChunks).
const readChunk = 1 << 16

// readRows implements backend.
func (b *kvBackend) readRows(ctx context.Context, t *table, fn func(*Row) error) error {
	var row Row
	lo, hi := indexRange(t, idxPK)
	_, err := kv.ScanChunks(ctx, b.db, lo, hi, readChunk, func(k, v []byte) error {
		if err := decodePK(k, v, &row); err != nil {
			return err
		}
		return fn(&row)
	}, nil)
	return err
}

// readIndex implements backend.
func (b *kvBackend) readIndex(ctx context.Context, t *table, idx int, fn func(*entry) error) error {
	var e entry
	lo, hi := indexRange(t, idx)
	_, err := kv.ScanChunks(ctx, b.db, lo, hi, readChunk, func(k, _ []byte) error {
		if err := decodeIndexKey(k, idx, &e); err != nil {
			return err
		}
		return fn(&e)
	}, nil)
	return err
}

// decodeIndexKey fills e from the key of an entry of secondary index idx (appendIndexKey).
func decodeIndexKey(key []byte, idx int, e *entry) error {
	widths := [3]int{4, 4, 4}
	if idx == idxPDC {
		widths[1] = 8
	}
	rest := key[min(len(key), 9):]
	if len(key) < 9+widths[0]+widths[1]+widths[2]+8 {
		return fmt.Errorf("corrupt %s entry (key %d bytes)", indexNames[idx], len(key))
	}
	for i, w := range widths {
		if w == 4 {
			e[i] = int64(int32(binary.BigEndian.Uint32(rest) ^ 1<<31))
		} else {
			e[i], _, _ = kv.DecodeInt64(rest)
		}
		rest = rest[w:]
	}
	id, _, err := kv.DecodeInt64(rest)
	e[3] = id
	return err
}

// checkLimits implements backend: the KV engines put no limit on a batch that the sizes reach.
func (b *kvBackend) checkLimits(context.Context) error { return nil }
