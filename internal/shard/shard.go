// Package shard coordinates the shards of a run split over several processes
// (docs/scale-out.md): which clients a shard runs (Shard), and, in the target database of an
// existing server, the barrier at which the shards meet before each step (Barrier), the
// heartbeat by which a waiting shard tells a dead shard from a slow one, and the data they hand
// each other at a barrier.
package shard

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Shard is the part of a run's clients one process runs (--shard I/N, docs/scale-out.md):
// clients are partitioned by index, client c belonging to shard c % Count, so that one process
// running every shard's clients and N processes running one shard each make the same
// workload. The zero value (and Count 1) is the whole run.
type Shard struct {
	Index, Count int
	// Run is the id every shard of one run shares (--shard-run, or from --start-at): the
	// barrier's key.
	Run string
	// Timeout is how long a waiting shard gives a shard that has not arrived: since its last
	// heartbeat, or since the arrival when it never beat (heartbeat.go).
	Timeout time.Duration
	// StartAt, when set, is the earliest start of the first step (--start-at).
	StartAt time.Time
}

// DefaultTimeout is how long a shard may give no sign of life, or not come, before the
// others fail the step (--shard-timeout).
const DefaultTimeout = 5 * time.Minute

// Sharded reports whether the run's clients are split over more than one process.
func (s Shard) Sharded() bool { return s.Count > 1 }

// Owns reports whether client c (0-based) is this shard's.
func (s Shard) Owns(c int) bool { return s.Count <= 1 || c%s.Count == s.Index }

// Leader reports whether this shard does the steps only one shard may do (shard 0).
func (s Shard) Leader() bool { return s.Index == 0 }

// Parse parses --shard's value "I/N": 0 <= I < N.
func Parse(v string) (index, count int, err error) {
	bad := fmt.Errorf("--shard %q: want I/N, shard I (0-based) of N shards, N at least 1 and 0 <= I < N", v)
	is, ns, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return 0, 0, bad
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, bad
	}
	return i, n, nil
}

// JobIndexEnv is the index of a pod of a Kubernetes Indexed Job, which --shard auto/N takes as
// the shard's index.
const JobIndexEnv = "JOB_COMPLETION_INDEX"

// Auto, as the index of --shard auto/N, takes the shard's index from JobIndexEnv: the pods of
// a Kubernetes Indexed Job of N completions then share one command line.
const Auto = "auto"

// IsAuto reports whether the --shard value v takes its index from JobIndexEnv.
func IsAuto(v string) bool {
	is, _, ok := strings.Cut(strings.TrimSpace(v), "/")
	return ok && strings.TrimSpace(is) == Auto
}

// ParseFlag parses the --shard value v, I/N (Parse) or auto/N, reading JobIndexEnv with getenv
// for auto.
func ParseFlag(v string, getenv func(string) string) (index, count int, err error) {
	if !IsAuto(v) {
		return Parse(v)
	}
	_, ns, _ := strings.Cut(strings.TrimSpace(v), "/")
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil || n < 1 {
		return 0, 0, fmt.Errorf("--shard %q: want auto/N, N at least 1 (the shard's index from $%s)", v, JobIndexEnv)
	}
	env := getenv(JobIndexEnv)
	if env == "" {
		return 0, 0, fmt.Errorf("--shard %s: the shard's index comes from $%s (set in the pods of a Kubernetes Indexed Job), which is not set", v, JobIndexEnv)
	}
	i, err := strconv.Atoi(strings.TrimSpace(env))
	if err != nil || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %s: %s %q: want a shard index 0 to %d (the Job's completions must be N)", v, JobIndexEnv, env, n-1)
	}
	return i, n, nil
}
