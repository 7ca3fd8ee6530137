package main

import "github.com/enginebench/enginebench/internal/shard"

// jobIndex returns $JOB_COMPLETION_INDEX (read with getenv) as the index of the run spec's
// configuration to run: "" when --shard auto/N takes it as the shard's index instead.
func (s *shardFlags) jobIndex(getenv func(string) string) string {
	if shard.IsAuto(s.shard) {
		return ""
	}
	return getenv(shard.JobIndexEnv)
}
