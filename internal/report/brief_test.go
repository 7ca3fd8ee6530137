package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// TestGoldenFullText holds the full terminal summary (run --summary full, WriteText) of every
// fixture: the brief summary made the default must leave it as it was.
func TestGoldenFullText(t *testing.T) {
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, loadFixture(t, name).Run, testLayouts()); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".full.golden.txt", b.String())
		})
	}
}

// textTables returns the terminal tables of txt, each as its lines from its top border to its
// bottom one.
func textTables(txt string) []string {
	var out []string
	lines := strings.Split(txt, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "┌") {
			continue
		}
		j := i
		for j < len(lines) && !strings.HasPrefix(lines[j], "└") {
			j++
		}
		out = append(out, strings.Join(lines[i:j+1], "\n"))
		i = j
	}
	return out
}

// TestBriefSummary checks the brief summary of each workload against its full one: the top
// summary and the workload's throughput table, each exactly as the full summary prints it,
// none of the other tables (the steps, latency, efficiency, engine debt, resources), each
// configuration's status line but not its builds and notes, the number of the tables it
// leaves out, and fewer lines.
func TestBriefSummary(t *testing.T) {
	for name, title := range map[string]string{"insert": "Throughput", "iibench": "iiBench", "linkbench": "LinkBench", "repeat": "Throughput"} {
		t.Run(name, func(t *testing.T) {
			r := loadFixture(t, name).Run
			var brief, full bytes.Buffer
			if err := WriteBrief(&brief, r, testLayouts()); err != nil {
				t.Fatal(err)
			}
			if err := WriteText(&full, r, testLayouts()); err != nil {
				t.Fatal(err)
			}
			bt, ft := textTables(brief.String()), textTables(full.String())
			if len(bt) != 2 || !strings.Contains(bt[0], "│ "+topTitle) || !strings.Contains(strings.SplitN(bt[1], "\n", 3)[1], "│ "+title+" ") {
				t.Fatalf("brief tables:\n%s\nwant the top summary and the %s table", strings.Join(bt, "\n"), title)
			}
			for _, tb := range bt {
				if !slices.Contains(ft, tb) {
					t.Errorf("the brief's table is not the full summary's:\n%s", tb)
				}
			}
			for _, tb := range ft {
				if !slices.Contains(bt, tb) && strings.Contains(brief.String(), tb) {
					t.Errorf("the brief summary prints a table of the full one:\n%s", tb)
				}
			}
			for _, w := range []string{"Efficiency: ", "Cleanup: engine debt", "Latency", "CPUPQ", "Resources per second"} {
				if strings.Contains(brief.String(), w) {
					t.Errorf("the brief summary shows %q", w)
				}
			}
			if want := fmt.Sprintf("\n%d more tables and the legend are in summary.md", len(ft)-len(bt)); !strings.Contains(brief.String(), want) {
				t.Errorf("the brief summary lacks %q:\n%s", want, brief.String())
			}
			cr, _ := collapseRepeats(r)
			for _, c := range cr.Configs {
				if !strings.Contains(brief.String(), "\n"+configStatus(c)+"\n") {
					t.Errorf("the brief summary lacks %s's status", c.Name)
				}
			}
			if strings.Contains(brief.String(), "embedded engine: ") || strings.Contains(brief.String(), ": build library ") {
				t.Errorf("the brief summary shows the configurations' notes or builds:\n%s", brief.String())
			}
			if b, f := strings.Count(brief.String(), "\n"), strings.Count(full.String(), "\n"); b*2 > f {
				t.Errorf("brief summary of %d lines, full of %d", b, f)
			}
		})
	}
}

// The brief summary keeps the header's warnings (a process the OOM killer killed).
func TestBriefKeepsWarnings(t *testing.T) {
	in := loadFixture(t, "insert")
	in.Run.Configs[2].Memory.OOMKills = 3 // pebble
	var b bytes.Buffer
	if err := WriteBrief(&b, in.Run, testLayouts()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n"+warningPrefix+"pebble: the kernel's OOM killer killed 3 processes") {
		t.Errorf("the brief summary lacks pebble's OOM warning:\n%s", b.String())
	}
}

