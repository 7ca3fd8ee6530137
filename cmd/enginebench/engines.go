package main

import (
	"fmt"
	"io"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/registry"
)

func newEnginesCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "engines [ENGINE]",
		Short: "List the engines: family, whether they can run here; with a name, its settings",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			reg, err := registry.Engines()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				d, err := reg.Lookup(args[0])
				if err != nil {
					return usageError{err}
				}
				return registry.WriteEngine(stdout, d)
			}
			t := table.NewWriter()
			t.SetOutputMirror(stdout)
			t.SetStyle(table.StyleLight)
			t.AppendHeader(table.Row{"engine", "family", "state", "description"})
			t.SetColumnConfigs([]table.ColumnConfig{
				{Number: 3, WidthMax: 40, WidthMaxEnforcer: text.WrapSoft},
				{Number: 4, WidthMax: 60, WidthMaxEnforcer: text.WrapSoft}})
			for _, d := range reg.Drivers() {
				t.AppendRow(table.Row{d.Name, d.Family, registry.State(d), d.Description})
			}
			t.Render()
			_, err = fmt.Fprintln(stdout, "Settings of an engine: enginebench engines NAME; set one with --set NAME.SETTING=VALUE")
			return err
		},
	}
}
