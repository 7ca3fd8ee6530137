// Package runspec reads a run spec (enginebench run --config FILE.yaml, docs/run-spec.md): the
// workload, the scale, workload parameters and a list of named engine configurations, each
// checked against the engine registry and resolved against its base. It also keeps the spec's
// redacted copy for the results directory.
package runspec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/redact"
)

// file is a run spec as written. Settings and params stay YAML nodes, so that their values
// keep their literal form ("4G", "0x10") and their line numbers.
type file struct {
	Workload string       `yaml:"workload"`
	Scale    string       `yaml:"scale"`
	Repeat   string       `yaml:"repeat"`
	Params   yaml.Node    `yaml:"params"`
	Configs  []fileConfig `yaml:"configs"`
}

// fileConfig is one engine configuration of a run spec as written.
type fileConfig struct {
	Name     string    `yaml:"name"`
	Engine   string    `yaml:"engine"`
	Base     string    `yaml:"base"`
	Settings yaml.Node `yaml:"settings"`
	DSN      string    `yaml:"dsn"`
	DSNEnv   string    `yaml:"dsn_env"`
	DBPID    int       `yaml:"db_pid"`
	DataDir  string    `yaml:"data_dir"`
}

// Spec is a loaded and validated run spec.
type Spec struct {
	Path     string
	Workload string // empty when the spec does not name one
	Scale    string // empty when the spec does not name one
	Repeat   string // repeat: as written; empty when the spec does not name one
	Params   []Param
	Configs  []Config
	// redacted is the spec with every DSN and password replaced (see Copy).
	redacted []byte
}

// Param is one workload parameter of a run spec: a flag of `run` and its value.
type Param struct {
	Flag, Value string
	Line        int
}

// Config is one resolved engine configuration of a run spec (its base applied).
type Config struct {
	Name     string
	Engine   string
	Settings map[string]string
	// DSN is the server's DSN from dsn: or the variable named by dsn_env:; DSNFrom says which,
	// for messages that must not show the DSN itself.
	DSN, DSNFrom string
	// DSNEnv names the environment variable that holds the DSN (dsn_env:).
	DSNEnv  string
	DBPID   int
	DataDir string
	Line    int
}

// Where is the configuration's place in the spec at path, "FILE:LINE", for error messages.
func (c Config) Where(path string) string { return fmt.Sprintf("%s:%d", path, c.Line) }

// validName matches configuration names: letters, digits, '-', '_' and '.', not starting
// with '-', '_' or '.', so that a name is a safe directory name.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidName reports whether name may name a configuration: letters, digits, '-', '_' and '.',
// starting with a letter or digit, so that it is a safe directory name.
func ValidName(name string) bool { return validName.MatchString(name) }

// Load reads and validates the run spec at path: keys, names, bases, settings and engines
// (known to reg). It returns warnings to print (a DSN with a password written in the file).
// Every error is one line that names the file, and the line where it can.
func Load(path string, reg *engine.Registry) (*Spec, []string, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, nil, err
	}
	f, doc, err := decode(path, b)
	if err != nil {
		return nil, nil, err
	}
	s := &Spec{Path: path, Workload: f.Workload, Scale: f.Scale, Repeat: f.Repeat}
	if s.Params, err = readParams(path, &f.Params); err != nil {
		return nil, nil, err
	}
	if len(f.Configs) == 0 {
		return nil, nil, fmt.Errorf("%s: no configs: a run spec lists at least one engine configuration", path)
	}
	lines := configLines(doc)
	var warnings []string
	raw := make([]Config, len(f.Configs))
	own := make([]map[string]string, len(f.Configs))
	for i, c := range f.Configs {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		var warning string
		if raw[i], own[i], warning, err = configEntry(path, i, line, c, raw[:i], reg); err != nil {
			return nil, nil, err
		}
		if warning != "" {
			warnings = append(warnings, warning)
		}
	}
	r := baseResolver{path: path, configs: f.Configs, entries: raw, own: own, state: make([]int, len(raw))}
	for i := range raw {
		if err := r.resolve(i); err != nil {
			return nil, nil, err
		}
	}
	s.Configs = raw
	if s.redacted, err = redactedSpec(b, doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, warnings, nil
}

