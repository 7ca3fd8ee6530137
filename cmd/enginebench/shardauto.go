package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/shard"
)

// shardAuto, as the index of --shard auto/N, takes the shard's index from JOB_COMPLETION_INDEX:
// the pods of a Kubernetes Indexed Job of N completions then share one command line.
const shardAuto = "auto"

// isShardAuto reports whether the --shard value v takes its index from JOB_COMPLETION_INDEX.
func isShardAuto(v string) bool {
	is, _, ok := strings.Cut(strings.TrimSpace(v), "/")
	return ok && strings.TrimSpace(is) == shardAuto
}

// parseShard parses the --shard value v, I/N or auto/N, reading JOB_COMPLETION_INDEX with
// getenv for auto.
func parseShard(v string, getenv func(string) string) (index, count int, err error) {
	if !isShardAuto(v) {
		return shard.Parse(v)
	}
	_, ns, _ := strings.Cut(strings.TrimSpace(v), "/")
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil || n < 1 {
		return 0, 0, fmt.Errorf("--shard %q: want auto/N, N at least 1 (the shard's index from $%s)", v, jobIndexEnv)
	}
	env := getenv(jobIndexEnv)
	if env == "" {
		return 0, 0, fmt.Errorf("--shard %s: the shard's index comes from $%s (set in the pods of a Kubernetes Indexed Job), which is not set", v, jobIndexEnv)
	}
	i, err := strconv.Atoi(strings.TrimSpace(env))
	if err != nil || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %s: %s %q: want a shard index 0 to %d (the Job's completions must be N)", v, jobIndexEnv, env, n-1)
	}
	return i, n, nil
}

// configIndexEnv returns getenv for the configuration index: without JOB_COMPLETION_INDEX when
// --shard auto/N takes it as the shard's index.
func (s *shardFlags) configIndexEnv(getenv func(string) string) func(string) string {
	if !isShardAuto(s.shard) {
		return getenv
	}
	return func(k string) string {
		if k == jobIndexEnv {
			return ""
		}
		return getenv(k)
	}
}
