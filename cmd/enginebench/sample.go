package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/sample"
)

func newSampleCmd(stderr io.Writer) *cobra.Command {
	c := &sample.Config{}
	cmd := &cobra.Command{
		Use:   "sample --pid PID|--pid-file FILE --data-dir DIR",
		Short: "Record a database server's CPU, IO and size every second on its host, for `merge` to join to shards' runs",
		Long: `Run on the database host, beside a server that the shards of a run reach with --dsn: record,
every second, the host's CPU, the DBMS process tree's CPU, IO and memory, the IO of the data
directory's device and the data directory's size, into a sample directory (sample.json and
samples.csv, written as it goes), until Ctrl-C, SIGTERM or SIGHUP, or --duration. Give it to
` + "`enginebench merge --sample DIR`" + `; docs/scale-out.md.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return inputError(sample.Record(context.Background(), *c, stderr))
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&c.PID, "pid", 0, "process id of the DBMS's main process (postmaster, mariadbd): its process tree's CPU, IO and memory are the DBMS's")
	fl.StringVar(&c.PIDFile, "pid-file", "", "the DBMS's pid file (PGDATA/postmaster.pid, MariaDB's pid-file), whose first line is its main process id")
	fl.StringVar(&c.DataDir, "data-dir", "", "the DBMS's data directory: its device's IO and its size are measured (never written)")
	fl.StringVar(&c.Out, "out", "", "sample directory to write (default results/<YYYYMMDD-HHMMSS>-sample)")
	fl.DurationVar(&c.Duration, "duration", 0, "stop after this long (default: at Ctrl-C, SIGTERM or SIGHUP)")
	return cmd
}
