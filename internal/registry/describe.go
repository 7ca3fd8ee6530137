package registry

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/plan"
)

// State tells whether an engine can run here, or what is missing.
func State(d engine.Driver) string {
	if d.Available == nil {
		return "available"
	}
	if err := d.Available(); err != nil {
		return "not available: " + err.Error()
	}
	return "available"
}

// WriteEngine describes an engine to w, as `enginebench engines ENGINE` prints it: its family,
// description and state, the table of its settings and what a memory cap does to it.
func WriteEngine(w io.Writer, d engine.Driver) error {
	if _, err := fmt.Fprintf(w, "%s (%s): %s\nstate: %s\n", d.Name, d.Family, d.Description, State(d)); err != nil {
		return err
	}
	if err := writeSettingsTable(w, d); err != nil {
		return err
	}
	return writeCapDefaults(w, d)
}

// capExample is the cap at which `enginebench engines ENGINE` shows the settings an engine takes
// under a memory cap.
const capExample = 1 << 30

// writeCapDefaults says what memory_limit does to the engine: the settings it takes under a cap
// (shown at 1 GiB) unless the configuration sets them.
func writeCapDefaults(w io.Writer, d engine.Driver) error {
	line := plan.MemoryLimitSetting + " (every engine enginebench runs): cap its memory, page cache included (docs/memory.md); "
	var cd map[string]string
	if d.CapDefaults != nil {
		cd = d.CapDefaults(capExample)
	}
	if len(cd) == 0 {
		line += "its settings stay as they are under a cap"
	} else {
		kv := make([]string, 0, len(cd))
		for _, k := range slices.Sorted(maps.Keys(cd)) {
			kv = append(kv, k+"="+cd[k])
		}
		line += fmt.Sprintf("under a cap of %s it takes, unless set: %s", numfmt.Bytes(capExample), strings.Join(kv, " "))
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// writeSettingsTable prints the table of the engine's settings.
func writeSettingsTable(w io.Writer, d engine.Driver) error {
	if len(d.Settings) == 0 {
		_, err := fmt.Fprintln(w, "no settings")
		return err
	}
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.SetStyle(table.StyleLight)
	sourced := slices.ContainsFunc(d.Settings, func(s engine.Setting) bool { return s.Source != "" })
	if !sourced {
		t.AppendHeader(table.Row{"setting", "default", "meaning"})
		t.SetColumnConfigs([]table.ColumnConfig{{Number: 3, WidthMax: 70, WidthMaxEnforcer: text.WrapSoft}})
		for _, s := range d.Settings {
			t.AppendRow(table.Row{s.Name, s.Default, s.Doc})
		}
		t.Render()
		return nil
	}
	t.AppendHeader(table.Row{"setting", "default", "meaning", "source"})
	t.SetColumnConfigs([]table.ColumnConfig{
		{Number: 2, WidthMax: 28, WidthMaxEnforcer: text.WrapHard},
		{Number: 3, WidthMax: 46, WidthMaxEnforcer: text.WrapSoft},
		{Number: 4, WidthMax: 34, WidthMaxEnforcer: text.WrapSoft}})
	for _, s := range d.Settings {
		t.AppendRow(table.Row{s.Name, s.Default, s.Doc, s.Source})
	}
	t.Render()
	if d.Server {
		_, err := fmt.Fprintln(w, "Sources: docs/servers.md (the published configuration files, their translation to this server, what has no equivalent).")
		return err
	}
	return nil
}
