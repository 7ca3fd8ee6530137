package linkbench

import "sync/atomic"

// idSet is a set of ids within fixed ranges (the ranges verification reads): one bit per id,
// set by any goroutine without a lock; an id outside the ranges is never held. Its size is
// bounded by the ranges' (fullCheckNodes ids at most: 128 KB).
type idSet struct {
	ranges [][2]int64 // sorted, disjoint [lo, hi)
	offs   []int64    // the bit of each range's lo
	bits   []atomic.Uint64
}

// newIDSet returns an empty set over ranges (sorted, disjoint).
func newIDSet(ranges [][2]int64) *idSet {
	s := &idSet{ranges: ranges, offs: make([]int64, len(ranges))}
	var n int64
	for i, r := range ranges {
		s.offs[i] = n
		n += r[1] - r[0]
	}
	s.bits = make([]atomic.Uint64, (n+63)/64)
	return s
}

// bit returns the bit of id, and false when id is outside the ranges.
func (s *idSet) bit(id int64) (int64, bool) {
	lo, hi := 0, len(s.ranges)
	for lo < hi { // the first range that ends after id
		mid := int(uint(lo+hi) >> 1)
		if s.ranges[mid][1] > id {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == len(s.ranges) || id < s.ranges[lo][0] {
		return 0, false
	}
	return s.offs[lo] + id - s.ranges[lo][0], true
}

// add puts id in the set (nothing when it is outside the ranges).
func (s *idSet) add(id int64) {
	if b, ok := s.bit(id); ok {
		s.bits[b/64].Or(1 << (b % 64))
	}
}

// has reports whether id is in the set.
func (s *idSet) has(id int64) bool {
	b, ok := s.bit(id)
	return ok && s.bits[b/64].Load()&(1<<(b%64)) != 0
}
