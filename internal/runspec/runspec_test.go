package runspec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/redact"
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

// testRegistry returns two fake server engines, srv and srv2, that open nothing: the spec's
// engines are only looked up.
func testRegistry(t *testing.T) *engine.Registry {
	t.Helper()
	reg, err := engine.NewRegistry(enginetest.FakeServer("srv"), enginetest.FakeServer("srv2"))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestLoadSpecResolvesBasesAndKeepsLiterals(t *testing.T) {
	reg := testRegistry(t)
	path := writeSpec(t, `params:
  clients: 3
  steps: [l.i0, l.x]
  shared-table: true
configs:
  - name: c2
    base: c1               # defined below
    settings: {mem: 2G, flag: false}
  - name: c1
    engine: srv
    settings: &c1
      mem: 4G
      hex: 0x10
      float: 1e3
      quoted: "a b"
      flag: on
  - name: c3
    base: c2
    engine: srv2           # keeps c2's settings, on another engine
    dsn: "postgres://bench:hunter2@db/bench"
    db_pid: 42
    data_dir: /var/lib/db
  - name: c4
    engine: srv
    dsn_env: MY_DSN
    settings: *c1          # a YAML alias
`)
	s, warnings, err := Load(path, reg)
	if err != nil {
		t.Fatal(err)
	}
	wantParams := []Param{{"clients", "3", 2}, {"steps", "l.i0,l.x", 3}, {"shared-table", "true", 4}}
	if !reflect.DeepEqual(s.Params, wantParams) {
		t.Errorf("params %+v, want %+v", s.Params, wantParams)
	}
	c1 := map[string]string{"mem": "4G", "hex": "0x10", "float": "1e3", "quoted": "a b", "flag": "on"}
	c2 := map[string]string{"mem": "2G", "hex": "0x10", "float": "1e3", "quoted": "a b", "flag": "false"}
	want := []Config{
		{Name: "c2", Engine: "srv", Settings: c2, Line: 6},
		{Name: "c1", Engine: "srv", Settings: c1, Line: 9},
		{Name: "c3", Engine: "srv2", Settings: c2, DSN: "postgres://bench:hunter2@db/bench",
			DSNFrom: "dsn: in " + path, DBPID: 42, DataDir: "/var/lib/db", Line: 17},
		{Name: "c4", Engine: "srv", Settings: c1, DSNEnv: "MY_DSN", Line: 23},
	}
	if !reflect.DeepEqual(s.Configs, want) {
		t.Errorf("configs\n%+v\nwant\n%+v", s.Configs, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "spec.yaml:17: configuration c3: the dsn holds a password") ||
		strings.Contains(warnings[0], "hunter2") {
		t.Errorf("warnings %q: want one about c3's password, without it", warnings)
	}
	if strings.Contains(string(s.redacted), "hunter2") || !strings.Contains(string(s.redacted), "dsn: <redacted>") ||
		!strings.Contains(string(s.redacted), "# defined below") {
		t.Errorf("the spec's copy keeps the password, or lost the dsn key or the comments:\n%s", s.redacted)
	}
}

// TestSpecCopyHasNoPassword: the results' copy of a run spec keeps no password, wherever the
// spec holds it: a comment's URL, password= or password: form, a dsn's password written again
// in a comment, or the DSN of a dsn_env variable written in a comment.
func TestSpecCopyHasNoPassword(t *testing.T) {
	t.Setenv("SPEC_COPY_DSN", "postgres://bench:envpw9@db/bench")
	path := writeSpec(t, `# connect with: psql postgres://bench:urlpw1@db/bench
# password=kwpw2
# password: yamlpw3 with words
workload: insert   # MYSQL_PWD: pw4
configs:
  - name: a
    engine: srv
    dsn: "u:hunter2@tcp(db:3306)/bench"   # hunter2 rotates monthly
  - name: b
    engine: srv2
    dsn_env: SPEC_COPY_DSN   # it is postgres://bench:envpw9@db/bench, or envpw9 alone
`)
	sp, _, err := Load(path, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	secrets := redact.Secrets(os.Getenv("SPEC_COPY_DSN"))
	copied := string(sp.Copy(secrets))
	for _, pw := range []string{"urlpw1", "kwpw2", "yamlpw3", "with words", "pw4", "hunter2", "envpw9"} {
		if strings.Contains(copied, pw) {
			t.Errorf("the spec's copy keeps %q:\n%s", pw, copied)
		}
	}
	for _, keep := range []string{"workload: insert", "dsn: <redacted>", "dsn_env: SPEC_COPY_DSN", "# connect with: psql"} {
		if !strings.Contains(copied, keep) {
			t.Errorf("the spec's copy lost %q:\n%s", keep, copied)
		}
	}
}

// TestLoadRefuses: errors of the spec's own format, each one line at its file and line.
func TestLoadRefuses(t *testing.T) {
	cases := []struct{ name, spec, want string }{
		{"own base", "configs:\n  - name: a\n    base: a\n", "spec.yaml:2: configuration a is its own base"},
		{"negative db_pid", "configs:\n  - name: a\n    engine: srv\n    db_pid: -3\n", "spec.yaml:2: configuration a: db_pid -3 is not a process id"},
		{"setting twice", "configs:\n  - name: a\n    engine: srv\n    settings:\n      x: 1\n      x: 2\n",
			"spec.yaml:6: configuration a: settings: x is given twice (first at line 5)"},
		{"param list of lists", "params:\n  steps: [[l.i0]]\nconfigs:\n  - {name: a, engine: srv}\n", "spec.yaml:2: params: steps: a list holds scalars only"},
		{"param map", "params:\n  steps: {a: 1}\nconfigs:\n  - {name: a, engine: srv}\n", "spec.yaml:2: params: steps is a nested map; give a scalar value"},
		{"param without value", "params:\n  rows:\nconfigs:\n  - {name: a, engine: srv}\n", "spec.yaml:2: params: rows has no value"},
		{"params not a map", "params: [rows]\nconfigs:\n  - {name: a, engine: srv}\n", "spec.yaml:1: params must be a map of NAME: VALUE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeSpec(t, c.spec)
			if _, _, err := Load(path, testRegistry(t)); err == nil || err.Error() != filepath.Dir(path)+"/"+c.want {
				t.Errorf("error %v, want %s/%s", err, filepath.Dir(path), c.want)
			}
		})
	}
}

// TestSHA256 names the spec's text without its secrets: two runs of one spec agree, whatever
// DSNs their environments hold, and another text differs.
func TestSHA256(t *testing.T) {
	text := "configs:\n  - name: a\n    engine: srv\n    dsn: postgres://u:pw@h/db\n"
	a, _, errA := Load(writeSpec(t, text), testRegistry(t))
	b, _, errB := Load(writeSpec(t, text+"# another\n"), testRegistry(t))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if sum := a.SHA256(); len(sum) != 64 || sum == b.SHA256() {
		t.Errorf("SHA256 %q of one text, %q of another", sum, b.SHA256())
	}
	if strings.Contains(string(a.Copy(nil)), "pw") {
		t.Errorf("the copy keeps the password:\n%s", a.Copy(nil))
	}
}
