package cgroup

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeGroup is a Group over a plain directory holding the given files, to
// read the figures of a hierarchy this machine may not have.
func fakeGroup(t *testing.T, v Version, files map[string]string) *Group {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Group{c: controller{version: v}, dir: dir}
}

func TestStatsFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		v     Version
		files map[string]string
		want  Stats
	}{
		{"v2 with memory.peak", V2, map[string]string{
			"memory.max":     "67108864\n",
			"memory.current": "1000\n",
			"memory.peak":    "5000\n",
			"memory.stat":    "anon 200\nfile 800\nfile_mapped 10\n",
			"memory.events":  "low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n",
		}, Stats{Limit: 67108864, Usage: 1000, Peak: 5000, Cache: 800, OOMKills: 1}},
		{"v2 before Linux 5.19, no cap", V2, map[string]string{
			"memory.max":     "max\n",
			"memory.current": "1000\n",
			"memory.stat":    "anon 200\nfile 800\n",
			"memory.events":  "low 0\n",
		}, Stats{Limit: 1<<63 - 1, Usage: 1000, Peak: NotMeasured, Cache: 800, OOMKills: NotMeasured}},
		{"v1 hierarchical cache", V1, map[string]string{
			"memory.limit_in_bytes":     "67108864\n",
			"memory.usage_in_bytes":     "3000\n",
			"memory.max_usage_in_bytes": "9000\n",
			"memory.stat":               "cache 100\nrss 5\ntotal_cache 2100\ntotal_rss 7\n",
			"memory.oom_control":        "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n",
		}, Stats{Limit: 67108864, Usage: 3000, Peak: 9000, Cache: 2100, OOMKills: 3}},
		{"v1 old kernel", V1, map[string]string{
			"memory.limit_in_bytes":     "67108864\n",
			"memory.usage_in_bytes":     "3000\n",
			"memory.max_usage_in_bytes": "9000\n",
			"memory.stat":               "cache 100\nrss 5\n",
			"memory.oom_control":        "oom_kill_disable 0\nunder_oom 0\n",
		}, Stats{Limit: 67108864, Usage: 3000, Peak: 9000, Cache: 100, OOMKills: NotMeasured}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fakeGroup(t, tc.v, tc.files).Stats()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("Stats() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStatsMissingFile(t *testing.T) {
	g := fakeGroup(t, V1, map[string]string{"memory.limit_in_bytes": "1\n"})
	if _, err := g.Stats(); err == nil {
		t.Fatal("Stats() with no memory.usage_in_bytes: no error")
	}
	g = fakeGroup(t, V2, map[string]string{"memory.max": "1\n", "memory.current": "2\n", "memory.stat": "anon 1\n"})
	if _, err := g.Stats(); err == nil {
		t.Fatal("Stats() with no file in memory.stat: no error")
	}
}
