package host

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// The calibration's sizes: the CPU loop runs chunks of cpuChunk iterations, at most
// cpuMaxChunks of them and no longer than cpuBudget in all; the fsync probe appends
// fsyncSamples blocks of fsyncBlock bytes, each followed by fsync.
const (
	cpuChunk     = 1 << 20
	cpuMaxChunks = 64
	cpuBudget    = 250 * time.Millisecond
	fsyncSamples = 40
	fsyncBlock   = 4096
)

// Calibrate runs the calibration probe: the fixed CPU loop, then fsync latency in a
// temporary file of dir (none when dir is ""), which it removes. It stops when ctx ends; a
// figure it could not measure is nil, with a note saying why.
func Calibrate(ctx context.Context, dir string) result.Calibration {
	var c result.Calibration
	ns, iters, err := CPULoop(ctx)
	if err != nil {
		c.Notes = append(c.Notes, "CPU loop: "+err.Error())
	} else {
		c.CPUNsPerIter, c.CPUIters = &ns, iters
	}
	if dir == "" {
		return c
	}
	lat, err := FsyncLatency(ctx, dir, fsyncSamples)
	if err != nil {
		c.Notes = append(c.Notes, "fsync probe: "+err.Error())
		return c
	}
	p50, p99 := micros(percentile(lat, 0.50)), micros(percentile(lat, 0.99))
	c.FsyncP50Us, c.FsyncP99Us, c.FsyncSamples, c.FsyncDir = &p50, &p99, len(lat), dir
	return c
}

// CPULoop times a fixed integer loop (xorshift and multiply, a dependency chain the compiler
// cannot shorten) in chunks and returns the fastest chunk's nanoseconds per iteration and the
// iterations timed. It stops early, with what it has, after cpuBudget; with an error when
// ctx ends before the first chunk.
func CPULoop(ctx context.Context) (nsPerIter float64, iters int64, err error) {
	start := time.Now()
	best := time.Duration(-1)
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < cpuMaxChunks; i++ {
		if err := ctx.Err(); err != nil {
			if best < 0 {
				return 0, 0, fmt.Errorf("not run: %w", err)
			}
			break
		}
		t := time.Now()
		x = spin(x, cpuChunk)
		if d := time.Since(t); best < 0 || d < best {
			best = d
		}
		iters += cpuChunk
		if time.Since(start) >= cpuBudget {
			break
		}
	}
	if x == 0 { // never: xorshift keeps a non-zero state; this keeps x alive
		return 0, 0, fmt.Errorf("the loop's state became 0")
	}
	return float64(best.Nanoseconds()) / cpuChunk, iters, nil
}

// spin runs n iterations of the loop from state x and returns the new state.
func spin(x uint64, n int) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x *= 0x2545f4914f6cdd1d
		x |= 1
	}
	return x
}

// FsyncLatency appends n blocks to a new temporary file in dir, each followed by fsync, and
// returns the time of each write+fsync; the file is removed. It returns when ctx ends even
// while an fsync hangs (the file is then removed once the fsync returns).
func FsyncLatency(ctx context.Context, dir string, n int) ([]time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("not run: %w", err)
	}
	type outcome struct {
		lat []time.Duration
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		lat, err := fsyncs(ctx, dir, n)
		done <- outcome{lat, err}
	}()
	select {
	case o := <-done:
		return o.lat, o.err
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped: %w", ctx.Err())
	}
}

// fsyncs does FsyncLatency's work; it stops between fsyncs when ctx ends.
func fsyncs(ctx context.Context, dir string, n int) (lat []time.Duration, err error) {
	f, err := os.CreateTemp(dir, ".enginebench-calibrate-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
		if rerr := os.Remove(f.Name()); rerr != nil && err == nil {
			err = rerr
		}
	}()
	block := make([]byte, fsyncBlock)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("stopped after %d of %d: %w", i, n, err)
		}
		block[0] = byte(i)
		t := time.Now()
		if _, err := f.Write(block); err != nil {
			return nil, err
		}
		if err := f.Sync(); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t))
	}
	return lat, nil
}

// percentile returns the q-quantile of d by nearest rank (q in (0, 1]).
func percentile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*q)) - 1
	return s[max(0, min(i, len(s)-1))]
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
