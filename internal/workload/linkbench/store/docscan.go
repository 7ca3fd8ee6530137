package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/enginebench/enginebench/internal/engine/doc"
)

// The scans of verification on a document engine (no reference: enginebench's translation of
// the SQL store's): each is a find sorted on its index's keys, with the index's hint (sent
// with the setting hints=send; FerretDB ignores hints: the sort is how it reads an index), through the
// link key (the reference variant's unique index, the corrected variant's _id, whose bytes
// are checked against the document's fields), id1_type (projected to its fields, which
// MongoDB reads from the index alone), the count key and the node _id.

// ScanLinks reads the links of one type of the id1s [lo, hi) through the link key.
func (s *docStore) ScanLinks(ctx context.Context, linkType, lo, hi int64, fn func(*Link) error) error {
	var w bsonBuf
	var filter bson.Raw
	ix := refLinkKey()
	if s.fork {
		// The binary _id orders as its bytes: ids below 0 (which no step writes) sort last.
		lo, hi = max(lo, 0), max(hi, 0)
		filter = w.reset().doc(fID).linkID("$gte", linkType, lo, 0).linkID("$lt", linkType, hi, 0).done()
		ix = idIndex()
	} else {
		filter = w.reset().i64(fType, linkType).doc(fID1).i64("$gte", lo).i64("$lt", hi).done()
	}
	var l Link
	var key bsonBuf
	err := s.scan(ctx, s.links, filter, s.sorted(ix), func(raw bson.Raw) error {
		if err := decodeLinkDoc(raw, &l); err != nil {
			return err
		}
		if s.fork {
			if err := checkID(raw, key.reset().linkID(fID, l.LinkType, l.ID1, l.ID2).done()); err != nil {
				return fmt.Errorf("link (%d, %d, %d): %w", l.ID1, l.LinkType, l.ID2, err)
			}
		}
		return fn(&l)
	})
	if err != nil {
		return fmt.Errorf("scan linktable (link type %d, id1 %d..%d): %w", linkType, lo, hi-1, err)
	}
	return nil
}

// ScanIndex reads the links of the id1s [lo, hi) through id1_type.
func (s *docStore) ScanIndex(ctx context.Context, lo, hi int64, fn func(*Link) error) error {
	if !s.indexed.Load() {
		return fmt.Errorf("scan %s: the index does not exist yet", indexName)
	}
	var w bsonBuf
	filter := w.reset().doc(fID1).i64("$gte", lo).i64("$lt", hi).done()
	var l Link
	err := s.scan(ctx, s.links, filter, s.through(id1TypeIndex()), func(raw bson.Raw) error {
		if err := decodeLinkDoc(raw, &l); err != nil {
			return err
		}
		return fn(&l)
	})
	if err != nil {
		return fmt.Errorf("scan %s (id1 %d..%d): %w", indexName, lo, hi-1, err)
	}
	return nil
}

// ScanCounts reads the counts of the id1s [lo, hi) through the count key.
func (s *docStore) ScanCounts(ctx context.Context, lo, hi int64, fn func(*Count) error) error {
	var w bsonBuf
	var filter bson.Raw
	ix := refCountKey()
	if s.fork {
		lo, hi = max(lo, 0), max(hi, 0)
		filter = w.reset().doc(fID).countID("$gte", lo, 0).countID("$lt", hi, 0).done()
		ix = idIndex()
	} else {
		filter = w.reset().doc(fCountID).i64("$gte", lo).i64("$lt", hi).done()
	}
	var n Count
	var key bsonBuf
	err := s.scan(ctx, s.counts, filter, s.sorted(ix), func(raw bson.Raw) error {
		if err := decodeCountDoc(raw, &n); err != nil {
			return err
		}
		if s.fork {
			if err := checkID(raw, key.reset().countID(fID, n.ID1, n.LinkType).done()); err != nil {
				return fmt.Errorf("count (%d, %d): %w", n.ID1, n.LinkType, err)
			}
		}
		return fn(&n)
	})
	if err != nil {
		return fmt.Errorf("scan counttable (id1 %d..%d): %w", lo, hi-1, err)
	}
	return nil
}

