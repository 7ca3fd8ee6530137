package iibench

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/runner"
)

// The scans of verification (verify.go): every row in primary key order, every entry of a
// secondary index in its order, on the SQL, KV and document families.

// scanCheck is how many rows a KV scan reads between looks at its context.
const scanCheck = 4096

// rowsQuery returns the statement that reads every row through the primary key in its order.
func (b *sqlBackend) rowsQuery() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "SELECT transactionid, %s, cashregisterid, customerid, productid, price, data", b.d.TimestampToUnix("dateandtime"))
	for f := 1; f <= b.p.CharFields; f++ {
		fmt.Fprintf(&sb, ", charfield%d", f)
	}
	fmt.Fprintf(&sb, " FROM %s%s ORDER BY transactionid", tableName, b.hint(idxPK))
	return sb.String()
}

// entriesQuery returns the statement that reads the columns of index idx through it in its
// order.
func (b *sqlBackend) entriesQuery(idx int) string {
	sel := indexCols(idx)
	for i, c := range indexes[idx].cols {
		if c == colDate {
			sel[i] = b.d.TimestampToUnix(sel[i])
		}
	}
	return fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s", strings.Join(sel, ", "), tableName, b.hint(idx), colList(idx, ", "))
}

func (b *sqlBackend) scanRows(ctx context.Context, fn func(*storedRow)) error {
	var (
		s     storedRow
		date  unixTime
		price float64
		data  sql.RawBytes
	)
	pads := make([]sql.RawBytes, b.p.CharFields)
	dest := []any{&s.ID, &date, &s.CashReg, &s.Customer, &s.Product, &price, &data}
	for i := range pads {
		dest = append(dest, &pads[i])
	}
	err := b.ordered(ctx, idxPK, b.rowsQuery(), dest, func() {
		s.Date, s.Price, s.Data = date.v, uint64(math.Float32bits(float32(price))), data
		s.Pad = s.Pad[:0]
		for _, pad := range pads {
			s.Pad = append(s.Pad, pad...)
			if len(pad) != b.p.CharLength {
				s.Pad = append(s.Pad, 0) // no padding holds a 0 byte: the row differs
			}
		}
		fn(&s)
	})
	if err != nil {
		return fmt.Errorf("read %s through %s: %w", tableName, indexes[idxPK].name, err)
	}
	return nil
}

func (b *sqlBackend) scanIndex(ctx context.Context, idx int, fn func(Key)) error {
	var (
		k     Key
		price float64
		date  unixTime
	)
	cols := indexes[idx].cols
	dest := make([]any, len(cols))
	for i, c := range cols {
		switch c {
		case colPrice:
			dest[i] = &price
		case colDate:
			dest[i] = &date
		default:
			dest[i] = &k[i]
		}
	}
	err := b.ordered(ctx, idx, b.entriesQuery(idx), dest, func() {
		for i, c := range cols {
			switch c {
			case colPrice:
				k[i] = int64(math.Float32bits(float32(price)))
			case colDate:
				k[i] = date.v
			}
		}
		fn(k)
	})
	if err != nil {
		return fmt.Errorf("read %s through %s: %w", tableName, indexes[idx].name, err)
	}
	return nil
}

// ordered runs q, a read of index idx in its order, prepared in a transaction of its own that
// starts with the dialect's IndexOrderSettings where it has no hint to force the index, and calls
// each after scanning each row into dest.
func (b *sqlBackend) ordered(ctx context.Context, idx int, q string, dest []any, each func()) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return runner.OpError("begin", err)
	}
	defer tx.Rollback()
	if b.hint(idx) == "" {
		for _, st := range b.d.IndexOrderSettings() {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return runner.OpError(st, err)
			}
		}
	}
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return runner.OpError("prepare", err)
	}
	defer st.Close()
	rows, err := st.QueryContext(ctx)
	if err != nil {
		return runner.OpError("query", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return runner.OpError("scan", err)
		}
		each()
	}
	return runner.OpError("read", rows.Err())
}

// scan calls fn with every key and value of the key range of index idx, in key order.
func (b *kvBackend) scan(ctx context.Context, idx int, fn func(k, v []byte) error) error {
	it, err := b.db.NewIter([]byte{byte(idx)}, []byte{byte(idx + 1)})
	if err != nil {
		return fmt.Errorf("read %s through %s: %w", tableName, indexes[idx].name, err)
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%scanCheck == 0 && ctx.Err() != nil {
			it.Close()
			return ctx.Err()
		}
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return fmt.Errorf("read %s through %s: %w", tableName, indexes[idx].name, err)
		}
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		return fmt.Errorf("read %s through %s: %w", tableName, indexes[idx].name, err)
	}
	return nil
}

