package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
)

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
