package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// stepOf returns the step of r's configuration, failing t when there is none.
func stepOf(t *testing.T, r *result.Run, config, step string) *result.Step {
	t.Helper()
	for i := range r.Configs {
		if r.Configs[i].Name != config {
			continue
		}
		for j := range r.Configs[i].Steps {
			if r.Configs[i].Steps[j].Name == step {
				return &r.Configs[i].Steps[j]
			}
		}
	}
	t.Fatalf("no step %s of %s", step, config)
	return nil
}

// withVerdicts is the insert fixture with verdicts as the checks record them: a flagged host
// (SMT on), a step flagged for steal beside a sensor that is absent (no pressure stall
// information: "-") and a check that passed, and a step of another configuration flagged by a
// check without a message.
func withVerdicts(t *testing.T) Input {
	in := loadFixture(t, "insert")
	r := in.Run
	r.Verdicts = []result.Verdict{
		{Check: "smt", State: result.VerdictFlag, Message: "SMT is on: two threads share each core, figures may vary with what runs beside them"},
		{Check: "governor", State: result.VerdictOK, Message: "governor performance"},
	}
	stepOf(t, r, "sqlite-normal", "qr100").Verdicts = []result.Verdict{
		{Check: "steal", State: result.VerdictFlag, Value: ptr(7), Threshold: ptr(5), Unit: "%", Message: "steal 7% during qr100: figures may be noisy"},
		{Check: "psi_io", State: result.VerdictUnmeasured, Message: "no /proc/pressure/io (kernel without PSI)"},
		{Check: "swap", State: result.VerdictOK, Value: ptr(0), Threshold: ptr(0)},
	}
	stepOf(t, r, "pebble", "l.i1").Verdicts = []result.Verdict{
		{Check: "other_cpu", State: result.VerdictFlag, Value: ptr(23.5), Threshold: ptr(10)},
	}
	return in
}

// The flags in words, as every output says them: the host's, then each step's, a step named
// where its message does not name it.
var wantFlags = []string{
	"host: SMT is on: two threads share each core, figures may vary with what runs beside them",
	"sqlite-normal: steal 7% during qr100: figures may be noisy",
	"pebble: l.i1: other_cpu 23.5 above its threshold 10: figures may be off",
}

// mdTableRow returns the cells of the row of markdown table title (its "## " or "### " heading)
// whose first cells are key, failing t when there is none.
func mdTableRow(t *testing.T, md, title string, key ...string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(md, " "+title+"\n")
	if !ok {
		t.Fatalf("no table %q in:\n%s", title, md)
	}
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) >= len(key) && slices.Equal(cells[:len(key)], key) {
			return cells
		}
	}
	t.Fatalf("table %q has no row %q", title, key)
	return nil
}

// checkVerdictRows checks the verdicts' tables of md (summary.md or report.md): the host's
// flag and pass, the step's flag with its figures, its absent sensor as "-", never as ok, and
// the pass.
func checkVerdictRows(t *testing.T, md string) {
	t.Helper()
	if got := mdTableRow(t, md, hostVerdictsTitle, "smt"); !slices.Equal(got, []string{"smt", "flag", "-", "-", wantFlags[0][len("host: "):]}) {
		t.Errorf("host's smt row %q", got)
	}
	if got := mdTableRow(t, md, hostVerdictsTitle, "governor"); got[1] != "ok" {
		t.Errorf("host's governor row %q", got)
	}
	if got := mdTableRow(t, md, stepVerdictsTitle, "sqlite-normal", "qr100", "steal"); !slices.Equal(got[3:], []string{"flag", "7 %", "5 %", "steal 7% during qr100: figures may be noisy"}) {
		t.Errorf("steal row %q", got)
	}
	if got := mdTableRow(t, md, stepVerdictsTitle, "sqlite-normal", "qr100", "psi_io"); !slices.Equal(got[3:], []string{"-", "-", "-", "no /proc/pressure/io (kernel without PSI)"}) {
		t.Errorf("an absent sensor's row %q: want \"-\", never ok", got)
	}
	if got := mdTableRow(t, md, stepVerdictsTitle, "sqlite-normal", "qr100", "swap"); !slices.Equal(got[3:6], []string{"ok", "0", "0"}) {
		t.Errorf("swap row %q", got)
	}
	if got := mdTableRow(t, md, stepVerdictsTitle, "pebble", "l.i1", "other_cpu"); !slices.Equal(got[3:6], []string{"flag", "23.5", "10"}) {
		t.Errorf("other_cpu row %q", got)
	}
}

