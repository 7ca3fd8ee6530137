package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/runspec"
)

// TestExampleConfigs parses every run spec in configs/ and checks each configuration whose
// engine is built in and available here, and whose installation (bindir, basedir) is here, with
// the engine's own checks; it lists the others. With CI=true, an engine that is built in but
// not available is an error (CI installs them).
func TestExampleConfigs(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "configs", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no run specs in configs/: %v", err)
	}
	real, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	unchecked := map[string]int{} // "file: engine ... (why)" -> configurations
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			sp, _, err := runspec.Load(file, withPlaceholders(t, real, file))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range sp.Configs {
				d, err := real.Lookup(c.Engine)
				if err != nil {
					unchecked[filepath.Base(file)+": engine "+c.Engine+" is not built in"]++
					continue
				}
				if d.Available != nil {
					if err := d.Available(); err != nil {
						if os.Getenv("CI") == "true" {
							t.Errorf("%s: engine %s is not available: %v", c.Name, c.Engine, err)
						}
						unchecked[filepath.Base(file)+": engine "+c.Engine+" is not available: "+err.Error()]++
						continue
					}
				}
				if dir := installation(c.Settings); dir != "" {
					if _, err := os.Stat(dir); err != nil { // a user's own installation (MySQL's cannot be installed here)
						unchecked[filepath.Base(file)+": installation "+dir+" is not on this machine"]++
						continue
					}
				}
				if err := real.Check(engine.Config{Name: c.Name, Engine: c.Engine, Settings: c.Settings}); err != nil {
					t.Errorf("%s:%d: %s: %v", file, c.Line, c.Name, err)
				}
			}
		})
	}
	var lines []string
	for why, n := range unchecked {
		lines = append(lines, fmt.Sprintf("%s: %d configurations", why, n))
	}
	if len(lines) > 0 {
		sort.Strings(lines)
		t.Logf("parsed, not checked by their engines:\n  %s", strings.Join(lines, "\n  "))
	}
}

// installation returns the installation a configuration's settings name (bindir, basedir), or "".
func installation(settings map[string]string) string {
	if d := settings["bindir"]; d != "" {
		return d
	}
	return settings["basedir"]
}

// withPlaceholders returns real plus a placeholder driver for each engine that file names and
// real lacks, so that the file parses before those engines are built in.
func withPlaceholders(t *testing.T, real *engine.Registry, file string) *engine.Registry {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Configs []struct {
			Engine string `yaml:"engine"`
		} `yaml:"configs"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	drivers := real.Drivers()
	seen := map[string]bool{}
	for _, c := range f.Configs {
		if _, err := real.Lookup(c.Engine); c.Engine == "" || err == nil || seen[c.Engine] {
			continue
		}
		seen[c.Engine] = true
		drivers = append(drivers, engine.Driver{Name: c.Engine, Server: true,
			Open: func(context.Context, engine.Config) (engine.Engine, error) {
				return nil, errors.New("placeholder")
			}})
	}
	reg, err := engine.NewRegistry(drivers...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestInnoDBPurgeMatrix checks the resolved settings of configs/innodb-purge.yaml: every
// configuration of the study, each base applied.
func TestInnoDBPurgeMatrix(t *testing.T) {
	file := filepath.Join("..", "..", "configs", "innodb-purge.yaml")
	real, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	sp, _, err := runspec.Load(file, withPlaceholders(t, real, file))
	if err != nil {
		t.Fatal(err)
	}
	// The base lifts the purge lag limit of the published defaults (the study's base has none).
	base := map[string]string{"innodb_buffer_pool_size": "8G", "innodb_log_file_size": "4G",
		"innodb_io_capacity": "10000", "innodb_io_capacity_max": "20000",
		"innodb_max_purge_lag": "0", "innodb_max_purge_lag_delay": "0"}
	with := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	a13 := map[string]string{"innodb_max_purge_lag": "50000", "innodb_max_purge_lag_delay": "1000000", "innodb_purge_threads": "8"}
	want := map[string]map[string]string{
		"innodb-base": base,
		"innodb-a2":   with(map[string]string{"innodb_io_capacity": "20000", "innodb_io_capacity_max": "40000"}),
		"innodb-a7":   with(map[string]string{"innodb_lru_scan_depth": "2048"}),
		"innodb-a10":  with(map[string]string{"innodb_purge_threads": "8", "innodb_write_io_threads": "8"}),
		"innodb-a12":  with(map[string]string{"innodb_log_file_size": "1G"}),
		"innodb-a13":  with(a13),
		"innodb-a17":  with(map[string]string{"innodb_doublewrite": "0"}),
		"innodb-a18":  with(map[string]string{"innodb_write_io_threads": "4"}),
		"innodb-a19":  with(map[string]string{"innodb_max_dirty_pages_pct_lwm": "20", "innodb_max_dirty_pages_pct": "50"}),
		"innodb-a20":  with(map[string]string{"innodb_max_purge_lag": "200000", "innodb_max_purge_lag_delay": "1000000", "innodb_purge_threads": "8"}),
		"innodb-a21":  with(map[string]string{"innodb_max_purge_lag": "500000", "innodb_max_purge_lag_delay": "1000000", "innodb_purge_threads": "8"}),
		"innodb-a22": with(map[string]string{"innodb_max_purge_lag": "200000", "innodb_max_purge_lag_delay": "1000000",
			"innodb_purge_threads": "8", "innodb_write_io_threads": "8"}),
	}
	if len(sp.Configs) != len(want) {
		t.Errorf("%d configurations, want %d", len(sp.Configs), len(want))
	}
	for _, c := range sp.Configs {
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("unexpected configuration %s", c.Name)
			continue
		}
		if c.Engine != "innodb" {
			t.Errorf("%s: engine %s", c.Name, c.Engine)
		}
		if len(c.Settings) != len(w) {
			t.Errorf("%s: settings %v, want %v", c.Name, c.Settings, w)
		}
		for k, v := range w {
			if c.Settings[k] != v {
				t.Errorf("%s: %s = %q, want %q", c.Name, k, c.Settings[k], v)
			}
		}
	}
}
