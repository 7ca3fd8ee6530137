package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// thirtyConfigs is a run of 30 configurations made from the insert fixture: its three
// configurations ten times, each copy's rates scaled by its own factor.
func thirtyConfigs(t *testing.T) Input {
	t.Helper()
	in := loadFixture(t, "insert")
	r := *in.Run
	r.Configs = nil
	for k := range 10 {
		for _, c := range in.Run.Configs {
			c.Name = fmt.Sprintf("%s-%02d", c.Name, k)
			c.Steps = scaledSteps(c.Steps, 0.6+0.1*float64(k))
			r.Configs = append(r.Configs, c)
		}
	}
	return Input{Dir: in.Dir, Run: &r}
}

// scaledSteps are copies of steps whose every op rate is multiplied by f.
func scaledSteps(steps []result.Step, f float64) []result.Step {
	out := make([]result.Step, len(steps))
	for i, s := range steps {
		ops := map[string]*result.Op{}
		for k, op := range s.Ops {
			cp := *op
			cp.PerSec *= f
			ops[k] = &cp
		}
		s.Ops = ops
		out[i] = s
	}
	return out
}

// rawRates reads run.json of a fixture as plain JSON, apart from the result package: for each
// configuration (repeats under the name of their configuration), for each rate the top summary
// compares ("step" for a step's headline op, "step qps" for iiBench's queries beside its
// inserts), the rates of the repeats that finished the step; and each configuration's cpupq.
func rawRates(t *testing.T, dir string) (order []string, rates, cpu map[string]map[string][]float64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Configs []struct {
			Name   string
			Repeat *struct{ Config string }
			Steps  []struct {
				Name, Status string
				Primary      string `json:"primary_op"`
				Ops          map[string]struct {
					PerSec     float64 `json:"per_sec"`
					Background bool
				}
				Efficiency *struct{ CPUpq *float64 }
				Capacity   any
			}
		}
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	rates, cpu = map[string]map[string][]float64{}, map[string]map[string][]float64{}
	for _, c := range run.Configs {
		name := c.Name
		if c.Repeat != nil {
			name = c.Repeat.Config
		}
		if rates[name] == nil {
			order = append(order, name)
			rates[name], cpu[name] = map[string][]float64{}, map[string][]float64{}
		}
		for _, s := range c.Steps {
			if s.Status != "ok" || s.Primary == "" || s.Name == "warmup" || s.Capacity != nil {
				continue
			}
			key := s.Name
			if q, ok := s.Ops["query"]; ok && s.Primary != "query" && !q.Background {
				rates[name][s.Name+" qps"] = append(rates[name][s.Name+" qps"], q.PerSec)
				key += " ips" // two rates of one step: each named with its unit
			}
			rates[name][key] = append(rates[name][key], s.Ops[s.Primary].PerSec)
			if s.Efficiency != nil && s.Efficiency.CPUpq != nil {
				cpu[name][s.Name] = append(cpu[name][s.Name], *s.Efficiency.CPUpq)
			}
		}
	}
	return order, rates, cpu
}

