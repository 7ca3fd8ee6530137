package report

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// flagsProbe is what the browser test reads of the page's flags and verdicts.
type flagsProbe struct {
	Sections []string `json:"sections"`
	Flags    []string `json:"flags"`
	Color    string   `json:"color"`
	FlagsTop float64  `json:"flagsTop"`
	Fold     float64  `json:"fold"`
	Flagged  string   `json:"flagged"`
	Missing  string   `json:"missing"`
}

// probeFlags reads the ids of the sections in order, the flags' texts, colour and place, and
// the state cells of the verdicts' tables: the first flagged one's text and background, and the
// text and class of the absent sensor's (psi_io).
const probeFlags = `(() => {
  const ids = [...document.querySelectorAll("main > section")].map(s => s.id);
  const items = [...document.querySelectorAll("#flags li")];
  const flagged = document.querySelector("#verdicts td.bad");
  const psi = [...document.querySelectorAll("#verdicts tr")].find(tr => [...tr.children].some(td => td.textContent === "psi_io"));
  return {sections: ids, flags: items.map(li => li.textContent),
    color: items.length ? getComputedStyle(items[0]).color : "",
    flagsTop: document.querySelector("#flags").getBoundingClientRect().top, fold: window.innerHeight,
    flagged: flagged ? flagged.textContent + " " + getComputedStyle(flagged).backgroundColor : "",
    missing: psi ? psi.children[3].textContent + " " + psi.children[3].className : ""};
})()`

// TestFlagsInBrowser opens a page with verdicts in headless Chromium: the flags in words, in
// red, right after the top summary and starting above the fold; the verdicts' tables with the
// flagged state painted red and the unmeasured one "-".
func TestFlagsInBrowser(t *testing.T) {
	requireChromium(t)
	_, html := pageHTML(t, withVerdicts(t))
	var got flagsProbe
	res := openReport(t, html.Bytes(), func(ctx context.Context) error {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[flagsProbe](probeFlags))
		return err
	})
	keepScreenshot("flags", res.Screenshot)
	if len(got.Sections) < 3 || got.Sections[0] != "top" || got.Sections[1] != "flags" || !slices.Contains(got.Sections, "verdicts") {
		t.Errorf("sections %v: want the flags right after the top summary, and the verdicts", got.Sections)
	}
	if !slices.Equal(got.Flags, wantFlags) || got.Color != "rgb(179, 38, 30)" {
		t.Errorf("flags %q in %s, want %q in red (rgb(179, 38, 30))", got.Flags, got.Color, wantFlags)
	}
	if got.FlagsTop <= 0 || got.FlagsTop >= got.Fold {
		t.Errorf("flags at %.0f px, want them above the fold at %.0f", got.FlagsTop, got.Fold)
	}
	if got.Flagged != "flag rgb(248, 196, 196)" || got.Missing != missing+" "+ClassMissing {
		t.Errorf("verdicts' state cells: flagged %q, unmeasured %q; want a flag painted red (#f8c4c4) and \"-\" in grey", got.Flagged, got.Missing)
	}
}
