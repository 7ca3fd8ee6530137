package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
)

// jobIndexEnv is the index of a pod of a Kubernetes Indexed Job: with --config and without
// --config-index, it selects the configuration the run runs.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// configIndex returns the mark of the run spec's configuration that --config-index (else
// JOB_COMPLETION_INDEX, read with getenv) selects, and a notice saying so; nil when neither is
// given.
func (f *runFlags) configIndex(fl *pflag.FlagSet, sp *runspec.Spec, getenv func(string) string) (*result.Matrix, string, error) {
	value, from := f.configIndexFlag, "--config-index"
	if !fl.Changed("config-index") {
		if value, from = getenv(jobIndexEnv), jobIndexEnv; value == "" || sp == nil {
			return nil, "", nil // the index of a job that runs no run spec is not ours
		}
	}
	if sp == nil {
		return nil, "", fmt.Errorf("--config-index %s selects a configuration of a run spec: give --config FILE.yaml", value)
	}
	n := len(sp.Configs)
	k, err := strconv.Atoi(strings.TrimSpace(value))
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("%s %q: want the index of a configuration of %s, 0 to %d", from, value, sp.Path, n-1)
	case k < 0 || k >= n:
		return nil, "", fmt.Errorf("%s %d: %s has %d configurations, indexed 0 to %d", from, k, sp.Path, n, n-1)
	}
	m := &result.Matrix{Index: k, Count: n, Config: sp.Configs[k].Name, Spec: sp.Path, SpecSHA256: sp.SHA256()}
	return m, fmt.Sprintf("only configuration %s runs: index %d of the %d of %s (from %s)", m.Config, k, n, sp.Path, from), nil
}

// calibrateTimeout bounds the calibration probe (a few hundred milliseconds on a sound host).
const calibrateTimeout = 30 * time.Second

// calibrate runs the calibration probe with fsync in dataRoot (none when every configuration
// uses an existing server, whose data directory enginebench never writes) and says what it
// found on log.
func calibrate(ctx context.Context, dataRoot string, log io.Writer) *result.Calibration {
	ctx, cancel := context.WithTimeout(ctx, calibrateTimeout)
	defer cancel()
	c := host.Calibrate(ctx, dataRoot)
	if dataRoot == "" {
		c.Notes = append(c.Notes, "fsync probe: not run: every configuration uses an existing server, whose data directory enginebench never writes")
	}
	fmt.Fprintf(log, "enginebench: calibration: %s\n", report.CalibrationText(&c))
	return &c
}
