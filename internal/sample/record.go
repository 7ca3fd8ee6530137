package sample

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

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// Config is what `enginebench sample` is asked to record: its flags' values.
type Config struct {
	// PID (--pid) or PIDFile (--pid-file, whose first line is the pid), one of the two, is the
	// DBMS's main process: its process tree's CPU, IO and memory are the DBMS's.
	PID     int
	PIDFile string
	// DataDir (--data-dir) is the DBMS's data directory: its device's IO and its size are
	// measured.
	DataDir string
	// Out (--out) is the sample directory to make; "" for results/<YYYYMMDD-HHMMSS>-sample.
	Out string
	// Duration (--duration) ends the sampling after that long; 0: at a stop signal.
	Duration time.Duration
}

// Check checks c before any work and returns the DBMS's process id; its errors are
// *badinput.Error.
func Check(c Config) (int, error) {
	switch {
	case c.PID != 0 && c.PIDFile != "":
		return 0, badinput.Errorf("--pid and --pid-file name the same process: give one")
	case c.PID == 0 && c.PIDFile == "":
		return 0, badinput.Errorf("give the DBMS's main process: --pid PID or --pid-file FILE")
	case c.DataDir == "":
		return 0, badinput.Errorf("give the DBMS's data directory: --data-dir DIR (its device's IO and its size are measured)")
	case c.Duration < 0:
		return 0, badinput.Errorf("--duration %v: want a duration of 0 (until a stop signal) or more", c.Duration)
	}
	if st, err := os.Stat(c.DataDir); err != nil || !st.IsDir() {
		return 0, badinput.Errorf("--data-dir %s: no such directory", c.DataDir)
	}
	pid, from := c.PID, fmt.Sprintf("--pid %d", c.PID)
	if c.PIDFile != "" {
		var err error
		if pid, err = readPIDFile(c.PIDFile); err != nil {
			return 0, &badinput.Error{Err: err}
		}
		from = fmt.Sprintf("--pid-file %s: process %d", c.PIDFile, pid)
	}
	if err := processAlive(pid); err != nil {
		return 0, badinput.Errorf("%s: %v", from, err)
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

// Record checks c (Check), makes the sample directory and samples the DBMS's host every second
// into it until ctx ends, Ctrl-C, SIGTERM or SIGHUP, c.Duration or the DBMS's end, telling
// log what it samples and how many rows it wrote. Its errors are *badinput.Error for bad input,
// *badinput.Path for a sample directory it could not make, or a failure of the sampling.
func Record(ctx context.Context, c Config, log io.Writer) error {
	pid, err := Check(c)
	if err != nil {
		return err
	}
	if c.Out == "" {
		c.Out = filepath.Join("results", time.Now().Format("20060102-150405")+"-sample")
	}
	if _, err := result.CreateDir(c.Out); err != nil {
		return &badinput.Path{Err: err}
	}
	acct, err := measure.NewOS(measure.OSOptions{DataDir: c.DataDir, DBPID: pid})
	if err != nil {
		return err
	}
	dev := acct.Device()
	meta := Meta{Host: host.Read(c.DataDir), DBMSPID: pid, DataDir: c.DataDir, Device: dev.Name,
		Notes: append(acct.Notes(), "dbgb1 (the benchmark database's own files) is not sampled: it needs the database (the shards measure it through --dsn); dbgb2 is the whole data directory")}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Fprintf(log, "enginebench: sampling DBMS process %d and data directory %s (device %s) every second into %s; Ctrl-C, SIGTERM or SIGHUP stops\n",
		pid, c.DataDir, orDash(dev.Name), c.Out)
	rows, err := Run(ctx, Options{Dir: c.Out, Meta: meta, Keys: Keys(true, true, dev.Name != ""),
		Sampler: acct, Clock: runner.SystemClock(), Duration: c.Duration,
		Alive: func() error {
			if err := processAlive(pid); err != nil {
				return fmt.Errorf("DBMS process %d: %v: sampling stops", pid, err)
			}
			return nil
		}})
	fmt.Fprintf(log, "enginebench: sample: %d rows in %s\n", rows, filepath.Join(c.Out, SamplesFile))
	return err
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
