package capacity

// Search is the state of a capacity search: a geometric ramp from Start by Factor until a
// level fails (or MaxLevels levels), then up to Refinements bisections between the highest
// passing and the lowest failing rate, until they are within Resolution of each other. When
// the first level fails, the refinements step down by Factor instead.
type Search struct {
	p      Params
	lo, hi float64 // the highest passing and the lowest failing rate; 0: none yet
	next   float64
	tried  int // levels tried
	refine int // refinements tried
}

// Resolution is the relative gap between a passing and a failing rate at which the search
// stops refining.
const Resolution = 0.05

// NewSearch returns the search of p.
func NewSearch(p Params) *Search { return &Search{p: p, next: p.Start} }

// Next returns the rate of the next level, or false when the search is over.
func (s *Search) Next() (float64, bool) {
	if s.hi == 0 { // ramping
		return s.next, s.tried < s.p.MaxLevels
	}
	if s.refine >= s.p.Refinements {
		return 0, false
	}
	if s.lo == 0 {
		return s.hi / s.p.Factor, true
	}
	if s.hi <= s.lo*(1+Resolution) {
		return 0, false
	}
	return (s.lo + s.hi) / 2, true
}

// Record takes the verdict of the level at rate.
func (s *Search) Record(rate float64, pass bool) {
	if s.hi != 0 {
		s.refine++
	}
	s.tried++
	if pass {
		s.lo = max(s.lo, rate)
		s.next = rate * s.p.Factor
		return
	}
	if s.hi == 0 || rate < s.hi {
		s.hi = rate
	}
}

// Best returns the highest passing rate, or false when no level passed.
func (s *Search) Best() (float64, bool) { return s.lo, s.lo > 0 }
