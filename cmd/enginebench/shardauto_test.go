package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// parseShard takes auto/N's index from JOB_COMPLETION_INDEX, refuses a missing, bad or
// out-of-range one and a bad N, and parses I/N as workload.ParseShard does.
func TestParseShardAuto(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == jobIndexEnv {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		v, env string
		i, n   int
		bad    bool
	}{
		{v: "auto/4", env: "3", i: 3, n: 4},
		{v: " auto/4", env: "0", i: 0, n: 4},
		{v: "auto/1", env: "0", i: 0, n: 1},
		{v: "1/2", env: "0", i: 1, n: 2}, // the variable is not read without auto
		{v: "auto/4", env: "", bad: true},
		{v: "auto/4", env: "4", bad: true},
		{v: "auto/4", env: "-1", bad: true},
		{v: "auto/4", env: "x", bad: true},
		{v: "auto/0", env: "0", bad: true},
		{v: "auto/x", env: "0", bad: true},
		{v: "auto", env: "0", bad: true},
	} {
		i, n, err := parseShard(c.v, env(c.env))
		if (err != nil) != c.bad || !c.bad && (i != c.i || n != c.n) {
			t.Errorf("parseShard(%q) with %s=%q: %d/%d, %v; want %d/%d, bad %v", c.v, jobIndexEnv, c.env, i, n, err, c.i, c.n, c.bad)
		}
	}
}

// --shard auto/N is refused before any work when JOB_COMPLETION_INDEX is missing or out of
// range; with it, the shard's checks go on (here to the embedded engine's refusal), and with
// --config the variable is the shard's index, not the configuration's.
func TestShardAutoBadInput(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "one.yaml")
	if err := os.WriteFile(spec, []byte("workload: insert\nconfigs:\n  - {name: lite, engine: sqlite}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env, want string
		args      []string
	}{
		{"", "--shard auto/2: the shard's index comes from $JOB_COMPLETION_INDEX", nil},
		{"2", `--shard auto/2: JOB_COMPLETION_INDEX "2": want a shard index 0 to 1`, nil},
		{"1", "--shard auto/2: configuration sqlite: the embedded engine sqlite runs inside one process", nil},
		{"1", "--shard auto/2: configuration lite: the embedded engine sqlite runs inside one process", []string{"--config", spec}},
	} {
		t.Run(c.want, func(t *testing.T) {
			t.Setenv(jobIndexEnv, c.env)
			args, _ := tinyArgs(t, "sqlite", append([]string{"--shard", "auto/2", "--shard-run", "r", "--clients", "2"}, c.args...)...)
			if c.args != nil {
				args = slices.Delete(args, 3, 5) // --config names the configurations
			}
			runBad(t, c.want, args...)
		})
	}
}
