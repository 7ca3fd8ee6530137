package report

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// Source is where a table cell's value was read: the file of a run directory, the
// configuration, the step and the field ("testdata/insert/run.json: config pebble, step l.i1,
// ops.insert.per_sec"). The HTML page shows it as the cell's title and data-src. A table's
// builder may set it (Table.Src) with the configuration's label, the page's name for it;
// traceSources then finds its run directory and its names in run.json, and infers the source
// of every other cell from the table's layout.
type Source struct {
	// Config is the configuration's label in the page; Run a run's label (runLabels), for a
	// value of a whole run or of a configuration named as in that run (Config then is its name).
	Config, Run string
	// Step names the step or steps; Field the run.json field or fields.
	Step, Field string
	// File is the file of the run directory; empty is run.json.
	File string
	// Of is the source of the value this one is divided by (a relative cell's base).
	Of *Source
	// dir and names are the run directory and the configuration's names in run.json (its
	// repeats' names for a folded one), set by traceSources.
	dir   string
	names []string
	// over, for a figure computed over several runs (a history's baseline), are their run
	// directories, oldest first; dir is then unused.
	over []string
}

// IsZero reports whether s names nothing.
func (s Source) IsZero() bool { return s.Config == "" && s.Run == "" && s.Step == "" && s.Field == "" }

// String is the source as the page shows it.
func (s Source) String() string {
	if s.IsZero() {
		return ""
	}
	file := s.File
	if file == "" {
		file = "run.json"
	}
	var parts []string
	switch {
	case len(s.names) > 1:
		parts = append(parts, "config "+strings.Join(s.names, ", ")+" (median of the repeats)")
	case len(s.names) == 1:
		parts = append(parts, "config "+s.names[0])
	case s.Config != "":
		parts = append(parts, "config "+s.Config)
	}
	if s.Step != "" {
		parts = append(parts, "step "+s.Step)
	}
	if s.Field != "" {
		parts = append(parts, s.Field)
	}
	at := path.Join(filepath.ToSlash(s.dir), file)
	if n := len(s.over); n > 0 {
		at = fmt.Sprintf("%s of the %d runs %s to %s", file, n, filepath.ToSlash(s.over[0]), filepath.ToSlash(s.over[n-1]))
	}
	text := at + ": " + strings.Join(parts, ", ")
	if s.Of != nil {
		text += " divided by " + s.Of.String()
	}
	return text
}

// origin is a configuration of run.json behind a label of the page.
type origin struct{ dir, name string }

// tracer resolves and infers the sources of a page's cells.
type tracer struct {
	origins map[string][]origin // by configuration label
	runDirs map[string]string   // by run label
	r       *result.Run         // the merged run, repeats folded
	steps   []string            // every step name of r
}

// newTracer maps the labels of the page of runs (merged and folded into r) to their run
// directories and names in run.json, as merge and collapseRepeats label them.
func newTracer(runs []Input, r *result.Run) *tracer {
	tr := &tracer{origins: map[string][]origin{}, runDirs: map[string]string{}, r: r}
	labels, plain := runLabels(runs), len(runs) == 1 || matrixJoin(runs)
	for i, in := range runs {
		tr.runDirs[labels[i]] = in.Dir
		for _, c := range in.Run.Configs {
			label := c.Name
			if c.Repeat != nil {
				label = repeatLabel(c)
			}
			if !plain {
				label = labels[i] + "/" + label
			}
			tr.origins[label] = append(tr.origins[label], origin{in.Dir, c.Name})
		}
	}
	tr.steps = stepsWith(r, func(*result.Step) bool { return true })
	return tr
}

// traceSources gives every cell of p's tables that comes from the runs its source: the one its
// builder set, resolved to a file, or one inferred from the table's layout (a configuration
// and a step column, or a configuration, step or run named by the first column, the column's
// header or the title).
func traceSources(p *Page, runs []Input, r *result.Run) {
	tr := newTracer(runs, r)
	for i := range p.Sections {
		for j := range p.Sections[i].Blocks {
			if t := p.Sections[i].Blocks[j].Table; t != nil {
				tr.infer(t)
				for _, row := range t.Src {
					for k := range row {
						tr.resolve(&row[k])
					}
				}
			}
		}
	}
}

// resolve sets s's run directory and configuration names.
func (tr *tracer) resolve(s *Source) {
	switch {
	case s.IsZero():
		return
	case s.Run != "":
		s.dir = tr.runDirs[s.Run]
		if s.Config != "" {
			s.names = []string{s.Config}
		}
	default:
		s.names = nil
		for _, o := range tr.origins[s.Config] {
			s.dir, s.names = o.dir, append(s.names, o.name)
		}
	}
	if s.Of != nil {
		of := *s.Of
		tr.resolve(&of)
		s.Of = &of
	}
}

