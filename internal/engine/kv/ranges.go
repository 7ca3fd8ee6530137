package kv

import (
	"bytes"
	"fmt"
	"sort"
)

// Range is a key range that holds one table or index of a workload: every key that starts with
// Prefix. Workloads declare their ranges (DeclareRanges) so that an engine that keeps each table
// and index in a structure of its own, as WiredTiger does under MongoDB, can do so; to every
// other engine the keyspace is one.
type Range struct {
	// Name names the table or index, e.g. "pk" or "t1_marketsegment": letters, digits and '_'.
	Name string
	// Prefix starts every key of the range; no declared prefix starts another.
	Prefix []byte
	// Secondary is true for a secondary index, false for a table's rows (its primary key).
	Secondary bool
}

// Ranger is implemented by engines that keep each declared range apart. DeclareRanges may be
// called more than once, with new ranges or again with ranges already declared (which it leaves
// as they are), before or after data is written under them; keys written before their range
// was declared are not moved, so workloads declare ranges before they write.
type Ranger interface {
	DeclareRanges(ranges []Range) error
}

// DeclareRanges checks ranges and declares them to db when it keeps ranges apart (Ranger); other
// engines need nothing.
func DeclareRanges(db DB, ranges []Range) error {
	if _, err := NewLayout(ranges); err != nil {
		return err
	}
	if r, ok := db.(Ranger); ok {
		return r.DeclareRanges(ranges)
	}
	return nil
}

// Layout is a set of declared ranges in key order, for an engine that keeps each apart: it finds
// the range of a key and splits an iterator's bounds by range. Part 0 is every key outside the
// ranges; part i (1 <= i <= len(Ranges())) is Ranges()[i-1]. A Layout is immutable.
type Layout struct {
	ranges []Range // by prefix
	ends   [][]byte
}

// NewLayout checks ranges (a valid name, a non-empty prefix that starts no other, no name
// twice) and returns them as a Layout. It copies the prefixes.
func NewLayout(ranges []Range) (*Layout, error) {
	l := &Layout{ranges: make([]Range, len(ranges))}
	for i, r := range ranges {
		if r.Name == "" || len(r.Prefix) == 0 {
			return nil, fmt.Errorf("key range %d (%q, prefix %x): a range needs a name and a prefix", i, r.Name, r.Prefix)
		}
		for _, c := range r.Name {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return nil, fmt.Errorf("key range %q: a name holds only letters, digits and '_'", r.Name)
			}
		}
		r.Prefix = bytes.Clone(r.Prefix)
		l.ranges[i] = r
	}
	sort.Slice(l.ranges, func(i, j int) bool { return bytes.Compare(l.ranges[i].Prefix, l.ranges[j].Prefix) < 0 })
	names := make(map[string]bool, len(ranges))
	for i, r := range l.ranges {
		if names[r.Name] {
			return nil, fmt.Errorf("key range %q: declared twice", r.Name)
		}
		names[r.Name] = true
		// In prefix order, a prefix that starts others comes right before the first of them.
		if i > 0 && bytes.HasPrefix(r.Prefix, l.ranges[i-1].Prefix) {
			return nil, fmt.Errorf("key ranges %q and %q: prefix %x starts prefix %x", l.ranges[i-1].Name, r.Name, l.ranges[i-1].Prefix, r.Prefix)
		}
		l.ends = append(l.ends, PrefixEnd(r.Prefix))
	}
	return l, nil
}

// Ranges returns the ranges in key order. The caller must not modify them.
func (l *Layout) Ranges() []Range { return l.ranges }

// With returns the layout with ranges added; a range already in l (the same name and prefix) is
// left as it is. added are the ranges that are new.
func (l *Layout) With(ranges []Range) (next *Layout, added []Range, err error) {
	all := append([]Range{}, l.ranges...)
	for _, r := range ranges {
		i := l.Find(r.Prefix)
		if i > 0 && bytes.Equal(l.ranges[i-1].Prefix, r.Prefix) {
			if old := l.ranges[i-1]; old.Name != r.Name || old.Secondary != r.Secondary {
				return nil, nil, fmt.Errorf("key range %q (prefix %x): prefix already declared as %q", r.Name, r.Prefix, old.Name)
			}
			continue
		}
		all = append(all, r)
		added = append(added, r)
	}
	if next, err = NewLayout(all); err != nil {
		return nil, nil, err
	}
	return next, added, nil
}

// Find returns the part of key: i when Ranges()[i-1].Prefix starts it, 0 when no prefix does.
// It allocates nothing.
func (l *Layout) Find(key []byte) int {
	// The range of key, if any, is the last one whose prefix is <= key.
	i := sort.Search(len(l.ranges), func(i int) bool { return bytes.Compare(l.ranges[i].Prefix, key) > 0 })
	if i > 0 && bytes.HasPrefix(key, l.ranges[i-1].Prefix) {
		return i
	}
	return 0
}

// Span is the piece of an iterator's bounds that lies in one part: keys in [Lower, Upper), a nil
// bound unbounded.
type Span struct {
	Part         int
	Lower, Upper []byte
}

// Split appends to dst the spans of [lower, upper) (nil bounds unbounded) in key order, leaving
// out empty ones. Part 0 can have several spans (the gaps between ranges).
func (l *Layout) Split(lower, upper []byte, dst []Span) []Span {
	pos := lower // the start of what is left; nil is the start of the keyspace
	for i, r := range l.ranges {
		end := l.ends[i] // nil: the end of the keyspace
		if end != nil && pos != nil && bytes.Compare(end, pos) <= 0 {
			continue // the range lies before what is left
		}
		if upper != nil && bytes.Compare(r.Prefix, upper) >= 0 {
			break // the range and everything after it lie past upper
		}
		if pos == nil || bytes.Compare(pos, r.Prefix) < 0 {
			dst = append(dst, Span{Part: 0, Lower: pos, Upper: r.Prefix})
			pos = r.Prefix
		}
		hi := end
		if upper != nil && (hi == nil || bytes.Compare(upper, hi) < 0) {
			hi = upper
		}
		dst = append(dst, Span{Part: i + 1, Lower: pos, Upper: hi})
		if pos = hi; pos == nil {
			return dst // the range runs to the end of the keyspace
		}
		if upper != nil && bytes.Compare(pos, upper) >= 0 {
			return dst
		}
	}
	if upper == nil || pos == nil || bytes.Compare(pos, upper) < 0 {
		dst = append(dst, Span{Part: 0, Lower: pos, Upper: upper})
	}
	return dst
}