// checkFlagList checks that md lists the flags in words under a Flags heading, after the top
// summary and before the workload's first table.
func checkFlagList(t *testing.T, md, heading string) {
	t.Helper()
	list := ""
	for _, f := range wantFlags {
		list += "- " + f + "\n"
	}
	at, glance, tput := strings.Index(md, heading+" "+flagsTitle+"\n"), strings.Index(md, " At a glance"), strings.Index(md, " Throughput\n")
	if at < 0 || !strings.Contains(md[at:], "3 flags of 6 checks (1 unmeasured") || !strings.Contains(md[at:], list) {
		t.Fatalf("no flags or not in words:\n%s", md)
	}
	if glance < 0 || tput < 0 || at < glance || at > tput {
		t.Errorf("flags at %d: want them between the top summary (%d) and the throughput (%d)", at, glance, tput)
	}
}

func TestVerdictsInSummaryMarkdown(t *testing.T) {
	md := Markdown(withVerdicts(t).Run, testLayouts())
	checkFlagList(t, md, "##")
	checkVerdictRows(t, md)
	if !strings.Contains(md, "- "+verdictLegend) {
		t.Error("summary.md's legend does not explain the verdicts")
	}
}

func TestVerdictsInFullText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, withVerdicts(t).Run, testLayouts()); err != nil {
		t.Fatal(err)
	}
	txt := b.String()
	want := "\nFlags: 3 flags of 6 checks (1 unmeasured; the Verdicts tables show every check): these figures may not be trusted as they are.\n  " + strings.Join(wantFlags, "\n  ") + "\n"
	if !strings.Contains(txt, want) {
		t.Errorf("the full summary lacks\n%s\nin\n%s", want, txt)
	}
	for _, w := range []string{"│ " + hostVerdictsTitle, "│ " + stepVerdictsTitle} {
		if !strings.Contains(txt, w) {
			t.Errorf("the full summary lacks %q", w)
		}
	}
	if got := textRow(txt, "sqlite-normal", "qr100", "psi_io"); len(got) < 4 || got[3] != missing {
		t.Errorf("an absent sensor's row %q: want \"-\", never ok", got)
	}
}

// textRow returns the cells of the first row of a terminal table in txt whose first cells are
// key, nil when there is none.
func textRow(txt string, key ...string) []string {
	for _, line := range strings.Split(txt, "\n") {
		cells := strings.Split(strings.Trim(line, "│ "), "│")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) >= len(key) && slices.Equal(cells[:len(key)], key) {
			return cells
		}
	}
	return nil
}

// A run without verdicts (one made before the checks, every fixture) shows nothing of them:
// its page and report.md are the golden files, its full text summary too; summary.md here.
func TestNoVerdictsShowNothing(t *testing.T) {
	for _, name := range []string{"insert", "iibench", "linkbench", "repeat"} {
		md := Markdown(loadFixture(t, name).Run, testLayouts())
		var b bytes.Buffer
		if err := WriteBrief(&b, loadFixture(t, name).Run, testLayouts()); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{md, b.String()} {
			if strings.Contains(out, flagsTitle) || strings.Contains(out, verdictsTitle) {
				t.Errorf("%s: a run without verdicts shows flags or verdicts:\n%s", name, out)
			}
		}
	}
}

