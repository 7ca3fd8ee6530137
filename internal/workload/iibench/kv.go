package iibench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/runner"
)

// The KV layout is MyRocks': one key range per index, keyed by the index number (1 byte) and
// then the index's columns, with transactionid last in the secondary indexes:
//
//	primary key:     transactionid                                    -> the other columns
//	marketsegment:   price, customerid, transactionid                 -> empty
//	registersegment: cashregisterid, price, customerid, transactionid -> empty
//	pdc:             price, dateandtime, customerid, transactionid    -> empty
//
// The int columns take 4 bytes, transactionid and dateandtime 8, all order-preserving (sign bit
// flipped, big endian). price takes 4 bytes, the single-precision float that the SQL engines'
// FLOAT (real) column stores, made order-preserving (sign bit flipped for a positive value, every
// bit for a negative one). The primary key value holds dateandtime, cashregisterid, customerid,
// productid and price (its float bits) in fixed width, then the data column and the padding
// columns.

type kvBackend struct {
	db  kv.DB
	p   *Params
	ids *atomic.Int64 // the highest transactionid handed out
}

// appendInt32 appends v as an order-preserving 4-byte key part.
func appendInt32(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(int32(v))^(1<<31))
}

// priceBits returns the single-precision float of a price in cents, as a FLOAT column stores it.
func priceBits(cents int64) uint32 { return math.Float32bits(float32(priceDecimal(cents))) }

// appendCol appends the key part of column c with value v.
func appendCol(dst []byte, c int, v int64) []byte {
	switch c {
	case colID, colDate:
		return kv.AppendInt64(dst, v)
	case colPrice:
		bits := priceBits(v)
		if bits&(1<<31) != 0 {
			bits = ^bits
		} else {
			bits |= 1 << 31
		}
		return binary.BigEndian.AppendUint32(dst, bits)
	}
	return appendInt32(dst, v)
}

// decodeCol decodes the key part of column c at the start of b, a price in cents.
func decodeCol(b []byte, c int) (v int64, rest []byte, err error) {
	v, rest, err = decodeRaw(b, c)
	if err == nil && c == colPrice {
		v = centsOf(float64(math.Float32frombits(uint32(v))))
	}
	return v, rest, err
}

// decodeRaw decodes the key part of column c at the start of b, a price as its float's bits.
func decodeRaw(b []byte, c int) (v int64, rest []byte, err error) {
	if c == colID || c == colDate {
		return kv.DecodeInt64(b)
	}
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("short key part: %d bytes", len(b))
	}
	u := binary.BigEndian.Uint32(b)
	if c == colPrice {
		if u&(1<<31) != 0 {
			u &^= 1 << 31
		} else {
			u = ^u
		}
		return int64(u), b[4:], nil
	}
	return int64(int32(u ^ (1 << 31))), b[4:], nil
}

// appendKey appends the key of index idx whose columns are k (the seek prefix, without the
// trailing transactionid of a secondary index).
func appendKey(dst []byte, idx int, k Key) []byte {
	dst = append(dst, byte(idx))
	for i, c := range indexes[idx].cols {
		dst = appendCol(dst, c, k[i])
	}
	return dst
}

// appendEntry appends the key of row r in index idx.
func appendEntry(dst []byte, idx int, r *Row) []byte {
	dst = appendKey(dst, idx, r.key(idx))
	if idx != idxPK {
		dst = kv.AppendInt64(dst, r.ID)
	}
	return dst
}

// pkFixed is the bytes of the fixed-width columns at the start of a primary key value.
const pkFixed = 8 + 4*4

// appendPKValue appends the primary key value of r: its fixed-width columns (pkFixed bytes),
// then the data column and the padding.
func appendPKValue(dst []byte, r *Row) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.DateAndTime))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.CashRegisterID))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.CustomerID))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.ProductID))
	dst = binary.BigEndian.AppendUint32(dst, priceBits(r.Price))
	dst = append(dst, r.Data...)
	return append(dst, r.Pad...)
}

// create declares the key range of each index in use: an engine that keeps ranges apart makes
// each an index of its own (kv.Ranger).
func (b *kvBackend) create(context.Context) error {
	var ranges []kv.Range
	for _, idx := range b.p.Indexes() {
		ranges = append(ranges, kv.Range{Name: indexes[idx].name, Prefix: []byte{byte(idx)}, Secondary: idx != idxPK})
	}
	if err := kv.DeclareRanges(b.db, ranges); err != nil {
		return runner.OpError("create "+tableName, err)
	}
	return nil
}

func (b *kvBackend) retryable(error) bool { return false }

func (b *kvBackend) newSession(context.Context) (session, error) {
	return &kvSession{b: b, batch: b.db.NewBatch(), idx: b.p.Indexes()}, nil
}

// kvSession reuses one batch and its key buffers for every operation.
type kvSession struct {
	b     *kvBackend
	batch kv.Batch
	idx   []int // the table's indexes
	key   []byte
	val   []byte
	lo    []byte
	hi    [1]byte
}

func (s *kvSession) close() error { return s.batch.Close() }

func (s *kvSession) insert(_ context.Context, rows []Row) error {
	first := s.b.ids.Add(int64(len(rows))) - int64(len(rows)) + 1
	for i := range rows {
		r := &rows[i]
		r.ID = first + int64(i)
		for _, idx := range s.idx {
			s.key = appendEntry(s.key[:0], idx, r)
			if idx == idxPK {
				s.val = appendPKValue(s.val[:0], r)
				s.batch.Set(s.key, s.val)
			} else {
				s.batch.Set(s.key, nil)
			}
		}
	}
	if err := s.batch.Commit(); err != nil {
		return runner.OpError("insert into "+tableName, err)
	}
	return nil
}

func (s *kvSession) query(_ context.Context, idx int, seek Key, limit int, out []Key) ([]Key, error) {
	out = out[:0]
	s.lo = appendKey(s.lo[:0], idx, seek)
	s.hi[0] = byte(idx + 1)
	it, err := s.b.db.NewIter(s.lo, s.hi[:])
	if err != nil {
		return out, err
	}
	cols := indexes[idx].cols
	for ok := it.First(); ok && len(out) < limit; ok = it.Next() {
		var k Key
		rest := it.Key()[1:]
		for i, c := range cols {
			if k[i], rest, err = decodeCol(rest, c); err != nil {
				it.Close()
				return out, fmt.Errorf("query %s: corrupt key: %w", indexes[idx].name, err)
			}
		}
		out = append(out, k)
	}
	return out, errors.Join(it.Err(), it.Close())
}