// configEntry checks configuration i of the spec at path, c at line, against the ones before
// it (name unique), and returns it with its own settings (before its base's apply) and a
// warning when its DSN holds a password.
func configEntry(path string, i, line int, c fileConfig, before []Config, reg *engine.Registry) (Config, map[string]string, string, error) {
	e := Config{Name: c.Name, Engine: c.Engine, DBPID: c.DBPID, DataDir: c.DataDir, Line: line}
	at := e.Where(path)
	switch {
	case c.Name == "":
		return e, nil, "", fmt.Errorf("%s: configuration %d has no name", at, i+1)
	case !validName.MatchString(c.Name):
		return e, nil, "", fmt.Errorf("%s: configuration name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit", at, c.Name)
	}
	if j := slices.IndexFunc(before, func(o Config) bool { return o.Name == c.Name }); j >= 0 {
		return e, nil, "", fmt.Errorf("%s: configuration name %q is used twice (first at line %d)", at, c.Name, before[j].Line)
	}
	if c.Engine == "" && c.Base == "" {
		return e, nil, "", fmt.Errorf("%s: configuration %s has neither engine nor base", at, c.Name)
	}
	if c.Engine != "" {
		if _, err := reg.Lookup(c.Engine); err != nil {
			return e, nil, "", fmt.Errorf("%s: configuration %s: %w", at, c.Name, err)
		}
	}
	own, err := readSettings(path, c.Name, &c.Settings)
	if err != nil {
		return e, nil, "", err
	}
	var warning string
	switch {
	case c.DSN != "" && c.DSNEnv != "":
		return e, nil, "", fmt.Errorf("%s: configuration %s has both dsn and dsn_env; give one", at, c.Name)
	case c.DSN != "":
		e.DSN, e.DSNFrom = c.DSN, "dsn: in "+path
		if redact.Text(c.DSN) != c.DSN {
			warning = fmt.Sprintf("%s: configuration %s: the dsn holds a password; "+
				"keep credentials out of files with dsn_env: VARIABLE or --dsn", at, c.Name)
		}
	case c.DSNEnv != "":
		e.DSNEnv = c.DSNEnv // read by run, unless --dsn overrides it
	}
	if c.DBPID < 0 {
		return e, nil, "", fmt.Errorf("%s: configuration %s: db_pid %d is not a process id", at, c.Name, c.DBPID)
	}
	return e, own, warning, nil
}

// The states of a configuration while its base chain is resolved.
const (
	baseUnresolved = iota
	baseResolving
	baseResolved
)

// baseResolver applies the configurations' bases: a configuration starts from its base's
// engine and settings, and its own settings override them.
type baseResolver struct {
	path    string
	configs []fileConfig
	entries []Config
	own     []map[string]string // each configuration's own settings
	state   []int
}

// resolve sets the engine and settings of entry i, resolving its base first.
func (r *baseResolver) resolve(i int) error {
	switch r.state[i] {
	case baseResolved:
		return nil
	case baseResolving:
		return fmt.Errorf("%s: configuration %s: its base chain is a cycle", r.entries[i].Where(r.path), r.entries[i].Name)
	}
	r.state[i] = baseResolving
	c := r.configs[i]
	settings := map[string]string{}
	if c.Base != "" {
		j := slices.IndexFunc(r.entries, func(o Config) bool { return o.Name == c.Base })
		if j < 0 {
			return fmt.Errorf("%s: configuration %s: base %q does not exist (configurations: %s)",
				r.entries[i].Where(r.path), c.Name, c.Base, strings.Join(entryNames(r.entries), ", "))
		}
		if j == i {
			return fmt.Errorf("%s: configuration %s is its own base", r.entries[i].Where(r.path), c.Name)
		}
		if err := r.resolve(j); err != nil {
			return err
		}
		if r.entries[i].Engine == "" {
			r.entries[i].Engine = r.entries[j].Engine
		}
		maps.Copy(settings, r.entries[j].Settings)
	}
	maps.Copy(settings, r.own[i])
	r.entries[i].Settings = settings
	r.state[i] = baseResolved
	return nil
}

// entryNames returns the names of es.
func entryNames(es []Config) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}
