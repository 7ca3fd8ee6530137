package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/shard"
)

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
			t.Setenv(shard.JobIndexEnv, c.env)
			args, _ := tinyArgs(t, "sqlite", append([]string{"--shard", "auto/2", "--shard-run", "r", "--clients", "2"}, c.args...)...)
			if c.args != nil {
				args = slices.Delete(args, 3, 5) // --config names the configurations
			}
			runBad(t, c.want, args...)
		})
	}
}

// TestShardAutoRunsThePodsShards runs a shard set as the pods of deploy/k8s/shards-job.yaml run
// it: two processes of the binary with one command line, --shard auto/2, each with its own
// JOB_COMPLETION_INDEX and the DSN in ENGINEBENCH_DSN (not on the command line); they run shards
// 0 and 1 of the run and meet at each step on the existing PostgreSQL.
func TestShardAutoRunsThePodsShards(t *testing.T) {
	integration(t, "starts a server and runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	bin := buildBinary(t)
	var runs []*bgRun
	var outs []string
	for i := range 2 {
		args, out := tinyArgs(t, "postgres", "--clients", "2", "--rows", "2000", "--steps", "l.i0,l.x", "--no-calibrate",
			"--shard", "auto/2", "--shard-run", "pods")
		args[slices.Index(args, "--data-dir")+1] = srv.DataDir()
		r := &bgRun{cmd: exec.Command(bin, args...)}
		r.cmd.Env = append(os.Environ(), shard.JobIndexEnv+"="+strconv.Itoa(i), "ENGINEBENCH_DSN="+srv.DSN())
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.cmd.Process.Kill() })
		runs, outs = append(runs, r), append(outs, out)
	}
	for i, r := range runs {
		if code := exitOf(t, r); code != 0 {
			t.Fatalf("pod %d: exit %d; stderr:\n%s", i, code, r.stderr.String())
		}
		sh := loadRun(t, outs[i]).Shard
		if sh == nil || sh.Index != i || sh.Count != 2 || sh.Run != "pods" || !slices.Equal(sh.Clients, []int{i}) {
			t.Errorf("pod %d: run.json's shard %+v, want shard %d of 2 of run pods, client %d", i, sh, i, i)
		}
	}
	// Each shard arrives before every step and at the end, after the last.
	want := []string{"postgres/end 0", "postgres/end 1", "postgres/l.i0 0", "postgres/l.i0 1", "postgres/l.x 0", "postgres/l.x 1"}
	if got := arrivals(t, onServer(t, "postgres", srv), "pods"); !slices.Equal(got, want) {
		t.Errorf("barrier table: %v, want %v", got, want)
	}
}
