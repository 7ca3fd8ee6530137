package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
)

// writeSpec writes a run spec into a fresh directory and returns its path.
func writeSpec(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testRegistry returns the engines sqlite and pebble and two fake server engines, srv and srv2, whose
// drivers check configurations like a server engine's (a DSN, any server variable) and open
// nothing: the tests that use them check flags and configurations, never run an engine.
func testRegistry(t *testing.T) *engine.Registry {
	t.Helper()
	reg, err := engine.NewRegistry(sqldb.SQLiteDriver(), pebble.Driver(), enginetest.FakeServer("srv"), enginetest.FakeServer("srv2"))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// planned is the part of a configuration that the flags decide, for comparisons.
type planned struct {
	Name, Engine string
	Settings     map[string]string
	DSN, From    string
	DBPID        int
	Keep         bool
}

func TestConfigsFromFlagsAndEnvironment(t *testing.T) {
	reg := testRegistry(t)
	pid := os.Getpid()
	self := strconv.Itoa(pid)
	spec := writeSpec(t, `configs:
  - name: base
    engine: srv
    settings: {shared_buffers: 1GB}
  - name: env
    engine: srv2
    dsn_env: TEST_SRV2_DSN
  - name: file
    engine: srv
    dsn: "host=/run/db user=bench"
    db_pid: `+self+`
`)
	none := map[string]string{}
	cases := []struct {
		name  string
		f     Options
		spec  bool
		env   map[string]string
		want  []planned
		err   string // a substring of the error, when one is expected
		avoid string // must not be in the error
	}{
		{name: "one server, --dsn", f: Options{Engines: "srv", DSN: []string{"postgres://u:pw@h/db"}},
			want: []planned{{"srv", "srv", none, "postgres://u:pw@h/db", "--dsn", 0, false}}},
		{name: "a DSN with '=' is not taken for CONFIG=DSN", f: Options{Engines: "srv", DSN: []string{"host=/tmp user=u"}},
			want: []planned{{"srv", "srv", none, "host=/tmp user=u", "--dsn", 0, false}}},
		{name: "CONFIG=DSN for each", f: Options{Engines: "srv,srv2,sqlite", DSN: []string{"srv2=b=1", "srv=a"}},
			want: []planned{{"srv", "srv", none, "a", "--dsn", 0, false}, {"srv2", "srv2", none, "b=1", "--dsn", 0, false},
				{"sqlite", "sqlite", none, "", "", 0, false}}},
		{name: "DSN without CONFIG= for several", f: Options{Engines: "srv,srv2", DSN: []string{"host=h password=s3cret"}},
			err: "give --dsn CONFIG=DSN for each server", avoid: "s3cret"},
		{name: "DSN twice", f: Options{Engines: "srv,srv2", DSN: []string{"srv=a", "srv=b"}}, err: "--dsn is given twice for configuration srv"},
		{name: "empty DSN", f: Options{Engines: "srv,srv2", DSN: []string{"srv="}}, err: "the DSN is empty"},
		{name: "ENGINEBENCH_DSN for one server", f: Options{Engines: "srv", Keep: true}, env: map[string]string{"ENGINEBENCH_DSN": "e"},
			want: []planned{{"srv", "srv", none, "e", "ENGINEBENCH_DSN", 0, true}}},
		{name: "--dsn wins over ENGINEBENCH_DSN", f: Options{Engines: "srv", DSN: []string{"d"}}, env: map[string]string{"ENGINEBENCH_DSN": "e"},
			want: []planned{{"srv", "srv", none, "d", "--dsn", 0, false}}},
		{name: "ENGINEBENCH_DSN not for an embedded engine", f: Options{Engines: "sqlite"}, env: map[string]string{"ENGINEBENCH_DSN": "e"},
			want: []planned{{"sqlite", "sqlite", none, "", "", 0, false}}},
		{name: "ENGINEBENCH_DSN not for several", f: Options{Engines: "srv,srv2"}, env: map[string]string{"ENGINEBENCH_DSN": "e"},
			want: []planned{{"srv", "srv", none, "", "", 0, false}, {"srv2", "srv2", none, "", "", 0, false}}},
		{name: "settings with a DSN", f: Options{Engines: "srv", DSN: []string{"d"}, Set: []string{"srv.shared_buffers=1GB"}},
			err: "configuration srv (DSN from --dsn): engine srv: settings apply to a managed server only"},
		{name: "settings with ENGINEBENCH_DSN", f: Options{Engines: "srv", Set: []string{"srv.x=1"}}, env: map[string]string{"ENGINEBENCH_DSN": "e"},
			err: "(DSN from ENGINEBENCH_DSN)"},
		{name: "a server variable is checked", f: Options{Engines: "srv", Set: []string{"srv.bad=7"}}, err: `srv: setting bad: "7" is refused`},
		{name: "a DSN for an embedded engine", f: Options{Engines: "sqlite", DSN: []string{"d"}}, err: "engine sqlite is not a server"},
		{name: "--db-pid N", f: Options{Engines: "srv", DSN: []string{"d"}, DBPID: []string{self}},
			want: []planned{{"srv", "srv", none, "d", "--dsn", pid, false}}},
		{name: "--db-pid CONFIG=N", f: Options{Engines: "srv,srv2", DSN: []string{"srv2=d"}, DBPID: []string{"srv2=" + self}},
			want: []planned{{"srv", "srv", none, "", "", 0, false}, {"srv2", "srv2", none, "d", "--dsn", pid, false}}},
		{name: "--db-pid without a DSN", f: Options{Engines: "srv", DBPID: []string{self}}, err: "needs an existing server"},
		{name: "--db-pid N for several", f: Options{Engines: "srv,srv2", DBPID: []string{self}}, err: "give --db-pid CONFIG=N"},
		{name: "--db-pid for no configuration", f: Options{Engines: "srv", DBPID: []string{"x=1"}}, err: `no configuration is called "x"`},
		{name: "--db-pid not a number", f: Options{Engines: "srv", DSN: []string{"d"}, DBPID: []string{"many"}}, err: "want a process id"},
		{name: "--db-pid of no process", f: Options{Engines: "srv", DSN: []string{"d"}, DBPID: []string{"2147483646"}},
			err: "server process 2147483646: no such process"},
		{name: "spec: dsn, dsn_env and db_pid", spec: true, env: map[string]string{"TEST_SRV2_DSN": "from-env"},
			want: []planned{{"base", "srv", map[string]string{"shared_buffers": "1GB"}, "", "", 0, false},
				{"env", "srv2", none, "from-env", "environment variable TEST_SRV2_DSN", 0, false},
				{"file", "srv", none, "host=/run/db user=bench", "dsn: in " + spec, pid, false}}},
		{name: "spec: --dsn wins over dsn_env, even unset", spec: true, f: Options{DSN: []string{"env=flag", "base=b"}, Set: []string{"base.shared_buffers=2GB"}},
			err: "configuration base (DSN from --dsn): engine srv: settings apply to a managed server only"},
		{name: "spec: --dsn CONFIG=DSN", spec: true, f: Options{DSN: []string{"env=flag"}, DBPID: []string{"env=" + self}},
			want: []planned{{"base", "srv", map[string]string{"shared_buffers": "1GB"}, "", "", 0, false},
				{"env", "srv2", none, "flag", "--dsn", pid, false},
				{"file", "srv", none, "host=/run/db user=bench", "dsn: in " + spec, pid, false}}},
		{name: "NAME=ENGINE: one engine, two configurations", f: Options{Engines: "a=srv,b=srv,srv2", Set: []string{"b.shared_buffers=2GB"}},
			want: []planned{{"a", "srv", none, "", "", 0, false}, {"b", "srv", map[string]string{"shared_buffers": "2GB"}, "", "", 0, false},
				{"srv2", "srv2", none, "", "", 0, false}}},
		{name: "an engine twice", f: Options{Engines: "srv,srv"}, err: `engine "srv" given twice in --engines: name each configuration (NAME=srv)`},
		{name: "a name twice", f: Options{Engines: "a=srv,a=srv2"}, err: `configuration name "a" given twice in --engines`},
		{name: "NAME= without an engine", f: Options{Engines: "a="}, err: `--engines "a=": want NAME=ENGINE`},
		{name: "=ENGINE without a name", f: Options{Engines: "=srv"}, err: `--engines "=srv": want NAME=ENGINE`},
		{name: "NAME=ENGINE of no engine", f: Options{Engines: "a=nope"}, err: `nope`},
		{name: "spec: dsn_env unset", spec: true, err: "spec.yaml:5: configuration env: dsn_env: the environment variable TEST_SRV2_DSN is not set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sp *runspec.Spec
			if c.spec {
				var err error
				if sp, _, err = runspec.Load(spec, reg); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string { return c.env[k] }
			o := c.f
			o.Spec, o.Getenv = sp, getenv
			cps, _, err := configs(reg, o, nil, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				if c.avoid != "" && strings.Contains(err.Error(), c.avoid) {
					t.Errorf("error %q shows %q", err, c.avoid)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []planned
			for _, cp := range cps {
				got = append(got, planned{cp.Name, cp.Engine, cp.Settings, cp.DSN, cp.dsnFrom, cp.DBPID, cp.Keep})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("configurations\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

func TestSetAppliesByConfigurationThenEngine(t *testing.T) {
	reg := testRegistry(t)
	spec := writeSpec(t, `configs:
  - {name: pebble-a, engine: pebble}
  - {name: pebble.b, engine: pebble}
  - {name: pebble, engine: pebble}
  - {name: sqlite-x, engine: sqlite}
  - {name: sqlite-y, engine: sqlite}
`)
	sp, _, err := runspec.Load(spec, reg)
	if err != nil {
		t.Fatal(err)
	}
	f := Options{Set: []string{
		"sqlite.cache_mb=5",        // every sqlite configuration: none is called sqlite
		"sqlite-y.cache_mb=6",      // later, and by name: wins for sqlite-y
		"pebble.cache_mb=7",        // the configuration called pebble, not the engine
		"pebble.b.memtable_mb=8",   // the longest name that matches: pebble.b, not pebble
		"pebble-a.sync=true",       //
		"sqlite-x.temp_store=file", //
	}}
	f.Spec, f.Getenv = sp, func(string) string { return "" }
	cps, _, err := configs(reg, f, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"pebble-a": {"sync": "true"},
		"pebble.b": {"memtable_mb": "8"},
		"pebble":   {"cache_mb": "7"},
		"sqlite-x": {"cache_mb": "5", "temp_store": "file"},
		"sqlite-y": {"cache_mb": "6"},
	}
	for _, c := range cps {
		if !reflect.DeepEqual(c.Settings, want[c.Name]) {
			t.Errorf("%s: settings %v, want %v", c.Name, c.Settings, want[c.Name])
		}
	}
}

func TestFinishExternalRedacts(t *testing.T) {
	tmp := t.TempDir()
	server := filepath.Join(tmp, "server")
	dir, err := result.CreateDir(filepath.Join(tmp, "results"))
	if err != nil {
		t.Fatal(err)
	}
	dsn := "postgres://bench:s3cret@db/bench"
	cps := []Config{
		{Config: engine.Config{Name: "emb", Engine: "sqlite", DataDir: filepath.Join(tmp, "emb")}},
		{Config: engine.Config{Name: "ext", Engine: "srv", DataDir: server, DSN: dsn}},
		{Config: engine.Config{Name: "ext2", Engine: "srv", DSN: "x"}},
	}
	res := &result.Run{Status: result.StatusFailed, Error: "ext: connect " + dsn, Configs: []result.Config{
		{Name: "emb", Notes: []string{"a note"}},
		{Name: "ext", Error: "dial bench:s3cret@db", Notes: []string{"seen " + dsn},
			Steps: []result.Step{{Name: "l.i0", Error: "lost " + dsn}}},
		{Name: "ext2"},
	}}
	p := &Plan{Configs: cps}
	if err := p.FinishExternal(res, dir, redact.Secrets(dsn)); err != nil {
		t.Fatal(err)
	}
	loaded, err := result.Load(dir.Path())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir.Path(), "run.json"))
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), dsn) {
		t.Errorf("run.json holds the DSN or its password:\n%s", b)
	}
	for i, want := range []string{"a note", "existing server: its data directory " + server + " was measured, not changed",
		"existing server: no data directory given (--data-dir, data_dir), so the database size is not measured"} {
		if notes := loaded.Configs[i].Notes; !slices.Contains(notes, want) {
			t.Errorf("%s: notes %q, want %q among them", loaded.Configs[i].Name, notes, want)
		}
	}
}