// A run flagged by many checks lists the first maxBriefFlags flags, then counts the others by
// configuration, so that the brief summary stays about a screen; summary.md lists them all.
func TestBriefFlagsCapped(t *testing.T) {
	in := loadFixture(t, "insert")
	r := in.Run
	per := map[string]int{"sqlite-normal": 6, "sqlite-full": 6, "pebble": 3}
	var all []string
	for i := range r.Configs {
		c := &r.Configs[i]
		for j := 0; j < per[c.Name]; j++ {
			s := &c.Steps[j]
			msg := fmt.Sprintf("check%d %d%% during %s: figures may be noisy", j, 10+j, s.Name)
			s.Verdicts = []result.Verdict{{Check: fmt.Sprintf("check%d", j), State: result.VerdictFlag, Value: ptr(float64(10 + j)), Threshold: ptr(5), Message: msg}}
			all = append(all, c.Name+": "+msg)
		}
	}
	var b bytes.Buffer
	if err := WriteBrief(&b, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	listed := "  " + strings.Join(all[:maxBriefFlags], "\n  ") + "\n"
	// Of the 5 left: sqlite-full's last 2 (6 of its 12 come after sqlite-normal's 6) and pebble's 3.
	more := fmt.Sprintf("  and %d more (sqlite-full %d, pebble %d)\n", len(all)-maxBriefFlags, 6+6-maxBriefFlags, 3)
	if !strings.Contains(b.String(), listed+more) {
		t.Errorf("brief flags: want\n%s%s\nin\n%s", listed, more, b.String())
	}
	if md := Markdown(r, testLayouts()); !strings.Contains(md, "- "+strings.Join(all, "\n- ")+"\n") {
		t.Errorf("summary.md does not list every flag:\n%s", md)
	}
}

// A check that flagged several steps of a configuration is one line of the flags: the first
// step's flag, then the others named (up to maxNamedSteps); the verdicts' tables have a row each.
func TestBriefFlagsGrouped(t *testing.T) {
	in := loadFixture(t, "insert")
	r := in.Run
	steal := func(s *result.Step) {
		s.Verdicts = []result.Verdict{{Check: "steal", State: result.VerdictFlag, Value: ptr(9), Threshold: ptr(5), Message: "steal 9% during " + s.Name + ": figures may be noisy"}}
	}
	normal, full := r.Configs[0].Steps, r.Configs[1].Steps
	for i := range normal[:maxNamedSteps+2] {
		steal(&normal[i])
	}
	steal(&full[0])
	steal(&full[3])
	var names []string
	for _, s := range normal[1 : maxNamedSteps+1] {
		names = append(names, s.Name)
	}
	want := []string{
		fmt.Sprintf("  sqlite-normal: steal 9%% during %s: figures may be noisy (and %d more steps: %s, ...)\n", normal[0].Name, maxNamedSteps+1, strings.Join(names, ", ")),
		fmt.Sprintf("  sqlite-full: steal 9%% during %s: figures may be noisy (and step %s)\n", full[0].Name, full[3].Name),
	}
	var b bytes.Buffer
	if err := WriteBrief(&b, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), want[0]+want[1]) {
		t.Errorf("brief flags: want\n%s\nin\n%s", strings.Join(want, ""), b.String())
	}
	md := Markdown(r, testLayouts())
	if !strings.Contains(md, "\n- "+strings.TrimPrefix(want[0], "  ")+"- "+strings.TrimPrefix(want[1], "  ")) {
		t.Errorf("summary.md's flags are not the same lines:\n%s", md)
	}
	for _, s := range normal[:maxNamedSteps+2] {
		if got := mdTableRow(t, md, stepVerdictsTitle, "sqlite-normal", s.Name, "steal"); got[3] != "flag" {
			t.Errorf("summary.md's verdicts: %s row %q", s.Name, got)
		}
	}
}