func (b *kvBackend) scanRows(ctx context.Context, fn func(*storedRow)) error {
	var s storedRow
	return b.scan(ctx, idxPK, func(k, v []byte) error {
		id, _, err := kv.DecodeInt64(k[1:])
		if err != nil {
			return fmt.Errorf("corrupt key %x: %w", k, err)
		}
		if len(v) < pkFixed {
			return fmt.Errorf("transactionid %d: a value of %d bytes, shorter than its fixed columns (%d)", id, len(v), pkFixed)
		}
		s.ID = id
		s.Date = int64(binary.BigEndian.Uint64(v))
		s.CashReg = int64(binary.BigEndian.Uint32(v[8:]))
		s.Customer = int64(binary.BigEndian.Uint32(v[12:]))
		s.Product = int64(binary.BigEndian.Uint32(v[16:]))
		s.Price = uint64(binary.BigEndian.Uint32(v[20:]))
		rest := v[pkFixed:]
		s.Data, s.Pad = rest[:min(dataLen, len(rest))], rest[min(dataLen, len(rest)):]
		fn(&s)
		return nil
	})
}

func (b *kvBackend) scanIndex(ctx context.Context, idx int, fn func(Key)) error {
	cols := indexes[idx].cols
	return b.scan(ctx, idx, func(key, _ []byte) error {
		var k Key
		rest := key[1:]
		var err error
		for i, c := range cols {
			if k[i], rest, err = decodeRaw(rest, c); err != nil {
				return fmt.Errorf("corrupt key %x: %w", key, err)
			}
		}
		fn(k)
		return nil
	})
}

// scanRows reads every document in _id order, whole.
func (b *docBackend) scanRows(ctx context.Context, fn func(*storedRow)) error {
	var s storedRow
	_, err := b.coll.Find(ctx, bson.D{}, doc.Find{Sort: b.keys[idxPK]}, func(raw bson.Raw) error {
		b.readRow(raw, &s)
		fn(&s)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read %s through _id: %w", tableName, runner.OpError("find", err))
	}
	return nil
}

// scanIndex reads the fields of index idx of every document, sorted on them: the index in its
// order.
func (b *docBackend) scanIndex(ctx context.Context, idx int, fn func(Key)) error {
	_, err := b.coll.Find(ctx, bson.D{}, doc.Find{Sort: b.keys[idx], Projection: b.proj[idx]}, func(raw bson.Raw) error {
		fn(docKey(raw, idx))
		return nil
	})
	if err != nil {
		return fmt.Errorf("read %s through %s: %w", tableName, b.indexName(idx), runner.OpError("find", err))
	}
	return nil
}

// readRow reads document raw into s: each field of the Java client's document with its type
// (docBackend), the padding fields back to back in s.Pad. The first field that is missing, has
// another type or is not the client's, and a padding field of another length, is s.Shape.
func (b *docBackend) readRow(raw bson.Raw, s *storedRow) {
	*s = storedRow{Pad: s.Pad[:0], Date: nullTime}
	const fields = 6 // _id, dateandtime, cashregisterid, customerid, productid, price
	var seen [fields]bool
	pads := 0
	elems, err := raw.Elements()
	if err != nil {
		s.Shape = "a malformed document"
		return
	}
	for _, e := range elems {
		key, v := e.Key(), e.Value()
		want, slot := bson.TypeInt32, -1
		var dst *int64
		switch key {
		case "_id":
			want, slot = bson.TypeObjectID, 0
			s.OID, _ = v.ObjectIDOK()
		case "dateandtime":
			want, slot, dst = bson.TypeInt64, 1, &s.Date
		case "cashregisterid":
			slot, dst = 2, &s.CashReg
		case "customerid":
			slot, dst = 3, &s.Customer
		case "productid":
			slot, dst = 4, &s.Product
		case "price":
			want, slot = bson.TypeDouble, 5
			if f, ok := v.DoubleOK(); ok {
				s.Price = math.Float64bits(f)
			}
		default:
			if pads < len(b.pads) && key == b.pads[pads] {
				pads++
				b.readPad(v, s)
				continue
			}
			s.shape("an extra field " + key)
			continue
		}
		if v.Type != want {
			s.shape(fmt.Sprintf("%s is a %s", key, v.Type))
		}
		if seen[slot] {
			s.shape("a second field " + key)
		}
		seen[slot] = true
		if dst != nil {
			*dst = intValue(v)
		}
	}
	for i, ok := range seen {
		if !ok {
			s.shape("no field " + [...]string{"_id", "dateandtime", "cashregisterid", "customerid", "productid", "price"}[i])
		}
	}
	if pads < len(b.pads) {
		s.shape("no field " + b.pads[pads])
	}
}

// intValue returns the value of an integer field whatever its type (its shape says when the type
// is wrong), so that a row differs in what it holds; badKey when it holds no integer.
func intValue(v bson.RawValue) int64 {
	if n, ok := v.Int32OK(); ok {
		return int64(n)
	}
	if n, ok := v.Int64OK(); ok {
		return n
	}
	if f, ok := v.DoubleOK(); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return badKey
}

// readPad appends padding field v to s.Pad; a field of another type or length is its shape.
func (b *docBackend) readPad(v bson.RawValue, s *storedRow) {
	str, ok := v.StringValueOK()
	if !ok {
		s.shape(fmt.Sprintf("a padding field is a %s", v.Type))
		return
	}
	s.Pad = append(s.Pad, str...)
	if len(str) != b.p.CharLength {
		s.Pad = append(s.Pad, 0) // no padding holds a 0 byte: the row differs
	}
}

// shape records what is wrong with the document, the first problem only.
func (s *storedRow) shape(problem string) {
	if s.Shape == "" {
		s.Shape = problem
	}
}