// ScanNodes reads the nodes whose id is in [lo, hi) through _id.
func (s *docStore) ScanNodes(ctx context.Context, lo, hi int64, fn func(*Node) error) error {
	var w bsonBuf
	w.reset().doc(fID).i64("$gte", lo)
	if hi != math.MaxInt64 {
		w.i64("$lt", hi)
	}
	var n Node
	err := s.scan(ctx, s.nodes, w.done(), s.sorted(idIndex()), func(raw bson.Raw) error {
		if err := decodeNodeDoc(raw, &n, false); err != nil {
			return err
		}
		return fn(&n)
	})
	if err != nil {
		return fmt.Errorf("scan nodetable (id %d..%s): %w", lo, idEnd(hi), err)
	}
	return nil
}

// sorted is a find of whole documents in the order of ix, with its hint.
func (s *docStore) sorted(ix doc.Index) doc.Find { return doc.Find{Sort: ix.Keys, Hint: ix.Name} }

// scan runs the find and calls each for every document.
func (s *docStore) scan(ctx context.Context, c doc.Collection, filter bson.Raw, o doc.Find, each func(bson.Raw) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := c.Find(ctx, filter, o, each)
	return err
}

// checkID checks that the document's _id is the element want (an _id: value document).
func checkID(raw bson.Raw, want bson.Raw) error {
	got, err := bsoncore.Document(raw).LookupErr(fID)
	if err != nil {
		return errors.New("the document has no _id")
	}
	w, err := bsoncore.Document(want).LookupErr(fID)
	if err != nil || got.Type != w.Type || !bytes.Equal(got.Data, w.Data) {
		return errors.New("its _id is not its key")
	}
	return nil
}

// Decoding. A field of another BSON type than the references write, or missing, is an error;
// integers may be int32 or int64 (MongoDB's $inc keeps the type of the field it finds).

// elements returns the elements of a document, without its length and terminator.
func elements(raw bson.Raw) ([]byte, error) {
	if len(raw) < 5 || int(binary.LittleEndian.Uint32(raw)) != len(raw) {
		return nil, errors.New("corrupt document")
	}
	return raw[4 : len(raw)-1], nil
}

// intOf returns an int32 or int64 value.
func intOf(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		i, ok := v.Int32OK()
		return int64(i), ok
	case bsoncore.TypeInt64:
		return v.Int64OK()
	}
	return 0, false
}

// intIn returns an integer value within [lo, hi].
func intIn(v bsoncore.Value, lo, hi int64) (int64, bool) {
	i, ok := intOf(v)
	return i, ok && i >= lo && i <= hi
}

// binOf returns binary data of the generic subtype.
func binOf(v bsoncore.Value) ([]byte, bool) {
	sub, b, ok := v.BinaryOK()
	return b, ok && sub == 0
}

// fieldError describes a field whose value does not decode.
func fieldError(what string, key []byte, v bsoncore.Value) error {
	return fmt.Errorf("%s document: field %s has BSON type %s or a value out of range", what, key, v.Type)
}

// missing names the first of fields whose bit is not in have.
func missing(what string, have uint, fields ...string) error {
	for i, f := range fields {
		if have&(1<<i) == 0 {
			return fmt.Errorf("%s document lacks %s", what, f)
		}
	}
	return nil
}

// decodeFields calls set with each element of a document of kind what (for messages); set
// returns the bit of a field it knows (-1: not one of them) and whether its value was good. It
// returns the bits of the fields seen.
func decodeFields(raw bson.Raw, what string, set func(key string, v bsoncore.Value) (bit int, ok bool)) (uint, error) {
	rem, err := elements(raw)
	if err != nil {
		return 0, err
	}
	var have uint
	for len(rem) > 0 {
		e, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return 0, errors.New("corrupt " + what + " document")
		}
		rem = rest
		v := e.Value()
		bit, ok := set(string(e.KeyBytes()), v)
		if bit < 0 {
			continue
		}
		if !ok {
			return 0, fieldError(what, e.KeyBytes(), v)
		}
		have |= 1 << bit
	}
	return have, nil
}

