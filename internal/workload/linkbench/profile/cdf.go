package profile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// CDF is an empirical discrete distribution: Values[i] has cumulative probability Cum[i].
// Values are strictly increasing, Cum is non-decreasing within (0, 1] apart from a possible
// leading 0, and the last Cum is 1. A CDF is read-only once built.
type CDF struct {
	Values []int64
	Cum    []float64
}

// Quantile returns the first value whose cumulative probability is at least u (u is clamped
// to [0, 1]). It is a binary search and allocates nothing. An empty CDF gives 0.
func (c *CDF) Quantile(u float64) int64 {
	n := len(c.Cum)
	if n == 0 {
		return 0
	}
	if !(u > 0) { // also NaN
		u = 0
	} else if u > 1 {
		u = 1
	}
	lo, hi := 0, n // the answer is in [lo, hi]; hi == n means none, rounding at the top
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if c.Cum[mid] >= u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == n {
		lo = n - 1
	}
	return c.Values[lo]
}

// Mean is the expected value: the sum over points of their probability (Cum[i] - Cum[i-1],
// Cum[0] for the first) times their value.
func (c *CDF) Mean() float64 {
	var sum, prev float64
	for i, v := range c.Values {
		sum += (c.Cum[i] - prev) * float64(v)
		prev = c.Cum[i]
	}
	return sum
}

// clone returns a deep copy.
func (c *CDF) clone() *CDF {
	if c == nil {
		return nil
	}
	return &CDF{
		Values: append([]int64(nil), c.Values...),
		Cum:    append([]float64(nil), c.Cum...),
	}
}

// Distributions are the empirical CDFs of a profile, named as the sections of the
// reference's Distribution.dat. NLinks (the out-degree of a node) is always present; the
// others (accesses per link and per node over the reference's sampling period) may be nil.
type Distributions struct {
	NLinks, LinkReads, LinkWrites, NodeReads, NodeWrites *CDF
}

// Section names of the reference's data file, in the order the encoding writes them.
var sectionNames = [...]string{"nlinks", "link_nreads", "link_nwrites", "node_nreads", "node_nwrites"}

// section returns the field of d that holds the named section, or nil for an unknown name.
func (d *Distributions) section(name string) **CDF {
	switch name {
	case "nlinks":
		return &d.NLinks
	case "link_nreads":
		return &d.LinkReads
	case "link_nwrites":
		return &d.LinkWrites
	case "node_nreads":
		return &d.NodeReads
	case "node_nwrites":
		return &d.NodeWrites
	}
	return nil
}

func (d *Distributions) clone() *Distributions {
	if d == nil {
		return nil
	}
	return &Distributions{
		NLinks:     d.NLinks.clone(),
		LinkReads:  d.LinkReads.clone(),
		LinkWrites: d.LinkWrites.clone(),
		NodeReads:  d.NodeReads.clone(),
		NodeWrites: d.NodeWrites.clone(),
	}
}

// lastPctSlack is how far below 100 the last percent of a section may be (rounding in the
// file); that point's cumulative probability is then taken as exactly 1.
const lastPctSlack = 1e-6

