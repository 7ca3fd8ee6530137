package insertbench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/runner"
)

// The reads of the scan step and of verification on a document database: each a find of
// every document sorted on an index's fields, with the index as hint where the server honours
// hints (on FerretDB the sort is how an index is read).

// notStored is what a field reads as when the document lacks it or holds it with another type
// than the benchmark writes: no generated value is, so verification reports the row altered.
const notStored = math.MinInt64

// docFieldNames are the fields of a document in the order the benchmark writes them.
var docFieldNames = [docFields]string{fieldID, fieldTime, fieldCash, fieldCust, fieldProd, fieldPrice, fieldData}

// count implements backend: the documents of a find sorted on index idx's fields, projected to
// them (a covered read of the index on MongoDB), counted as they come.
func (b *docBackend) count(ctx context.Context, t *table, idx int) (int64, error) {
	n, err := b.db.Collection(t.name).Find(ctx, emptyFilter,
		doc.Find{Sort: b.sorts[idx], Projection: b.countProj[idx], Hint: b.hint(idx)}, nil)
	if err != nil {
		return 0, runner.OpError(fmt.Sprintf("count %s through %s", t.name, docIndexNames[idx]), err)
	}
	return int64(n), nil
}

// readRows implements backend: every document in _id order, whole.
func (b *docBackend) readRows(ctx context.Context, t *table, fn func(*Row) error) error {
	var row Row
	_, err := b.db.Collection(t.name).Find(ctx, emptyFilter, doc.Find{Sort: b.byID, Hint: b.hint(idxPK)},
		func(raw bson.Raw) error {
			decodeDoc(raw, &row)
			return fn(&row)
		})
	return err
}

// readIndex implements backend: the index must exist (a sort on its fields alone would
// succeed without it), then every document in its order, projected to its fields and _id.
func (b *docBackend) readIndex(ctx context.Context, t *table, idx int, fn func(*entry) error) error {
	c := b.db.Collection(t.name)
	names, err := c.Indexes(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(names, docIndexNames[idx]) {
		return fmt.Errorf("%s has no index %s (its indexes: %s)", t.name, docIndexNames[idx], strings.Join(names, ", "))
	}
	var e entry
	fields := docIndexFields[idx]
	_, err = c.Find(ctx, emptyFilter, doc.Find{Sort: b.sorts[idx], Projection: b.readProj[idx], Hint: b.hint(idx)},
		func(raw bson.Raw) error {
			for i, f := range fields {
				e[i] = fieldValue(f, bsoncore.Document(raw).Lookup(f))
			}
			e[3] = fieldValue(fieldID, bsoncore.Document(raw).Lookup(fieldID))
			return fn(&e)
		})
	return err
}

// int64Field returns the int64 field of raw.
func int64Field(raw bson.Raw, field string) (int64, error) {
	v, ok := bsoncore.Document(raw).Lookup(field).Int64OK()
	if !ok {
		return 0, fmt.Errorf("the document's %s is not an int64", field)
	}
	return v, nil
}

// fieldValue returns the value of an integer or date field as the benchmark writes it (_id
// int64, dateandtime a date of a whole second, the others int32), or notStored.
func fieldValue(field string, v bsoncore.Value) int64 {
	switch field {
	case fieldID:
		if n, ok := v.Int64OK(); ok {
			return n
		}
	case fieldTime:
		if ms, ok := v.DateTimeOK(); ok && ms%1000 == 0 {
			return ms / 1000
		}
	default:
		if n, ok := v.Int32OK(); ok {
			return int64(n)
		}
	}
	return notStored
}

// decodeDoc fills r from a whole document; r.Data aliases raw. A field missing or of another
// type reads as notStored; a data that is missing or not a string, and a field the benchmark
// does not write (or one twice), make r.Data a note that says so, which no generated value is.
func decodeDoc(raw []byte, r *Row) {
	*r = Row{ID: notStored, DateAndTime: notStored, CashRegisterID: notStored, CustomerID: notStored,
		ProductID: notStored, Price: notStored}
	var seen [docFields]bool
	n, odd := 0, 0
	rem := []byte(nil)
	if len(raw) >= 5 {
		rem = raw[4 : len(raw)-1]
	}
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			odd++
			break
		}
		rem, n = rest, n+1
		f := docField(el.KeyBytes())
		if f < 0 || seen[f] {
			odd++
			continue
		}
		seen[f] = true
		v := el.Value()
		switch name := docFieldNames[f]; name {
		case fieldID:
			r.ID = fieldValue(name, v)
		case fieldTime:
			r.DateAndTime = fieldValue(name, v)
		case fieldCash:
			r.CashRegisterID = fieldValue(name, v)
		case fieldCust:
			r.CustomerID = fieldValue(name, v)
		case fieldProd:
			r.ProductID = fieldValue(name, v)
		case fieldPrice:
			r.Price = fieldValue(name, v)
		case fieldData:
			if v.Type == bsoncore.TypeString && len(v.Data) >= 5 {
				r.Data = v.Data[4 : len(v.Data)-1]
			}
		}
	}
	switch {
	case r.Data == nil:
		r.Data = []byte("<no string data>")
	case odd > 0:
		r.Data = fmt.Appendf(nil, "<%d fields, %d of them not the benchmark's>", n, odd)
	}
}

// docField returns the index of field name in docFieldNames, or -1.
func docField(name []byte) int {
	for i, f := range docFieldNames {
		if string(name) == f {
			return i
		}
	}
	return -1
}
