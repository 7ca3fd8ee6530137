// Package merge makes one ordinary run directory of the run directories of the shards of one
// sharded run (`enginebench merge`, docs/scale-out.md): latency percentiles from the shards'
// HdrHistogram logs merged bin by bin, counts summed, rates summed per wall-clock second,
// fairness over every client, the SLA over the summed targets, verification combined as each
// workload's shards verify (iiBench's, the same on every shard, once; LinkBench's parts summed),
// iiBench's periods cut from the merged seconds, and the database host's costs from an
// `enginebench sample` directory.
package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/result"
)

// Shard is one shard's run directory.
type Shard struct {
	Dir string
	Run *result.Run
}

// Load reads the run directories dirs and checks that they are every shard, once, of one run
// with the same workload, parameters and configurations. It returns them in the order of
// their index; errors about the input are *badinput.Error.
func Load(dirs []string) ([]Shard, error) {
	if len(dirs) == 0 {
		return nil, badinput.Errorf("merge needs the run directories of a run's shards")
	}
	var shards []Shard
	for _, d := range dirs {
		r, err := result.LoadDir(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, badinput.Errorf("%s is not a run directory (no run.json)", d)
		case err != nil:
			return nil, badinput.Errorf("%s: %v", d, err)
		case r.Shard == nil:
			return nil, badinput.Errorf("%s is not a shard's run (its run.json has no shard: enginebench run --shard I/N writes one)", d)
		case r.Status == result.StatusRunning:
			return nil, badinput.Errorf("%s: the shard's run has not ended (status running)", d)
		}
		shards = append(shards, Shard{Dir: d, Run: r})
	}
	if err := sameRun(shards); err != nil {
		return nil, err
	}
	sort.Slice(shards, func(i, j int) bool { return shards[i].Run.Shard.Index < shards[j].Run.Shard.Index })
	if err := everyShardOnce(shards); err != nil {
		return nil, err
	}
	for _, s := range shards[1:] {
		if err := alike(shards[0], s); err != nil {
			return nil, err
		}
	}
	for _, s := range shards {
		if err := haveLogs(s); err != nil {
			return nil, err
		}
	}
	return shards, nil
}

// sameRun checks that the shards are of one run: the same run id and number of shards.
func sameRun(shards []Shard) error {
	first := shards[0]
	for _, s := range shards[1:] {
		a, b := first.Run.Shard, s.Run.Shard
		switch {
		case a.Run != b.Run:
			return badinput.Errorf("shards of different runs: %s is of run %q, %s of run %q", first.Dir, a.Run, s.Dir, b.Run)
		case a.Count != b.Count:
			return badinput.Errorf("shards of run %q disagree on their number: %s is one of %d, %s one of %d", a.Run, first.Dir, a.Count, s.Dir, b.Count)
		}
	}
	return nil
}

// everyShardOnce checks that the shards, sorted by index, are each shard of the run once.
func everyShardOnce(shards []Shard) error {
	sh := shards[0].Run.Shard
	for i := 1; i < len(shards); i++ {
		if a, b := shards[i-1], shards[i]; a.Run.Shard.Index == b.Run.Shard.Index {
			return badinput.Errorf("shard %d of run %q given twice: %s and %s", a.Run.Shard.Index, sh.Run, a.Dir, b.Dir)
		}
	}
	var missing []string
	have := map[int]bool{}
	for _, s := range shards {
		have[s.Run.Shard.Index] = true
	}
	for i := range sh.Count {
		if !have[i] {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return badinput.Errorf("run %q has %d shards: shard %s missing", sh.Run, sh.Count, strings.Join(missing, ", "))
	}
	return nil
}

// alike checks that shard s ran the workload, parameters and configurations of shard a.
func alike(a, s Shard) error {
	wa, ws := a.Run.Workload, s.Run.Workload
	unlike := func(what, x, y string) error {
		return badinput.Errorf("unlike params: %s has %s %s, %s has %s", a.Dir, what, x, s.Dir, y)
	}
	for _, f := range [][3]string{{"workload", wa.Name, ws.Name}, {"scale", wa.Scale, ws.Scale},
		{"variant", wa.Variant, ws.Variant}, {"verify", wa.Verify, ws.Verify}} {
		if f[1] != f[2] {
			return unlike(f[0], f[1], f[2])
		}
	}
	keys := slices.Sorted(maps.Keys(wa.Params))
	for k := range ws.Params {
		if _, ok := wa.Params[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		x, _ := json.Marshal(wa.Params[k])
		y, _ := json.Marshal(ws.Params[k])
		if string(x) != string(y) {
			return unlike("param "+k, string(x), string(y))
		}
	}
	if x, y := configNames(a.Run), configNames(s.Run); x != y {
		return unlike("configurations", x, y)
	}
	return nil
}

// configNames lists the names and engines of r's configurations.
func configNames(r *result.Run) string {
	var names []string
	for _, c := range r.Configs {
		names = append(names, c.Name+" ("+c.Engine+")")
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// haveLogs checks that every operation that measured a latency in a step of s has its
// HdrHistogram log.
func haveLogs(s Shard) error {
	for _, c := range s.Run.Configs {
		for _, st := range c.Steps {
			for name, op := range st.Ops {
				if op.Count == 0 {
					continue
				}
				path := hdrlog.Path(filepath.Join(s.Dir, hdrlog.DirName), c.Name, st.Name, name)
				if _, err := os.Stat(path); err != nil {
					return badinput.Errorf("%s: no latency log %s for %s/%s %s (made before enginebench wrote them?): its percentiles cannot be merged",
						s.Dir, path, c.Name, st.Name, name)
				}
			}
		}
	}
	return nil
}