// decodeLinkDoc fills l from a link document (whole, or projected to id1_type's fields); l.Data
// aliases raw.
func decodeLinkDoc(raw bson.Raw, l *Link) error {
	have, err := decodeFields(raw, "link", func(key string, v bsoncore.Value) (int, bool) {
		var ok bool
		switch key {
		case fID1:
			l.ID1, ok = intOf(v)
			return 0, ok
		case fType:
			l.LinkType, ok = intOf(v)
			return 1, ok
		case fID2:
			l.ID2, ok = intOf(v)
			return 2, ok
		case fVis:
			var vis int64
			vis, ok = intIn(v, math.MinInt8, math.MaxInt8)
			l.Visibility = int8(vis)
			return 3, ok
		case fData:
			l.Data, ok = binOf(v)
			return 4, ok
		case fTime:
			l.Time, ok = intOf(v)
			return 5, ok
		case fVersion:
			l.Version, ok = intOf(v)
			return 6, ok
		}
		return -1, false
	})
	if err != nil {
		return err
	}
	return missing("link", have, fID1, fType, fID2, fVis, fData, fTime, fVersion)
}

// linkVisibility returns the visibility and the _id of a link document.
func linkVisibility(raw bson.Raw) (int8, bsoncore.Value, error) {
	d := bsoncore.Document(raw)
	id, err := d.LookupErr(fID)
	if err != nil {
		return 0, id, errors.New("the link document has no _id")
	}
	v, err := d.LookupErr(fVis)
	if err != nil {
		return 0, id, errors.New("the link document has no visibility")
	}
	vis, ok := intIn(v, math.MinInt8, math.MaxInt8)
	if !ok {
		return 0, id, fieldError("link", []byte(fVis), v)
	}
	return int8(vis), id, nil
}

// decodeCountDoc fills n from a count document. A missing version is 0: LinkbenchX's ADD_LINK
// creates a count with none.
func decodeCountDoc(raw bson.Raw, n *Count) error {
	n.Version = 0
	have, err := decodeFields(raw, "count", func(key string, v bsoncore.Value) (int, bool) {
		var ok bool
		switch key {
		case fCountID:
			n.ID1, ok = intOf(v)
			return 0, ok
		case fType:
			n.LinkType, ok = intOf(v)
			return 1, ok
		case fCount:
			n.Count, ok = intOf(v)
			return 2, ok
		case fTime:
			n.Time, ok = intOf(v)
			return 3, ok
		case fVersion:
			n.Version, ok = intOf(v)
			return 4, ok
		}
		return -1, false
	})
	if err != nil {
		return err
	}
	return missing("count", have, fCountID, fType, fCount, fTime)
}

// countOf returns the count of a count document, 0 when it has none (as LinkbenchX reads it,
// LinkStoreMongoDBv2.java:1248-1249).
func countOf(raw bson.Raw) (int64, error) {
	v, err := bsoncore.Document(raw).LookupErr(fCount)
	if err != nil {
		return 0, nil
	}
	n, ok := intOf(v)
	if !ok {
		return 0, fieldError("count", []byte(fCount), v)
	}
	return n, nil
}

// decodeNodeDoc fills n from a node document (its _id alone with idOnly); n.Data aliases raw.
func decodeNodeDoc(raw bson.Raw, n *Node, idOnly bool) error {
	have, err := decodeFields(raw, "node", func(key string, v bsoncore.Value) (int, bool) {
		var ok bool
		var i int64
		switch key {
		case fID:
			n.ID, ok = intOf(v)
			return 0, ok
		case fNodeTyp:
			i, ok = intIn(v, math.MinInt32, math.MaxInt32)
			n.Type = int32(i)
			return 1, ok
		case fVersion:
			n.Version, ok = intOf(v)
			return 2, ok
		case fTime:
			i, ok = intIn(v, math.MinInt32, math.MaxInt32)
			n.Time = int32(i)
			return 3, ok
		case fData:
			n.Data, ok = binOf(v)
			return 4, ok
		}
		return -1, false
	})
	if err != nil {
		return err
	}
	if idOnly {
		return missing("node", have, fID)
	}
	return missing("node", have, fID, fNodeTyp, fVersion, fTime, fData)
}
