package gen

import "math/rand/v2"

// Shuffler is a fixed pseudo-random permutation of [0, n) with an O(1) inverse. The ids are
// split into residue groups (i mod groups); each group is rotated by its own random offset,
// drawn from the seed. It scatters ranks over the id space (consecutive ranks land in
// different groups, far apart) without any table of size n.
type Shuffler struct {
	n      int64
	groups int64   // number of residue groups (at most n)
	base   int64   // members of a group: base, plus 1 for the first big groups
	big    int64   // groups [0, big) have base+1 members
	rot    []int64 // rotation of each group, in [0, its size)
}

// NewShuffler returns the permutation of [0, n) given by seed and the number of groups.
// groups is capped at n (and at least 1); n <= 0 gives an empty permutation.
func NewShuffler(seed uint64, groups int, n int64) *Shuffler {
	s := &Shuffler{n: max(n, 0)}
	if s.n == 0 {
		return s
	}
	s.groups = min(max(int64(groups), 1), s.n)
	s.base, s.big = s.n/s.groups, s.n%s.groups
	r := rand.New(rand.NewPCG(seed, 0x73687566666c6572))
	s.rot = make([]int64, s.groups)
	for g := range s.rot {
		s.rot[g] = r.Int64N(s.size(int64(g)))
	}
	return s
}

func (s *Shuffler) size(g int64) int64 {
	if g < s.big {
		return s.base + 1
	}
	return s.base
}

// N returns the size of the permuted range.
func (s *Shuffler) N() int64 { return s.n }

// Permute maps i in [0, n) to its place in the permutation. Values outside [0, n) are
// returned unchanged.
func (s *Shuffler) Permute(i int64) int64 {
	if i < 0 || i >= s.n {
		return i
	}
	g, pos := i%s.groups, i/s.groups
	size := s.size(g)
	if pos += s.rot[g]; pos >= size {
		pos -= size
	}
	return pos*s.groups + g
}

// Invert is the inverse of Permute: Invert(Permute(i)) == i.
func (s *Shuffler) Invert(i int64) int64 {
	if i < 0 || i >= s.n {
		return i
	}
	g, pos := i%s.groups, i/s.groups
	if pos -= s.rot[g]; pos < 0 {
		pos += s.size(g)
	}
	return pos*s.groups + g
}