// layout is what a table's columns and title say about where its cells come from.
type layout struct {
	cfgCol, stepCol, opCol, keyCol int
	titleCfg, titleStep            string
	base                           string // the base of a relative table ("... relative to BASE")
	colCfg, colStep, colRun        []string
	metric                         []string // each column's header without its config or step
}

// readLayout reads t's layout.
func (tr *tracer) readLayout(t *Table) layout {
	l := layout{cfgCol: slices.Index(t.Header, "config"), stepCol: slices.Index(t.Header, "step"), opCol: slices.Index(t.Header, "op"), keyCol: -1}
	if len(t.Header) > 0 && slices.Contains([]string{"parameter", "setting", "counter"}, t.Header[0]) {
		l.keyCol = 0
	}
	l.titleCfg = longestIn(t.Title, tr.labels(), func(title, c string) bool {
		return strings.Contains(title, ": "+c+" ") || strings.Contains(title, "of "+c+":") || strings.HasSuffix(title, ": "+c)
	})
	l.base = longestIn(t.Title, tr.labels(), func(title, c string) bool { return strings.HasSuffix(title, "relative to "+c) })
	l.titleStep = longestIn(t.Title, tr.steps, func(title, s string) bool {
		return strings.HasPrefix(title, s+":") || strings.HasSuffix(title, ": "+s) || strings.HasSuffix(title, "Step "+s)
	})
	runs := make([]string, 0, len(tr.runDirs))
	for k := range tr.runDirs {
		runs = append(runs, k)
	}
	prefixed := func(h, x string) bool { return h == x || strings.HasPrefix(h, x+" ") }
	for _, h := range t.Header {
		c, s, r := longestIn(h, tr.labels(), prefixed), longestIn(h, tr.steps, prefixed), longestIn(h, runs, prefixed)
		m := h
		for _, p := range []string{c, s} {
			if p != "" {
				m = strings.TrimSpace(strings.TrimPrefix(m, p))
			}
		}
		l.colCfg, l.colStep, l.colRun, l.metric = append(l.colCfg, c), append(l.colStep, s), append(l.colRun, r), append(l.metric, m)
	}
	return l
}

// labels are the configuration labels of the page.
func (tr *tracer) labels() []string {
	out := make([]string, 0, len(tr.r.Configs))
	for _, c := range tr.r.Configs {
		out = append(out, c.Name)
	}
	return out
}

// longestIn returns the longest of xs for which match(s, x) holds, or "".
func longestIn(s string, xs []string, match func(s, x string) bool) string {
	best := ""
	for _, x := range xs {
		if x != "" && len(x) > len(best) && match(s, x) {
			best = x
		}
	}
	return best
}

// rowCell returns row's value in column j, or "" when there is no such column.
func rowCell(row []string, j int) string {
	if j < 0 || j >= len(row) {
		return ""
	}
	return row[j]
}

// infer sets the source of each cell of t that has none and whose row or column names a
// configuration or a run.
func (tr *tracer) infer(t *Table) {
	l := tr.readLayout(t)
	for len(t.Src) < len(t.Rows) {
		t.Src = append(t.Src, nil)
	}
	for i, row := range t.Rows {
		for len(t.Src[i]) < len(row) {
			t.Src[i] = append(t.Src[i], Source{})
		}
		cfg, run := tr.rowConfig(t, l, row), ""
		if len(t.Header) > 0 && t.Header[0] == "run" {
			if _, ok := tr.runDirs[rowCell(row, 0)]; ok {
				run = row[0]
			}
		}
		step := rowCell(row, l.stepCol)
		if step == "" {
			step = l.titleStep
		}
		op := strings.TrimSuffix(strings.TrimSuffix(rowCell(row, l.opCol), " rt"), " (bg)")
		for j := range row {
			if !t.Src[i][j].IsZero() {
				continue
			}
			src := Source{Config: cfg, Run: run, Step: step}
			if l.colCfg[j] != "" {
				src.Config = l.colCfg[j]
			}
			if l.colStep[j] != "" {
				src.Step = l.colStep[j]
			}
			if l.colRun[j] != "" && src.Config == "" {
				src.Run = l.colRun[j]
				if l.cfgCol >= 0 {
					src.Config = rowCell(row, l.cfgCol)
				}
			}
			if src.Config == "" && src.Run == "" {
				continue
			}
			if src.Step == "" && src.Run == "" {
				src.Step = tr.onlyStep(src.Config)
				if st, ok := loadColumns[l.metric[j]]; ok && src.Step == "" {
					src.Step = st
				}
			}
			src.Field = fieldOf(t, l, j, row, op, tr.primary(src.Config, src.Step))
			if l.base != "" && j > 0 && src.Run == "" {
				src.Of = &Source{Config: l.base, Step: src.Step, Field: src.Field}
			}
			t.Src[i][j] = src
		}
	}
}

