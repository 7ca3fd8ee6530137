package chart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pathPoints returns the points of a path's d attribute.
func pathPoints(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, m := range pointRE.FindAllStringSubmatch(d, -1) {
		x, err1 := strconv.ParseFloat(m[1], 64)
		y, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("path %q", d)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

var pointRE = regexp.MustCompile(`[ML](-?[0-9.]+),(-?[0-9.]+)`)

// boxMarks are the marks of one row of a box chart as drawn: the box's x from p25 to p75 and
// its y span, the whisker's x from its start to p99 and its y, the max diamond's centre.
type boxMarks struct {
	boxes                  int
	p25, p75, boxLo, boxHi float64
	whiskers               int
	from, p99, y           float64
	diamonds               int
	max                    float64
}

// rowMarks finds the marks drawn in colour: the rectangle stroked in it, the horizontal line
// stroked in it, and the diamond filled in it.
func rowMarks(t *testing.T, root element, colour string) boxMarks {
	t.Helper()
	var m boxMarks
	root.walk(func(e element) {
		st, d := e.attr("style"), e.attr("d")
		if e.XMLName.Local != "path" {
			return
		}
		pts := pathPoints(t, d)
		switch {
		case st == "fill:none;stroke:"+colour && rectangle.MatchString(d):
			m.boxes++
			m.p25, m.p75 = math.Min(pts[0][0], pts[2][0]), math.Max(pts[0][0], pts[2][0])
			m.boxLo, m.boxHi = math.Min(pts[0][1], pts[2][1]), math.Max(pts[0][1], pts[2][1])
		case strings.HasPrefix(st, "fill:none;stroke:"+colour+";") && len(pts) == 2 && pts[0][1] == pts[1][1]:
			m.whiskers++
			m.from, m.p99, m.y = pts[0][0], pts[1][0], pts[0][1]
		case st == "fill:"+colour && len(pts) == 4:
			m.diamonds++
			m.max = (pts[1][0] + pts[3][0]) / 2
		}
	})
	return m
}

// medians returns the x of each black p50 line whose span holds y.
func medians(t *testing.T, root element, y float64) []float64 {
	t.Helper()
	var out []float64
	root.walk(func(e element) {
		if e.XMLName.Local == "path" && e.attr("style") == "fill:none;stroke:#000000;stroke-width:2" {
			pts := pathPoints(t, e.attr("d"))
			if len(pts) == 2 && pts[0][0] == pts[1][0] && math.Min(pts[0][1], pts[1][1]) < y && y < math.Max(pts[0][1], pts[1][1]) {
				out = append(out, pts[0][0])
			}
		}
	})
	return out
}

// A box chart draws each row in its colour: the box from p25 to p75 with the black p50 line in
// it, the whisker from p75 to p99 and the diamond at max, in that order along a log axis, the
// first row at the top; a row without quartiles has no box but its line, whisker and diamond;
// a row without values shows "-"; the legend names each mark.
func TestBox(t *testing.T) {
	nan := math.NaN()
	rows := []BoxRow{
		{Name: "innodb", Color: 0, P25: 0.05, P50: 0.1, P75: 0.2, P99: 1, Max: 10},
		{Name: "myrocks", Color: 1, P25: 0.3, P50: 0.4, P75: 0.9, P99: 4, Max: 5},
		{Name: "old-run", Color: 2, P25: nan, P50: 0.02, P75: nan, P99: 0.5, Max: 30},
		{Name: "not-run", Color: 3, P25: nan, P50: nan, P75: nan, P99: nan, Max: nan},
	}
	svg, err := Box(rows, Options{Title: "l.i1 insert: service time"})
	if err != nil {
		t.Fatal(err)
	}
	root := parse(t, svg)
	if want := "0 0 560 " + strconv.Itoa(BoxHeight(len(rows))); root.attr("viewBox") != want {
		t.Errorf("viewBox %q, want %q: the height grows with the rows", root.attr("viewBox"), want)
	}
	prevY := math.Inf(1)
	for i, r := range rows[:3] {
		m := rowMarks(t, root, Color(r.Color))
		if wantBox := !math.IsNaN(r.P25); m.whiskers != 1 || m.diamonds != 1 || (m.boxes == 1) != wantBox || m.boxes > 1 {
			t.Fatalf("%s: %d boxes, %d whiskers, %d diamonds in %s; want a box %v, a whisker and a diamond", r.Name, m.boxes, m.whiskers, m.diamonds, Color(r.Color), wantBox)
		}
		// In SVG's y (gonum flips it), the first row is the highest.
		if m.y >= prevY {
			t.Errorf("%s at y %v, not below the row before it (%v)", r.Name, m.y, prevY)
		}
		prevY = m.y
		p50 := medians(t, root, m.y)
		if len(p50) != 1 {
			t.Fatalf("%s: p50 lines at %v, want one", r.Name, p50)
		}
		if m.boxes == 0 {
			if m.from != p50[0] || !(p50[0] < m.p99 && m.p99 < m.max) {
				t.Errorf("%s without quartiles: whisker %v..%v, p50 %v, max %v: want the whisker from p50 to p99, then max", r.Name, m.from, m.p99, p50[0], m.max)
			}
			continue
		}
		if m.boxLo >= m.y || m.boxHi <= m.y {
			t.Errorf("%s: box y %v..%v is not around its whisker's %v", r.Name, m.boxLo, m.boxHi, m.y)
		}
		if !(m.p25 < p50[0] && p50[0] < m.p75 && m.p75 == m.from && m.from < m.p99 && m.p99 < m.max) {
			t.Errorf("%s: p25 %v p50 %v p75 %v whisker %v..%v max %v: want p25 < p50 < p75 = whisker start < p99 < max", r.Name, m.p25, p50[0], m.p75, m.from, m.p99, m.max)
		}
		if i == 0 { // log axis: p50..p99 and p99..max are each a decade, so equally long
			if math.Abs((m.p99-p50[0])-(m.max-m.p99)) > 0.05 {
				t.Errorf("innodb: a decade is %v from p50 to p99 and %v from p99 to max: not a log axis", m.p99-p50[0], m.max-m.p99)
			}
		}
	}
	if m := rowMarks(t, root, Color(3)); m.boxes+m.whiskers+m.diamonds != 0 {
		t.Errorf("a row without values is drawn: %+v", m)
	}
	tx := texts(root)
	for _, want := range []string{"l.i1 insert: service time", "ms (log scale)", "innodb", "myrocks", "old-run", "not-run", "-",
		"box: p25 to p75", "line: p50", "whisker: to p99", "diamond: max", "0.1", "1", "10"} {
		if !contains(tx, want) {
			t.Errorf("no text %q in %q", want, tx)
		}
	}
}

// Thirty rows stack, each in its colour, the chart growing with them; no row with a value, or
// none at all, says "no data".
func TestBoxManyAndNone(t *testing.T) {
	var rows []BoxRow
	for i := range 30 {
		f := float64(i + 1)
		rows = append(rows, BoxRow{Name: "c" + strconv.Itoa(i), Color: i, P25: f, P50: 2 * f, P75: 3 * f, P99: 10 * f, Max: 20 * f})
	}
	svg, err := Box(rows, Options{Title: "30"})
	if err != nil {
		t.Fatal(err)
	}
	root := parse(t, svg)
	for i := range 30 { // thirty colours: each has its one row
		if m := rowMarks(t, root, Color(i)); m.boxes != 1 || m.whiskers != 1 || m.diamonds != 1 {
			t.Errorf("colour %s: %+v, want one row", Color(i), m)
		}
	}
	if BoxHeight(30) < 30*boxRowHeight {
		t.Errorf("height %d for 30 rows", BoxHeight(30))
	}
	nan := math.NaN()
	for _, rows := range [][]BoxRow{nil, {{Name: "x", P25: nan, P50: nan, P75: nan, P99: nan, Max: nan}}, {{Name: "zero"}}} {
		svg, err := Box(rows, Options{Title: "none"})
		if err != nil || !strings.Contains(string(svg), "no data") {
			t.Errorf("%v: %v, no \"no data\"", rows, err)
		}
	}
}

// The axis labels every power of ten from end to end (gonum's LogTicks would start at 1 for
// 0.1), and 2 and 5 times them within two decades.
func TestMsTicks(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.1, 1000, []string{"0.1", "1", "10", "100", "1000"}},
		{0.001, 1, []string{"0.001", "0.01", "0.1", "1"}},
		{1, 100, []string{"1", "2", "5", "10", "20", "50", "100"}},
	} {
		var got []string
		minor := 0
		for _, tk := range (msTicks{}).Ticks(tt.lo, tt.hi) {
			if tk.Value < tt.lo*(1-1e-9) || tk.Value > tt.hi*(1+1e-9) {
				t.Errorf("%v..%v: tick %v outside", tt.lo, tt.hi, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			} else {
				minor++
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") || minor == 0 {
			t.Errorf("%v..%v: labels %q and %d minor ticks, want %q and some", tt.lo, tt.hi, got, minor, tt.want)
		}
	}
}
