package main

import "github.com/enginebench/enginebench/internal/shard"

// configIndexEnv returns getenv for the configuration index: without JOB_COMPLETION_INDEX when
// --shard auto/N takes it as the shard's index.
func (s *shardFlags) configIndexEnv(getenv func(string) string) func(string) string {
	if !shard.IsAuto(s.shard) {
		return getenv
	}
	return func(k string) string {
		if k == jobIndexEnv {
			return ""
		}
		return getenv(k)
	}
}
