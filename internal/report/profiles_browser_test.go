package report

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// flameProbe is what the browser test reads of the page's flame graphs.
type flameProbe struct {
	Graphs  int      `json:"graphs"`
	Sized   int      `json:"sized"`   // graphs laid out wider than 600 and taller than 40 pixels
	Frames  int      `json:"frames"`  // frames (g[data-fn]) with a rectangle of non-zero size
	Matches []string `json:"matches"` // the data-fn of the highlighted frames
	Fill    string   `json:"fill"`    // the computed fill of a highlighted frame
	Other   string   `json:"other"`   // and of a frame not highlighted (wal.Write's caller)
	Status  string   `json:"status"`
}

const probeFlames = `(() => {
  const svgs = [...document.querySelectorAll("svg.flame")];
  const frames = [...document.querySelectorAll("svg.flame g[data-fn]")];
  const fill = sel => { const r = document.querySelector(sel); return r ? getComputedStyle(r).fill : ""; };
  return {
    graphs: svgs.length,
    sized: svgs.filter(s => { const r = s.getBoundingClientRect(); return r.width > 600 && r.height > 40; }).length,
    frames: frames.filter(g => { const r = g.querySelector("rect").getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length,
    matches: frames.filter(g => g.classList.contains("match")).map(g => g.dataset.fn),
    fill: fill("svg.flame g.match rect"),
    other: fill('svg.flame:not(.flame-diff) g[data-fn="db.Insert"] rect'),
    status: document.querySelector(".flame-matches").textContent,
  };
})()`

// TestFlameGraphSearchInBrowser opens the page of a profiled run: its three flame graphs
// (pebble's, rocksdb's, rocksdb against pebble) are laid out with their frames, and typing a
// part of a function's name, in another case, into the search box highlights that function's
// frames in every graph and no other. ENGINEBENCH_SCREENSHOTS keeps the screenshot
// (flame.png).
func TestFlameGraphSearchInBrowser(t *testing.T) {
	requireChromium(t)
	p := profiledPage(t, profiledRunDir(t))
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	var before, after flameProbe
	res := openReport(t, html.Bytes(), func(ctx context.Context) error {
		var err error
		if before, err = chromedp.Run(ctx, chromedp.Evaluate[flameProbe](probeFlames)); err != nil {
			return err
		}
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("input.flame-search"), "WAL.w")); err != nil {
			return err
		}
		after, err = chromedp.Run(ctx, chromedp.Evaluate[flameProbe](probeFlames))
		return err
	})
	if before.Graphs != 3 || before.Sized != 3 || len(before.Matches) != 0 {
		t.Errorf("before searching: %d graphs, %d laid out, matches %v; want 3, 3 and none", before.Graphs, before.Sized, before.Matches)
	}
	// all, main, db.Insert, memtable.Add, wal.Write, runtime.gcBgMarkWorker in pebble's; and
	// compaction.Run in rocksdb's and in the diff.
	if want := 6 + 7 + 7; before.Frames != want {
		t.Errorf("%d frames drawn, want %d", before.Frames, want)
	}
	if !slices.Equal(after.Matches, []string{"wal.Write", "wal.Write", "wal.Write"}) || after.Status != "3 frames match" {
		t.Errorf("after typing WAL.w: matches %v (%q), want wal.Write in each of the 3 graphs", after.Matches, after.Status)
	}
	if after.Fill != "rgb(230, 60, 230)" || after.Other == after.Fill || after.Other == "" {
		t.Errorf("highlighted frame's fill %q, a frame not highlighted %q; want rgb(230, 60, 230) and another", after.Fill, after.Other)
	}
	keepScreenshot("flame", res.Screenshot)
}
