package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/sample"
)

// sampleFlags are the flags of `enginebench sample`.
type sampleFlags struct {
	pid      int
	pidFile  string
	dataDir  string
	out      string
	duration time.Duration
}

func newSampleCmd(stderr io.Writer) *cobra.Command {
	f := &sampleFlags{}
	cmd := &cobra.Command{
		Use:   "sample --pid PID|--pid-file FILE --data-dir DIR",
		Short: "Record a database server's CPU, IO and size every second on its host, for `merge` to join to shards' runs",
		Long: `Run on the database host, beside a server that the shards of a run reach with --dsn: record,
every second, the host's CPU, the DBMS process tree's CPU, IO and memory, the IO of the data
directory's device and the data directory's size, into a sample directory (sample.json and
samples.csv, written as it goes), until Ctrl-C, SIGTERM or SIGHUP, or --duration. Give it to
` + "`enginebench merge --sample DIR`" + `; docs/scale-out.md.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return f.run(stderr) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.pid, "pid", 0, "process id of the DBMS's main process (postmaster, mariadbd): its process tree's CPU, IO and memory are the DBMS's")
	fl.StringVar(&f.pidFile, "pid-file", "", "the DBMS's pid file (PGDATA/postmaster.pid, MariaDB's pid-file), whose first line is its main process id")
	fl.StringVar(&f.dataDir, "data-dir", "", "the DBMS's data directory: its device's IO and its size are measured (never written)")
	fl.StringVar(&f.out, "out", "", "sample directory to write (default results/<YYYYMMDD-HHMMSS>-sample)")
	fl.DurationVar(&f.duration, "duration", 0, "stop after this long (default: at Ctrl-C, SIGTERM or SIGHUP)")
	return cmd
}

// check checks the flags before any work and returns the DBMS's process id.
func (f *sampleFlags) check() (int, error) {
	switch {
	case f.pid != 0 && f.pidFile != "":
		return 0, usagef("--pid and --pid-file name the same process: give one")
	case f.pid == 0 && f.pidFile == "":
		return 0, usagef("give the DBMS's main process: --pid PID or --pid-file FILE")
	case f.dataDir == "":
		return 0, usagef("give the DBMS's data directory: --data-dir DIR (its device's IO and its size are measured)")
	case f.duration < 0:
		return 0, usagef("--duration %v: want a duration of 0 (until a stop signal) or more", f.duration)
	}
	if st, err := os.Stat(f.dataDir); err != nil || !st.IsDir() {
		return 0, usagef("--data-dir %s: no such directory", f.dataDir)
	}
	pid, from := f.pid, fmt.Sprintf("--pid %d", f.pid)
	if f.pidFile != "" {
		var err error
		if pid, err = readPIDFile(f.pidFile); err != nil {
			return 0, usageError{err}
		}
		from = fmt.Sprintf("--pid-file %s: process %d", f.pidFile, pid)
	}
	if err := processAlive(pid); err != nil {
		return 0, usagef("%s: %v", from, err)
	}
	return pid, nil
}

// readPIDFile returns the process id on the first line of a pid file.
func readPIDFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("--pid-file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("--pid-file %s: its first line %q is not a process id", path, line)
	}
	return pid, nil
}

// processAlive returns an error unless the process pid runs on this host (a zombie does not).
func processAlive(pid int) error {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if pid <= 0 || err != nil {
		return fmt.Errorf("no such process on this host")
	}
	if _, rest, ok := strings.Cut(string(b), ") "); ok && (strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")) {
		return fmt.Errorf("the process has ended")
	}
	return nil
}

// run samples until a stop signal or --duration.
func (f *sampleFlags) run(log io.Writer) error {
	pid, err := f.check()
	if err != nil {
		return err
	}
	if f.out == "" {
		f.out = filepath.Join("results", time.Now().Format("20060102-150405")+"-sample")
	}
	if _, err := result.CreateDir(f.out); err != nil {
		return pathError(err)
	}
	acct, err := measure.NewOS(measure.OSOptions{DataDir: f.dataDir, DBPID: pid})
	if err != nil {
		return err
	}
	dev := acct.Device()
	meta := sample.Meta{Host: host.Read(f.dataDir), DBMSPID: pid, DataDir: f.dataDir, Device: dev.Name,
		Notes: append(acct.Notes(), "dbgb1 (the benchmark database's own files) is not sampled: it needs the database (the shards measure it through --dsn); dbgb2 is the whole data directory")}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Fprintf(log, "enginebench: sampling DBMS process %d and data directory %s (device %s) every second into %s; Ctrl-C, SIGTERM or SIGHUP stops\n",
		pid, f.dataDir, orDash(dev.Name), f.out)
	rows, err := sample.Run(ctx, sample.Options{Dir: f.out, Meta: meta, Keys: sample.Keys(true, true, dev.Name != ""),
		Sampler: acct, Clock: runner.SystemClock(), Duration: f.duration,
		Alive: func() error {
			if err := processAlive(pid); err != nil {
				return fmt.Errorf("DBMS process %d: %v: sampling stops", pid, err)
			}
			return nil
		}})
	fmt.Fprintf(log, "enginebench: sample: %d rows in %s\n", rows, filepath.Join(f.out, sample.SamplesFile))
	return err
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
