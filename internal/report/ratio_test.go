package report

import (
	"fmt"
	"html"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// lbEngines are the configurations of the LinkBench seed's cached against IO-bound comparison.
var lbEngines = []string{"innodb", "myrocks", "postgres", "rocksdb", "wiredtiger"}

// lbOps are the LinkBench operations with their share of the requests (fb2011, rounded).
var lbOps = map[string]float64{"ADD_LINK": 0.09, "DELETE_LINK": 0.03, "UPDATE_LINK": 0.08, "COUNT_LINK": 0.049,
	"MULTIGET_LINK": 0.005, "GET_LINKS_LIST": 0.507, "GET_NODE": 0.129, "ADD_NODE": 0.026, "UPDATE_NODE": 0.074, "DELETE_NODE": 0.01}

// lbRun builds a LinkBench run of the five configurations: a load and n request intervals of
// about secs seconds each (each of a different length, so that a plain mean of the rates differs
// from the rate over all the intervals), with rates that differ by configuration, interval and
// run (slow: the IO-bound run's factor). Every op's Units is whole and PerSec is Units/Seconds,
// as the runner writes them.
func lbRun(id string, n int, secs, slow float64) *result.Run {
	r := &result.Run{RunID: id, Status: result.StatusOK, StartedAt: time.Unix(1e9, 0),
		Workload: result.Workload{Name: "linkbench", Scale: id}}
	op := func(rate, secs float64) *result.Op {
		u := math.Round(rate * secs)
		return &result.Op{Count: int64(u), Units: int64(u), PerSec: u / secs}
	}
	for ci, name := range lbEngines {
		c := result.Config{Name: name, Engine: name, Status: result.StatusOK}
		load := result.Step{Name: "load", Status: result.StatusOK, Primary: "link", Seconds: 100 + float64(ci),
			Ops: map[string]*result.Op{}}
		load.Ops["link"] = op(50000*float64(ci+1)/slow, load.Seconds)
		c.Steps = append(c.Steps, load)
		for i := 1; i <= n; i++ {
			s := result.Step{Name: fmt.Sprintf("run.%d", i), Status: result.StatusOK, Primary: lbRequests,
				Seconds: secs * (1 + 0.3*float64(i)), Ops: map[string]*result.Op{}}
			total := 0.0
			for o, share := range lbOps {
				s.Ops[o] = op(share*10000*float64(ci+2)/(slow*(1+0.1*float64(i))), s.Seconds)
				total += float64(s.Ops[o].Units)
			}
			s.Ops[lbRequests] = op(total/s.Seconds, s.Seconds)
			c.Steps = append(c.Steps, s)
		}
		r.Configs = append(r.Configs, c)
	}
	return r
}

// sumRate is op's units over all of a configuration's request intervals divided by their
// seconds.
func sumRate(c result.Config, op string) float64 {
	var units, secs float64
	for _, s := range c.Steps {
		if strings.HasPrefix(s.Name, "run.") {
			units += float64(s.Ops[op].Units)
			secs += s.Seconds
		}
	}
	return units / secs
}

func pctOf(b, a float64) string { return numfmt.Num(100*b/a) + "%" }

// TestLinkBenchRatio is the LinkBench seed's comparison: a cached run of 3 intervals without a
// cap against an IO-bound run of 5 longer intervals under a 2 GiB cap, five configurations,
// one of which failed the IO-bound run's last interval.
func TestLinkBenchRatio(t *testing.T) {
	cached, iobound := lbRun("c", 3, 600, 1), lbRun("io", 5, 3600, 3)
	for i := range iobound.Configs {
		scope := "server"
		if i >= 3 {
			scope = "process"
		}
		iobound.Configs[i].Memory = &result.Memory{LimitBytes: 2 << 30, Cgroup: "v1", Scope: scope, UsageBytes: 1 << 30}
	}
	wt := &iobound.Configs[4]
	wt.Status, wt.Steps[5].Status = result.StatusFailed, result.StatusFailed
	p, err := NewPage([]Input{{Dir: "results/cached", Run: cached}, {Dir: "results/iobound", Run: iobound}}, Options{Ratio: true, Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	title, opsTitle := "iobound as % of cached", "Operations over all request intervals: iobound as % of cached"
	for ci, name := range lbEngines {
		a, b := cached.Configs[ci], iobound.Configs[ci]
		want := map[string]string{
			"load ips":          pctOf(b.Steps[0].Ops["link"].PerSec, a.Steps[0].Ops["link"].PerSec),
			"run.1 qps":         pctOf(b.Steps[1].Ops[lbRequests].PerSec, a.Steps[1].Ops[lbRequests].PerSec),
			"run.3 qps":         pctOf(b.Steps[3].Ops[lbRequests].PerSec, a.Steps[3].Ops[lbRequests].PerSec),
			"last interval qps": pctOf(b.Steps[5].Ops[lbRequests].PerSec, a.Steps[3].Ops[lbRequests].PerSec),
			"all intervals qps": pctOf(sumRate(b, lbRequests), sumRate(a, lbRequests)),
		}
		if name == "wiredtiger" { // its last IO-bound interval failed: no last or overall rate
			want["last interval qps"], want["all intervals qps"] = missing, missing
		}
		for col, w := range want {
			if got, _ := cell(t, p, title, name, col); got != w {
				t.Errorf("%s %s: %s, want %s", name, col, got, w)
			}
		}
		for o := range lbOps {
			w := pctOf(sumRate(b, o), sumRate(a, o))
			if name == "wiredtiger" {
				w = missing
			}
			if got, _ := cell(t, p, opsTitle, name, o+" ops/s"); got != w {
				t.Errorf("%s %s: %s, want %s", name, o, got, w)
			}
		}
		wantCap := "2 GiB (v1, " + b.Memory.Scope + ")"
		if got, _ := cell(t, p, "Memory cap of each run", name, "cached"); got != "no cap" {
			t.Errorf("%s cached cap %q, want no cap", name, got)
		}
		if got, _ := cell(t, p, "Memory cap of each run", name, "iobound"); got != wantCap {
			t.Errorf("%s iobound cap %q, want %q", name, got, wantCap)
		}
	}
	if p.Sections[1].ID != "ratio" {
		t.Fatalf("section after the top summary %s, want the ratio", p.Sections[1].ID)
	}
	var tables []Table
	for _, b := range p.Sections[1].Blocks {
		if b.Table != nil {
			tables = append(tables, *b.Table)
		}
	}
	rates := tableByTitle(tables, title)
	if rates == nil || tableByTitle(tables, opsTitle) == nil || tableByTitle(tables, "Memory cap of each run") == nil {
		t.Fatalf("the ratio section lacks a table: %d tables", len(tables))
	}
	if h := strings.Join(rates.Header, ","); strings.Contains(h, "run.4") || strings.Contains(h, "run.5") {
		t.Errorf("header %s has intervals only the IO-bound run has", h)
	}
	checkRatioRendered(t, p, title, opsTitle)
}

// checkRatioRendered checks that the ratio tables and the caps are in the HTML page and in
// report.md.
func checkRatioRendered(t *testing.T, p *Page, titles ...string) {
	t.Helper()
	var page strings.Builder
	if err := WriteHTML(&page, p); err != nil {
		t.Fatal(err)
	}
	innodb, _ := cell(t, p, titles[0], "innodb", "last interval qps")
	md := MarkdownPage(p)
	for _, title := range append(titles, "Memory cap of each run") {
		if !strings.Contains(page.String(), "<caption>"+html.EscapeString(title)+"</caption>") {
			t.Errorf("the HTML page lacks the table %q", title)
		}
		if !strings.Contains(md, "### "+title+"\n") {
			t.Errorf("report.md lacks the table %q", title)
		}
	}
	for name, out := range map[string]string{"HTML": page.String(), "markdown": md} {
		if !strings.Contains(out, innodb) || !strings.Contains(out, "2 GiB (v1, server)") {
			t.Errorf("%s lacks innodb's last interval ratio %s or its cap", name, innodb)
		}
	}
}