// ParseDistributions reads distributions in the format of the reference's Distribution.dat:
// a section name alone on a line (nlinks, link_nreads, link_nwrites, node_nreads,
// node_nwrites), then lines "VALUE CUMULATIVE_PERCENT" with strictly increasing integer
// values and non-decreasing percents in [0, 100], the last one 100. Sections may come in any
// order; nlinks is required. Blank lines and lines starting with '#' are skipped. name (the
// file's name) prefixes every error, with the line number where there is one.
func ParseDistributions(r io.Reader, name string) (*Distributions, error) {
	p := &distParser{d: &Distributions{}, name: name, seen: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var err error
		switch fields := strings.Fields(text); len(fields) {
		case 1:
			err = p.section(line, fields[0])
		case 2:
			err = p.point(line, fields[0], fields[1])
		default:
			err = fmt.Errorf("%s:%d: want a section name or \"VALUE PERCENT\", got %d fields", name, line, len(fields))
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if p.d.NLinks == nil {
		return nil, fmt.Errorf("%s: no nlinks section", name)
	}
	return p.d, nil
}

// distParser is the state of ParseDistributions: the distributions read so far and the
// section being read.
type distParser struct {
	d       *Distributions
	name    string // the file's name
	cur     *CDF   // section being read
	curName string // its name
	curLine int    // line of its header
	lastPt  int    // line of its last point
	lastPct float64
	seen    map[string]bool
}

// finish ends the section being read, if any: it must have points and end at 100 percent.
func (p *distParser) finish() error {
	if p.cur == nil {
		return nil
	}
	if len(p.cur.Values) == 0 {
		return fmt.Errorf("%s:%d: section %s has no points", p.name, p.curLine, p.curName)
	}
	if math.Abs(p.lastPct-100) > lastPctSlack {
		return fmt.Errorf("%s:%d: section %s ends at %v percent, not 100", p.name, p.lastPt, p.curName, p.lastPct)
	}
	p.cur.Cum[len(p.cur.Cum)-1] = 1
	*p.d.section(p.curName) = p.cur
	p.cur = nil
	return nil
}

// section ends the section being read and starts section sec, at line.
func (p *distParser) section(line int, sec string) error {
	if err := p.finish(); err != nil {
		return err
	}
	if p.d.section(sec) == nil {
		return fmt.Errorf("%s:%d: unknown section %q (want one of %s)", p.name, line, sec, strings.Join(sectionNames[:], ", "))
	}
	if p.seen[sec] {
		return fmt.Errorf("%s:%d: section %s appears twice", p.name, line, sec)
	}
	p.seen[sec] = true
	p.cur, p.curName, p.curLine = &CDF{}, sec, line
	return nil
}

// point adds the point at line, value and cumulative percent, to the section being read.
func (p *distParser) point(line int, value, percent string) error {
	if p.cur == nil {
		return fmt.Errorf("%s:%d: a point before any section name", p.name, line)
	}
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return fmt.Errorf("%s:%d: value %q is not an integer", p.name, line, value)
	}
	pct, err := strconv.ParseFloat(percent, 64)
	if err != nil || math.IsNaN(pct) {
		return fmt.Errorf("%s:%d: percent %q is not a number", p.name, line, percent)
	}
	if pct < 0 || pct > 100 {
		return fmt.Errorf("%s:%d: percent %v is outside [0, 100]", p.name, line, pct)
	}
	if n := len(p.cur.Values); n > 0 {
		if v <= p.cur.Values[n-1] {
			return fmt.Errorf("%s:%d: value %d does not increase (previous %d)", p.name, line, v, p.cur.Values[n-1])
		}
		if pct < p.lastPct {
			return fmt.Errorf("%s:%d: percent %v decreases (previous %v)", p.name, line, pct, p.lastPct)
		}
	}
	p.cur.Values = append(p.cur.Values, v)
	p.cur.Cum = append(p.cur.Cum, pct/100)
	p.lastPct, p.lastPt = pct, line
	return nil
}

// validate checks the invariants of a CDF.
func (c *CDF) validate() error {
	if len(c.Values) == 0 || len(c.Values) != len(c.Cum) {
		return fmt.Errorf("%d values and %d cumulative probabilities", len(c.Values), len(c.Cum))
	}
	prev := 0.0
	for i, p := range c.Cum {
		if !(p >= prev) || i > 0 && c.Values[i] <= c.Values[i-1] {
			return fmt.Errorf("point %d (value %d, cumulative %v) does not increase", i, c.Values[i], p)
		}
		prev = p
	}
	if math.Abs(prev-1) > 1e-9 {
		return fmt.Errorf("last cumulative probability %v is not 1", prev)
	}
	return nil
}