// rowConfig is the configuration a row is about: its config column, its first cell, or the
// one the title names.
func (tr *tracer) rowConfig(t *Table, l layout, row []string) string {
	for _, c := range []string{rowCell(row, l.cfgCol), rowCell(row, 0)} {
		if _, ok := tr.origins[c]; ok {
			return c
		}
	}
	return l.titleCfg
}

// onlyStep is the configuration's step when it has one (iiBench's run), else "".
func (tr *tracer) onlyStep(config string) string {
	if c := findConfig(tr.r, config); c != nil && len(c.Steps) == 1 {
		return c.Steps[0].Name
	}
	return ""
}

// primary is the headline op of the configuration's step, or "".
func (tr *tracer) primary(config, step string) string {
	if c := findConfig(tr.r, config); c != nil {
		if s := findStep(*c, step); s != nil {
			return s.Primary
		}
	}
	return ""
}

// fieldOf names the run.json field of column j of t in row (whose op is op and whose step's
// headline op is primary): the known columns by their field, any other by its header.
func fieldOf(t *Table, l layout, j int, row []string, op, primary string) string {
	h := l.metric[j]
	if h == "" && t.Metric != "" {
		h = t.Metric
	}
	if op == "" {
		op = primary
	}
	if h == "qps" && op == "insert" {
		op = "query" // iiBench: its queries beside its inserts
	}
	if f := serverField(t, j, primary); f != "" {
		return f
	}
	switch {
	case l.keyCol >= 0 && j > l.keyCol && t.Header[0] == "parameter":
		return "workload.params." + rowCell(row, 0)
	case l.keyCol >= 0 && j > l.keyCol && t.Header[0] == "setting":
		return "settings." + rowCell(row, 0)
	case strings.HasPrefix(t.Title, "Rates against rows") && j > 0:
		return periodField(h, rowCell(row, 0))
	case plainFields[h] != "":
		return plainFields[h]
	case strings.HasPrefix(h, "<=") || strings.HasPrefix(h, ">"):
		if strings.HasSuffix(rowCell(row, l.opCol), " rt") {
			return "ops." + op + ".response_us.buckets"
		}
		return "ops." + op + ".latency_us.buckets"
	}
	if f := opField(t, h, op); f != "" {
		return f
	}
	if f := stepField(t, h, row); f != "" {
		return f
	}
	return "column \"" + t.Header[j] + "\""
}

// periodField is the field of a column of iiBench's rates against rows inserted: the periods
// up to a number of rows.
func periodField(h, rows string) string {
	switch h {
	case "ips":
		return "periods (rows up to " + rows + ").ops.insert.per_sec"
	case "qps":
		return "periods (rows up to " + rows + ").ops.query.per_sec"
	}
	return "periods (rows up to " + rows + ").ops.query.latency_us.p99"
}

// opField is the field of a column h of an op's figures (rates, counts, latency), or "".
func opField(t *Table, h, op string) string {
	switch h {
	case "ips", "qps", "ops/s", "rate", "links/s", "requests/s", "best rate":
		return "ops." + op + ".per_sec"
	case "inserts/s":
		return "ops.insert.per_sec"
	case "queries/s":
		return "ops.query.per_sec"
	case "count", "errors":
		return "ops." + op + "." + h
	case "rows":
		switch t.Title {
		case "Scans":
			return "phases.rows"
		case "iiBench":
			return "ops.insert.units"
		}
		return "ops." + op + ".found"
	case "p50", "p99":
		if strings.Contains(t.Title, "per-second rate") || strings.Contains(t.Title, "resources per second") {
			return "ops." + op + ".rate_" + h // the percentiles of the per-second rate
		}
		return "ops." + op + ".latency_us." + h
	case "p90", "p99.9", "mean":
		return "ops." + op + ".latency_us." + strings.ReplaceAll(h, "p99.9", "p999")
	case "max":
		if !strings.HasPrefix(t.Title, "Fairness") {
			return "ops." + op + ".latency_us.max"
		}
	case "rt p50", "rt p99", "rt max":
		return "ops." + op + ".response_us." + strings.TrimPrefix(h, "rt ")
	}
	return ""
}

