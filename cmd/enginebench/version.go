package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/result"
)

// version is set at build time by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

// toolInfo returns the name, version and commit of this build.
func toolInfo() result.Tool {
	t := result.Tool{Name: "enginebench", Version: version}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				t.Commit = s.Value
			}
		}
	}
	return t
}

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of enginebench",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			t := toolInfo()
			commit := t.Commit
			if commit == "" {
				commit = "unknown"
			}
			_, err := fmt.Fprintf(stdout, "enginebench %s (commit %s, %s, %s/%s)\n",
				t.Version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