// med is the median of xs.
func med(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// wantRatios are config's medians divided by base's, rate by rate, for the rates both have.
func wantRatios(rates map[string]map[string][]float64, config, base string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range rates[config] {
		if b, ok := rates[base][k]; ok && med(b) > 0 {
			out[k] = med(v) / med(b)
		}
	}
	return out
}

// geo is the geometric mean of the ratios.
func geo(rs map[string]float64) float64 {
	sum := 0.0
	for _, r := range rs {
		sum += math.Log(r)
	}
	return math.Exp(sum / float64(len(rs)))
}

// topRows returns the top summary of a page: its table, by configuration.
func topRows(t *testing.T, p *Page) (*Table, map[string][]string) {
	t.Helper()
	if len(p.Sections) == 0 || p.Sections[0].ID != "top" {
		t.Fatalf("first section %+v, want the top summary", p.Sections[0].ID)
	}
	var tb *Table
	for _, b := range p.Sections[0].Blocks {
		if b.Table != nil && strings.HasPrefix(b.Table.Title, topTitle) {
			tb = b.Table
		}
	}
	rows := map[string][]string{}
	for _, row := range tb.Rows {
		rows[row[0]] = row
	}
	return tb, rows
}

// TestTopSummaryNumbers checks the top summary of every fixture against run.json read apart:
// the geometric mean of the rates relative to the base, the range, the best and the worst
// step, and CPU per operation relative to the base; the base says it is the base.
func TestTopSummaryNumbers(t *testing.T) {
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		t.Run(name, func(t *testing.T) {
			in := loadFixture(t, name)
			p := newPage(t, Options{}, in)
			tb, rows := topRows(t, p)
			order, rates, cpu := rawRates(t, in.Dir)
			if len(tb.Rows) != len(order) {
				t.Fatalf("%d rows, want one per configuration %v", len(tb.Rows), order)
			}
			base := order[0]
			if got := rows[base][1:5]; !slices.Equal(got, []string{"base", missing, missing, missing}) || rows[base][8] != "base" {
				t.Errorf("base row %q", rows[base])
			}
			for _, c := range order[1:] {
				rs := wantRatios(rates, c, base)
				var best, worst string
				for k, v := range rs {
					if best == "" || v > rs[best] {
						best = k
					}
					if worst == "" || v < rs[worst] {
						worst = k
					}
				}
				row := rows[c]
				if got, want := row[1], fmt.Sprintf("%.2f", geo(rs)); !strings.HasPrefix(got, want) {
					t.Errorf("%s vs base %q, want %s (from %v)", c, got, want, rs)
				}
				if got, want := row[2], fmt.Sprintf("%.2f-%.2f", rs[worst], rs[best]); got != want {
					t.Errorf("%s range %q, want %s", c, got, want)
				}
				if want := fmt.Sprintf("%s %.2f", best, rs[best]); !strings.HasPrefix(row[3], want) {
					t.Errorf("%s best step %q, want %s", c, row[3], want)
				}
				if want := fmt.Sprintf("%s %.2f", worst, rs[worst]); !strings.HasPrefix(row[4], want) {
					t.Errorf("%s worst step %q, want %s", c, row[4], want)
				}
				if got, want := row[8], fmt.Sprintf("%.2f", geo(wantRatios(cpu, c, base))); !strings.HasPrefix(got, want) {
					t.Errorf("%s CPU/op vs base %q, want %s", c, got, want)
				}
			}
		})
	}
}

// TestTopSummaryColours checks that a relative cell of the top summary is coloured as the
// colour rule says: better above 1.05, worse below 0.95 for the rates, the other way round for
// CPU per operation, nothing in the band.
func TestTopSummaryColours(t *testing.T) {
	p := newPage(t, Options{}, loadFixture(t, "insert"))
	tb, _ := topRows(t, p)
	seen := map[string]bool{}
	for i, row := range tb.Rows[1:] {
		for j, d := range map[int]direction{1: higherBetter, 8: lowerBetter} {
			v, err := strconv.ParseFloat(row[j], 64)
			if err != nil {
				continue
			}
			if got, want := tb.Class[i+1][j], relClass(v, d); got != want {
				t.Errorf("%s %s %q class %q, want %q", row[0], tb.Header[j], row[j], got, want)
			}
			seen[tb.Class[i+1][j]] = true
		}
	}
	if !seen[ClassBetter] || !seen[ClassWorse] {
		t.Errorf("classes seen %v, want better and worse", seen)
	}
}

// TestTopSummaryMarks checks the SLA, failures and client-bound cells: the insert fixture's
// missed SLA named, and a stall, errors, OOM kills and a client-bound step said as such.
func TestTopSummaryMarks(t *testing.T) {
	in := loadFixture(t, "insert")
	in.Run.ClientCPULimitPct = 80
	pebble := &in.Run.Configs[2]
	pebble.Steps[3].Error = "pebble stalled: nothing completed for 5m0s"
	pebble.Steps[1].ClientBound = true
	pebble.Steps[0].Ops["insert"].Errors = 3
	pebble.Memory.OOMKills = 2
	_, rows := topRows(t, newPage(t, Options{}, in))
	for config, want := range map[string][]string{
		"sqlite-normal": {"0 of 6", "none", "none"},
		"sqlite-full":   {"1 of 6: qp1000", "none", "none"},
		"pebble":        {missing, "l.i2 stalled, 3 errors, 2 OOM kills", "1: l.x"},
	} {
		if got := rows[config][5:8]; !slices.Equal(got, want) {
			t.Errorf("%s SLA, failures, client-bound %q, want %q", config, got, want)
		}
	}
}