// stepField is the field of a column h of a step's own figures, or "".
func stepField(t *Table, h string, row []string) string {
	switch h {
	case "min", "max", "diff":
		if strings.HasPrefix(t.Title, "Fairness") {
			return "fairness." + h + "_seconds"
		}
	case "time", "load s", "total time", "run time":
		return "seconds"
	case "status", "clients":
		return h
	case "verify":
		return "verify.ok"
	case "probe":
		return "probe.min_trxid_seconds"
	case "fairness", "pct":
		return "fairness.pct"
	case "sla":
		return "target.achieved_inserts_per_sec, target.inserts_per_sec"
	case "GB", "load GB":
		return "size.dbgb1"
	case "dbgb1", "dbgb2":
		return "size." + h
	case "before":
		return "engine_stats_before." + rowCell(row, slices.Index(t.Header, "counter"))
	case "after":
		return "engine_stats." + rowCell(row, slices.Index(t.Header, "counter"))
	}
	switch {
	case slices.ContainsFunc(effColumns, func(c effColumn) bool { return c.name == h }):
		return "efficiency." + h
	case slices.Contains(debtKeys, h):
		return "engine_stats." + h
	case t.Title == "Hosts":
		return "host." + h
	}
	return ""
}

// traceRatio sets the sources of a ratio table of runs a and b (their labels): each cell is
// b's rate of its row's configuration and its column's step (the first word of the header)
// divided by a's.
func traceRatio(t *Table, a, b string) {
	t.Src = make([][]Source, len(t.Rows))
	for i, row := range t.Rows {
		t.Src[i] = make([]Source, len(row))
		for j := 1; j < len(row) && j < len(t.Header); j++ {
			step, rate, _ := strings.Cut(t.Header[j], " ")
			field := "per_sec of " + rate
			switch {
			case strings.HasPrefix(t.Header[j], "last interval"):
				step, field = "the last run.N", "ops.requests.per_sec"
			case strings.HasPrefix(t.Header[j], "all intervals"):
				step, field = "every run.N", "ops.requests.per_sec, seconds"
			case strings.HasSuffix(t.Header[j], " ops/s"):
				step, field = "every run.N", "ops."+step+".per_sec, seconds"
			}
			t.Src[i][j] = Source{Run: b, Config: row[0], Step: step, Field: field, Of: &Source{Run: a, Config: row[0], Step: step, Field: field}}
		}
	}
}

// plainFields are the run.json fields of the columns that name one field whatever the row.
var plainFields = map[string]string{
	"rps": "resources.rps", "rmbps": "resources.rmbps", "wps": "resources.wps", "wmbps": "resources.wmbps",
	"csps": "resources.csps", "cpups": "resources.cpups", "client%": "resources.client_cpu_pct",
	"r_await": "resources.r_await_ms", "w_await": "resources.w_await_ms", "aqu-sz": "resources.aqu_sz",
	"%util": "resources.util_pct", "rss": "resources.rss_mb", "maxrss": "efficiency.maxrss_mb",
	"retries": "retries", "error": "error", "cap": "memory.limit_bytes",
	"rows/s": "phases.per_sec", "index": "phases.name", "config": "name", "step": "name", "op": "ops (its key)",
	"counter": "engine_stats (its key)", "peak": "memory.peak_bytes", "usage": "memory.usage_bytes",
	"page cache": "memory.cache_bytes", "cache share": "memory.cache_bytes / memory.usage_bytes",
	"OOM kills": "memory.oom_kills", "cgroup": "memory.cgroup", "scope": "memory.scope",
	"harness peak": "memory.harness_peak_bytes", "run id": "run_id", "started": "started_at",
	"finished": "finished_at", "tool": "tool", "command": "command", "run": "run_id",
	"links": "ops.link.units", "nodes": "ops.node.units", "links/node": "ops.link.units / ops.node.units",
	"links+counts/s":      "(ops.link.units + ops.count.units) / seconds",
	"(link+count+node)/s": "(ops.link.units + ops.count.units + ops.node.units) / seconds",
	"CPU us/insert":       "usage.cpu_s / ops.insert.units", "CPU us/query": "usage.cpu_s / ops.query.units",
	"reads/query": "usage.reads / ops.query.units", "KB read/query": "usage.read_kb / ops.query.units",
	"writes/insert": "usage.writes / ops.insert.units", "KB written/insert": "usage.write_kb / ops.insert.units",
}

// loadColumns are the columns of LinkBench's published table that are the load's.
var loadColumns = map[string]string{"load s": "load, index", "links/s": "load", "load GB": "load, index"}