// A run whose checks all passed or could not be made says so among the flags: no flag, and
// how many checks were not made, never as passes.
func TestNoFlagSaysSo(t *testing.T) {
	in := loadFixture(t, "insert")
	stepOf(t, in.Run, "pebble", "l.i0").Verdicts = []result.Verdict{
		{Check: "steal", State: result.VerdictUnmeasured, Message: "no steal in /proc/stat"},
		{Check: "swap", State: result.VerdictOK, Value: ptr(0), Threshold: ptr(0)},
	}
	var b bytes.Buffer
	if err := WriteBrief(&b, in.Run, testLayouts()); err != nil {
		t.Fatal(err)
	}
	if want := "\nFlags: no flag of 2 checks (1 unmeasured; summary.md has every check).\n"; !strings.Contains(b.String(), want) {
		t.Errorf("brief summary lacks %q:\n%s", want, b.String())
	}
	p, err := NewPage([]Input{in}, withLayouts(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Sections[1]; s.ID != "flags" || len(s.Blocks) != 1 || !strings.HasPrefix(s.Blocks[0].Text, "no flag of 2 checks (1 unmeasured;") {
		t.Errorf("the page's second section %+v: want the flags saying there is none", s)
	}
}

func TestVerdictsOnThePage(t *testing.T) {
	p, err := NewPage([]Input{withVerdicts(t)}, withLayouts(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range p.Sections {
		ids = append(ids, s.ID)
	}
	if len(ids) < 4 || ids[0] != "top" || ids[1] != "flags" || ids[len(ids)-2] != "verdicts" || ids[len(ids)-1] != "metadata" {
		t.Fatalf("sections %v: want the flags after the top summary and the verdicts before the metadata", ids)
	}
	if items := p.Sections[1].Blocks[1].Items; !slices.Equal(items, wantFlags) {
		t.Errorf("flags %q, want %q", items, wantFlags)
	}
	text, class := cell(t, p, stepVerdictsTitle, "sqlite-normal", "state")
	if text != "flag" || class != ClassBad {
		t.Errorf("the first step verdict's state %q class %q, want a flag in red", text, class)
	}
	var steps *Table
	for _, b := range p.Sections[len(ids)-2].Blocks {
		if b.Table != nil && b.Table.Title == stepVerdictsTitle {
			steps = b.Table
		}
	}
	if steps == nil || len(steps.Rows) != 4 {
		t.Fatalf("steps' verdicts %+v", steps)
	}
	if r, c := steps.Rows[1], steps.Class[1]; r[3] != missing || c[3] != ClassMissing {
		t.Errorf("an absent sensor's state %q class %q, want \"-\" in grey", r[3], c[3])
	}
	if src := steps.Src[0][4].String(); src != "testdata/insert/run.json: config sqlite-normal, step qr100, verdicts[0].value" {
		t.Errorf("the steal value's source %q", src)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<li>sqlite-normal: steal 7% during qr100: figures may be noisy</li>`) {
		t.Error("the HTML page does not list the flags")
	}
	md := MarkdownPage(p)
	checkFlagList(t, md, "##")
	checkVerdictRows(t, md)
}

// Verdicts of each repeat stay the repeat's own (its environment is its own); a page of two
// runs names each run's host.
func TestVerdictsOfRepeatsAndRuns(t *testing.T) {
	rep := loadFixture(t, "repeat")
	stepOf(t, rep.Run, "sqlite#2", "l.i1").Verdicts = []result.Verdict{{Check: "swap", State: result.VerdictFlag, Value: ptr(12), Threshold: ptr(0), Message: "swap 12 pages/s during l.i1"}}
	md := Markdown(rep.Run, testLayouts())
	if got := mdTableRow(t, md, stepVerdictsTitle, "sqlite#2", "l.i1", "swap"); got[3] != "flag" {
		t.Errorf("repeat's verdict row %q", got)
	}
	if !strings.Contains(md, "- sqlite#2: swap 12 pages/s during l.i1\n") {
		t.Errorf("summary.md does not name the repeat of the flag:\n%s", md)
	}
	a, b := withVerdicts(t), withVerdicts(t)
	a.Dir, b.Dir = "night1", "night2"
	p, err := NewPage([]Input{a, b}, withLayouts(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md = MarkdownPage(p)
	if got := mdTableRow(t, md, hostVerdictsTitle, "night2", "smt"); got[2] != "flag" {
		t.Errorf("second run's host row %q", got)
	}
	if got := mdTableRow(t, md, stepVerdictsTitle, "night2/pebble", "l.i1"); got[4] != "23.5" {
		t.Errorf("second run's pebble row %q", got)
	}
	if !strings.Contains(md, "- night1 host: "+wantFlags[0][len("host: "):]+"\n") || !strings.Contains(md, "- night2/"+wantFlags[2]+"\n") {
		t.Errorf("report.md's flags do not name their runs:\n%s", md)
	}
}

// A flag without a message is said by its check, with its value and threshold when it has them.
func TestFlagTextWithoutMessage(t *testing.T) {
	for _, c := range []struct {
		v    result.Verdict
		want string
	}{
		{result.Verdict{Check: "swap", State: result.VerdictFlag, Value: ptr(3.5), Threshold: ptr(0)}, "swap 3.5 above its threshold 0: figures may be off"},
		{result.Verdict{Check: "governor", State: result.VerdictFlag}, "governor flagged: figures may be off"},
		{result.Verdict{Check: "governor", State: result.VerdictFlag, Message: "governor powersave"}, "governor powersave"},
	} {
		if got := flagText(c.v); got != c.want {
			t.Errorf("flagText(%+v) = %q, want %q", c.v, got, c.want)
		}
	}
}
