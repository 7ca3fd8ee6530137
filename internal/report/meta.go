package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/result"
)

// secretKeyRE matches setting names whose values are credentials.
var secretKeyRE = regexp.MustCompile(`(?i)(password|passwd|pwd|secret|token|dsn)`)

// secretFlags are command-line flags whose value is a credential or holds one.
var secretFlags = []string{"--dsn", "--password"}

// redactSetting returns a setting's value fit for the report: a credential's value is replaced,
// any other value has passwords of DSNs and password=... removed.
func redactSetting(key, value string) string {
	if secretKeyRE.MatchString(key) {
		return redact.Marker
	}
	return redact.Text(value)
}

// redactCommand returns the command line with the values of credential flags replaced and
// any password-shaped text removed.
func redactCommand(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redact.Text(a)
		for _, f := range secretFlags {
			if strings.HasPrefix(a, f+"=") {
				out[i] = f + "=" + redact.Marker
			}
			if i > 0 && args[i-1] == f {
				out[i] = redact.Marker
			}
		}
		if strings.ContainsAny(out[i], " \t'\"") {
			out[i] = "'" + strings.ReplaceAll(out[i], "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// metadataSection describes where and how the runs ran: the tool, the command line, the host,
// the workload's parameters, the memory caps and builds of the configurations of merged (the
// runs' configurations, labelled) and each configuration's engine version and settings, with
// credentials removed.
func metadataSection(runs []Input, merged *result.Run) Section {
	labels := runLabels(runs)
	sec := Section{ID: "metadata", Title: "Metadata"}
	for _, t := range nonEmpty([]Table{runsTable(runs, labels), hostsTable(runs, labels), fingerprintTable(runs, labels), paramsTable(runs, labels), memoryTable(merged), buildsTable(merged)}) {
		sec.Blocks = append(sec.Blocks, Block{Table: &t})
	}
	for _, t := range settingsTables(runs, labels) {
		sec.Blocks = append(sec.Blocks, Block{Table: &t})
	}
	return sec
}

// runsTable has a row per run: its id, the tool, when it ran, its status and its command line.
func runsTable(runs []Input, labels []string) Table {
	t := Table{Title: "Runs", Header: []string{"run", "run id", "tool", "started", "finished", "status", "command"}, Metric: "value"}
	for i, in := range runs {
		r := in.Run
		tool := strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version)
		if r.Tool.Commit != "" {
			tool += " (" + r.Tool.Commit + ")"
		}
		cmd := missing
		if len(r.Command) > 0 {
			cmd = redactCommand(r.Command)
		}
		t.Rows = append(t.Rows, []string{labels[i], r.RunID, tool, timestamp(r.StartedAt), timestamp(r.FinishedAt), r.Status, cmd})
	}
	return t
}

// timestamp is t in UTC to the second, or missing.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return missing
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// hostsTable has a row per run: the host it ran on.
func hostsTable(runs []Input, labels []string) Table {
	t := Table{Title: "Hosts", Header: []string{"run", "hostname", "cpus", "memory", "kernel", "data device", "filesystem", "go"}, Metric: "value"}
	for i, in := range runs {
		h := in.Run.Host
		t.Rows = append(t.Rows, []string{labels[i], orMissing(h.Hostname) + clientOnly(in.Run), fmt.Sprint(h.CPUs),
			memoryCell(h.MemoryBytes), orMissing(h.Kernel), orMissing(h.DataDevice), orMissing(h.Filesystem), orMissing(h.GoVersion)})
	}
	return t
}

// paramsTable has the workload's parameters side by side: a row per parameter any run has, a
// column per run.
func paramsTable(runs []Input, labels []string) Table {
	t := Table{Title: "Workload parameters", Header: []string{"parameter"}, Metric: "value"}
	keys := []string{}
	for i, in := range runs {
		w := in.Run.Workload
		t.Header = append(t.Header, labels[i]+" ("+w.Name+", "+w.Scale+")")
		for _, k := range sortedKeys(w.Params) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		row := []string{k}
		for _, in := range runs {
			cell := missing
			if v, ok := in.Run.Workload.Params[k]; ok {
				cell = redactSetting(k, fmt.Sprint(v))
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// settingsTables has a table per configuration of every run: its engine, version and settings.
func settingsTables(runs []Input, labels []string) []Table {
	var out []Table
	for i, in := range runs {
		for _, c := range in.Run.Configs {
			label := c.Name
			if len(runs) > 1 && !matrixJoin(runs) {
				label = labels[i] + "/" + c.Name
			}
			v := c.Version
			if v == "" {
				v = "version unknown"
			}
			t := Table{Title: fmt.Sprintf("Settings of %s: %s %s", label, c.Engine, v), Header: []string{"setting", "value"}, Metric: "value"}
			for _, k := range sortedKeys(c.Settings) {
				t.Rows = append(t.Rows, []string{k, redactSetting(k, c.Settings[k])})
			}
			if len(t.Rows) == 0 {
				t.Rows = [][]string{{missing, "the engine's defaults"}}
			}
			out = append(out, t)
		}
	}
	return out
}

func orMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
