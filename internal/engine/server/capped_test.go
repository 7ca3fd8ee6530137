package server_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/engine/server"
)

// TestCappedServerMallocArenas: a server started under a memory cap is born in the cap's group
// with glibc malloc limited to two arenas and, where jemalloc is installed (CI installs it),
// jemalloc preloaded, which the running server has mapped; one started without a cap has
// neither.
func TestCappedServerMallocArenas(t *testing.T) {
	if err := cgroup.Check(); err != nil {
		if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
			t.Fatalf("CI=true as root and no memory cap: %v", err)
		}
		t.Skipf("no memory cap here: %v", err)
	}
	g, err := cgroup.New("servertest", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	capped, _ := startWith(t, server.MariaDB, server.Options{Cgroup: g})
	t.Cleanup(func() {
		capped.Stop()
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	})
	plain, _ := startWith(t, server.MariaDB, server.Options{})
	const debianJemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
	jemalloc := ""
	if _, err := os.Stat(debianJemalloc); err == nil {
		jemalloc = debianJemalloc
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and no %s (.ci/run installs libjemalloc2): %v", debianJemalloc, err)
	}
	inGroup, err := g.Procs()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    *server.Server
		want bool
	}{{capped, true}, {plain, false}} {
		pid := processes(t, tc.s)[0]
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			t.Fatal(err)
		}
		got := bytes.Contains(env, []byte("\x00MALLOC_ARENA_MAX=2\x00")) || bytes.HasPrefix(env, []byte("MALLOC_ARENA_MAX=2\x00"))
		if jemalloc != "" {
			maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(maps, []byte(jemalloc)) != tc.want {
				t.Errorf("server %d: %s mapped %v, want %v", pid, jemalloc, !tc.want, tc.want)
			}
		}
		if got != tc.want || contains(inGroup, pid) != tc.want {
			t.Errorf("server %d: MALLOC_ARENA_MAX=2 %v and in the capped group %v, want both %v; environment %s",
				pid, got, contains(inGroup, pid), tc.want, strings.ReplaceAll(string(env), "\x00", " "))
		}
	}
}
