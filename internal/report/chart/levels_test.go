package chart

import (
	"math"
	"strings"
	"testing"
)

// A capacity chart is a well-formed <svg> with the series' colour, the pass and fail legend
// and the achieved = target line; no level (or only non-finite ones) says "no data".
func TestLevels(t *testing.T) {
	svg, err := Levels([]LevelSeries{{Name: "rocksdb", Color: 1, Levels: []Level{
		{Target: 100, Achieved: 100, Pass: true}, {Target: 400, Achieved: 250}, {Target: 200, Achieved: 199, Pass: true}}}},
		Options{Title: "capacity", XLabel: "target", YLabel: "achieved", Legend: true})
	if err != nil {
		t.Fatal(err)
	}
	parse(t, svg)
	s := string(svg)
	for _, want := range []string{"rocksdb", "pass", "fail", "achieved = target", Color(1)} {
		if !strings.Contains(s, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(s, "no data") {
		t.Error("a chart with levels says no data")
	}
	for _, series := range [][]LevelSeries{nil, {{Name: "x", Levels: []Level{{Target: math.NaN(), Achieved: 1}}}}} {
		svg, err := Levels(series, Options{Title: "capacity"})
		if err != nil || !strings.Contains(string(svg), "no data") {
			t.Errorf("%v: %v, no \"no data\"", series, err)
		}
	}
}

func TestLevelXYsSortsByTarget(t *testing.T) {
	pass := false
	pts := levelXYs([]Level{{Target: 400, Achieved: 300}, {Target: 100, Achieved: 100, Pass: true}, {Target: 200, Achieved: 150}}, &pass)
	if len(pts) != 2 || pts[0].X != 200 || pts[1].X != 400 {
		t.Errorf("failed levels %v, want 200 then 400", pts)
	}
}
