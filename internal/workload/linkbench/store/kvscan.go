package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The scans of verification on a key-value engine: each walks its key range in order.

// scanCheckEvery is how many entries a scan reads between two looks at its context.
const scanCheckEvery = 4096

// ScanLinks walks the linktable range of (linkType, lo) .. (linkType, hi).
func (s *kvStore) ScanLinks(ctx context.Context, linkType, lo, hi int64, fn func(*Link) error) error {
	var l Link
	err := s.walk(ctx, appendLinkKey(nil, linkType, lo, math.MinInt64), appendLinkKey(nil, linkType, hi, math.MinInt64),
		func(k, v []byte) error {
			if err := decodeLink(k, v, &l); err != nil {
				return err
			}
			return fn(&l)
		})
	if err != nil {
		return fmt.Errorf("scan linktable (link type %d, id1 %d..%d): %w", linkType, lo, hi-1, err)
	}
	return nil
}

// ScanIndex walks the id1_type range of the id1s [lo, hi).
func (s *kvStore) ScanIndex(ctx context.Context, lo, hi int64, fn func(*Link) error) error {
	if !s.indexed.Load() {
		return fmt.Errorf("scan %s: the index does not exist yet", indexName)
	}
	var l Link
	err := s.walk(ctx, appendIDKey(nil, tagIndex, lo), appendIDKey(nil, tagIndex, hi), func(k, v []byte) error {
		if err := decodeIndex(k, v, &l); err != nil {
			return err
		}
		return fn(&l)
	})
	if err != nil {
		return fmt.Errorf("scan %s (id1 %d..%d): %w", indexName, lo, hi-1, err)
	}
	return nil
}

// ScanCounts walks the counttable range of the id1s [lo, hi).
func (s *kvStore) ScanCounts(ctx context.Context, lo, hi int64, fn func(*Count) error) error {
	var n Count
	err := s.walk(ctx, appendIDKey(nil, tagCount, lo), appendIDKey(nil, tagCount, hi), func(k, v []byte) error {
		if len(k) != countKeyLen || len(v) != countValLen {
			return fmt.Errorf("corrupt counttable entry (key %d bytes, value %d bytes)", len(k), len(v))
		}
		n.ID1, n.LinkType = decodeInt(k[1:]), decodeInt(k[9:])
		n.Count = int64(binary.BigEndian.Uint64(v))
		n.Time = int64(binary.BigEndian.Uint64(v[8:]))
		n.Version = int64(binary.BigEndian.Uint64(v[16:]))
		return fn(&n)
	})
	if err != nil {
		return fmt.Errorf("scan counttable (id1 %d..%d): %w", lo, hi-1, err)
	}
	return nil
}

// ScanNodes walks the nodetable range of the ids [lo, hi).
func (s *kvStore) ScanNodes(ctx context.Context, lo, hi int64, fn func(*Node) error) error {
	end := appendIDKey(nil, tagNode, hi)
	if hi == math.MaxInt64 {
		end = []byte{tagNode + 1}
	}
	var n Node
	err := s.walk(ctx, appendIDKey(nil, tagNode, lo), end, func(k, v []byte) error {
		if len(k) != nodeKeyLen || len(v) < nodeValFixed {
			return fmt.Errorf("corrupt nodetable entry (key %d bytes, value %d bytes)", len(k), len(v))
		}
		n.ID = decodeInt(k[1:])
		n.Type = int32(binary.BigEndian.Uint32(v))
		n.Version = int64(binary.BigEndian.Uint64(v[4:]))
		n.Time = int32(binary.BigEndian.Uint32(v[12:]))
		n.Data = v[nodeValFixed:]
		return fn(&n)
	})
	if err != nil {
		return fmt.Errorf("scan nodetable (id %d..%s): %w", lo, idEnd(hi), err)
	}
	return nil
}

// walk calls fn for every entry of [lo, hi) in key order, looking at ctx every
// scanCheckEvery entries.
func (s *kvStore) walk(ctx context.Context, lo, hi []byte, fn func(k, v []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	it, err := s.db.NewIter(lo, hi)
	if err != nil {
		return err
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			return errors.Join(err, it.Close())
		}
		if n++; n%scanCheckEvery == 0 && ctx.Err() != nil {
			return errors.Join(ctx.Err(), it.Close())
		}
	}
	return errors.Join(it.Err(), it.Close())
}

// decodeIndex fills l from an id1_type entry; l.Data aliases val.
func decodeIndex(key, val []byte, l *Link) error {
	if len(key) != indexKeyLen || len(val) < 8 {
		return fmt.Errorf("corrupt %s entry (key %d bytes, value %d bytes)", indexName, len(key), len(val))
	}
	l.ID1, l.LinkType = decodeInt(key[1:]), decodeInt(key[9:])
	l.Visibility = int8(key[17])
	l.Time, l.ID2 = decodeInt(key[indexPrefix:]), decodeInt(key[indexPrefix+8:])
	l.Version = int64(binary.BigEndian.Uint64(val))
	l.Data = val[8:]
	return nil
}