// TestTopSummaryOneConfig checks the top summary of one configuration: no comparison, said
// in words, "-" in its relative cells (never 0), and its marks.
func TestTopSummaryOneConfig(t *testing.T) {
	in := loadFixture(t, "insert")
	in.Run.Configs = in.Run.Configs[1:2] // sqlite-full
	p := newPage(t, Options{}, in)
	tb, rows := topRows(t, p)
	if len(tb.Rows) != 1 {
		t.Fatalf("rows %q", tb.Rows)
	}
	if got, want := rows["sqlite-full"], []string{"sqlite-full", "only configuration", missing, missing, missing, "1 of 6: qp1000", "none", missing, missing}; !slices.Equal(got, want) {
		t.Errorf("row %q, want %q", got, want)
	}
	if !strings.Contains(p.Sections[0].Blocks[0].Text, "nothing to compare") {
		t.Errorf("text %q does not say there is no comparison", p.Sections[0].Blocks[0].Text)
	}
}

// TestTopSummaryThirtyConfigs checks the top summary of 30 configurations: one row each, in
// order, and each scaled copy of the base against it by its scale.
func TestTopSummaryThirtyConfigs(t *testing.T) {
	in := thirtyConfigs(t)
	p := newPage(t, Options{}, in)
	tb, rows := topRows(t, p)
	if len(tb.Rows) != 30 {
		t.Fatalf("%d rows, want 30", len(tb.Rows))
	}
	for i, c := range in.Run.Configs {
		if tb.Rows[i][0] != c.Name {
			t.Errorf("row %d is %s, want %s", i, tb.Rows[i][0], c.Name)
		}
	}
	for k := 1; k < 10; k++ {
		want := fmt.Sprintf("%.2f", (0.6+0.1*float64(k))/0.6)
		row := rows[fmt.Sprintf("sqlite-normal-%02d", k)]
		if row[1] != want || row[2] != want+"-"+want {
			t.Errorf("copy %d: vs base %q range %q, want %s", k, row[1], row[2], want)
		}
	}
}

// TestTopSummaryInTerminal checks that the summary printed after a run, and summary.md, start
// with the top summary against the first configuration, its verdicts in words.
func TestTopSummaryInTerminal(t *testing.T) {
	md := Markdown(loadFixture(t, "insert").Run, testLayouts())
	i, j := strings.Index(md, "## At a glance (relative to sqlite-normal)"), strings.Index(md, "## Throughput")
	if i < 0 || j < i || !strings.Contains(md[i:j], "| sqlite-full | 0.82 worse |") {
		t.Errorf("summary.md lacks the top summary first:\n%s", md[:min(len(md), 3000)])
	}
	var b strings.Builder
	if err := WriteText(&b, loadFixture(t, "insert").Run, testLayouts()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i, j = strings.Index(out, "At a glance (relative to sqlite-normal)"), strings.Index(out, "Throughput")
	if i < 0 || j < i || !strings.Contains(out[i:j], "1 of 6: qp1000") || !strings.Contains(out[i:j], "l.i2 failed") {
		t.Errorf("terminal summary lacks the top summary first:\n%s", out[:min(len(out), 3000)])
	}
}

// TestTopSummaryRepeatFailure checks that a step one repeat did not finish is a failure of its
// configuration in the top summary, though the others' median stands in its tables.
func TestTopSummaryRepeatFailure(t *testing.T) {
	in := loadFixture(t, "repeat")
	i := slices.IndexFunc(in.Run.Configs, func(c result.Config) bool { return c.Name == "pebble#2" })
	s := &in.Run.Configs[i].Steps[2] // l.i1
	s.Status, s.Error = result.StatusFailed, "pebble stalled: nothing completed for 5m0s"
	_, rows := topRows(t, newPage(t, Options{}, in))
	if got, want := rows["pebble"][6], "l.i1 not finished by 1 of 3 repeats"; got != want {
		t.Errorf("pebble failures %q, want %q", got, want)
	}
	if got := rows["sqlite"][6]; got != "none" {
		t.Errorf("sqlite failures %q, want none", got)
	}
}
