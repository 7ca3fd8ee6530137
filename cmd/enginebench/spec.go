package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/enginebench/enginebench/internal/redact"
	"io"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"gopkg.in/yaml.v3"

	"github.com/enginebench/enginebench/internal/engine"
)

// A run spec (enginebench run --config FILE.yaml, docs/run-spec.md) names the workload, the
// scale, workload parameters and a list of named engine configurations.

// specFile is a run spec as written. Settings and params stay YAML nodes, so that their
// values keep their literal form ("4G", "0x10") and their line numbers.
type specFile struct {
	Workload string       `yaml:"workload"`
	Scale    string       `yaml:"scale"`
	Repeat   string       `yaml:"repeat"`
	Params   yaml.Node    `yaml:"params"`
	Configs  []specConfig `yaml:"configs"`
}

// specConfig is one engine configuration of a run spec as written.
type specConfig struct {
	Name     string    `yaml:"name"`
	Engine   string    `yaml:"engine"`
	Base     string    `yaml:"base"`
	Settings yaml.Node `yaml:"settings"`
	DSN      string    `yaml:"dsn"`
	DSNEnv   string    `yaml:"dsn_env"`
	DBPID    int       `yaml:"db_pid"`
	DataDir  string    `yaml:"data_dir"`
}

// runSpec is a loaded and validated run spec.
type runSpec struct {
	Path     string
	Workload string // empty when the spec does not name one
	Scale    string // empty when the spec does not name one
	Repeat   string // repeat: as written; empty when the spec does not name one
	Params   []specParam
	Configs  []specEntry
	// Copy is the spec with every DSN and password replaced, for the results directory.
	Copy []byte
}

// specParam is one workload parameter of a run spec: a flag of `run` and its value.
type specParam struct {
	Flag, Value string
	Line        int
}

// specEntry is one resolved engine configuration of a run spec (its base applied).
type specEntry struct {
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

// where is the entry's place in its spec, "FILE:LINE", for error messages.
func (e specEntry) where(path string) string { return fmt.Sprintf("%s:%d", path, e.Line) }

// validName matches configuration names: letters, digits, '-', '_' and '.', not starting
// with '-', '_' or '.', so that a name is a safe directory name.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// loadSpec reads and validates the run spec at path: keys, names, bases, settings and
// engines (known to reg). It returns warnings to print (a DSN with a password written in the
// file). Every error is one line that names the file, and the line where it can.
func loadSpec(path string, reg *engine.Registry) (*runSpec, []string, error) {
	b, err := readSpec(path)
	if err != nil {
		return nil, nil, err
	}
	f, doc, err := decodeSpec(path, b)
	if err != nil {
		return nil, nil, err
	}
	s := &runSpec{Path: path, Workload: f.Workload, Scale: f.Scale, Repeat: f.Repeat}
	if s.Params, err = specParams(path, &f.Params); err != nil {
		return nil, nil, err
	}
	if len(f.Configs) == 0 {
		return nil, nil, fmt.Errorf("%s: no configs: a run spec lists at least one engine configuration", path)
	}
	lines := configLines(doc)
	var warnings []string
	raw := make([]specEntry, len(f.Configs))
	own := make([]map[string]string, len(f.Configs))
	for i, c := range f.Configs {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		var warning string
		if raw[i], own[i], warning, err = specConfigEntry(path, i, line, c, raw[:i], reg); err != nil {
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
	if s.Copy, err = redactedSpec(b, doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, warnings, nil
}

// decodeSpec decodes the run spec b read from path, refusing unknown keys and a second
// document, and returns it both as the spec and as its YAML node tree.
func decodeSpec(path string, b []byte) (*specFile, *yaml.Node, error) {
	var f specFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: the run spec is empty", path)
		}
		return nil, nil, specDecodeError(path, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: a run spec is one YAML document; this file has more", path)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, nil, specDecodeError(path, err)
	}
	return &f, &doc, nil
}

// specConfigEntry checks configuration i of the spec at path, c at line, against the ones
// before it (name unique), and returns it with its own settings (before its base's apply) and
// a warning when its DSN holds a password.
func specConfigEntry(path string, i, line int, c specConfig, before []specEntry, reg *engine.Registry) (specEntry, map[string]string, string, error) {
	e := specEntry{Name: c.Name, Engine: c.Engine, DBPID: c.DBPID, DataDir: c.DataDir, Line: line}
	at := e.where(path)
	switch {
	case c.Name == "":
		return e, nil, "", fmt.Errorf("%s: configuration %d has no name", at, i+1)
	case !validName.MatchString(c.Name):
		return e, nil, "", fmt.Errorf("%s: configuration name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit", at, c.Name)
	}
	if j := slices.IndexFunc(before, func(o specEntry) bool { return o.Name == c.Name }); j >= 0 {
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
	own, err := specSettings(path, c.Name, &c.Settings)
	if err != nil {
		return e, nil, "", err
	}
	var warning string
	switch {
	case c.DSN != "" && c.DSNEnv != "":
		return e, nil, "", fmt.Errorf("%s: configuration %s has both dsn and dsn_env; give one", at, c.Name)
	case c.DSN != "":
		e.DSN, e.DSNFrom = c.DSN, "dsn: in "+path
		if hasPassword(c.DSN) {
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
	configs []specConfig
	entries []specEntry
	own     []map[string]string // each configuration's own settings
	state   []int
}

// resolve sets the engine and settings of entry i, resolving its base first.
func (r *baseResolver) resolve(i int) error {
	switch r.state[i] {
	case baseResolved:
		return nil
	case baseResolving:
		return fmt.Errorf("%s: configuration %s: its base chain is a cycle", r.entries[i].where(r.path), r.entries[i].Name)
	}
	r.state[i] = baseResolving
	c := r.configs[i]
	settings := map[string]string{}
	if c.Base != "" {
		j := slices.IndexFunc(r.entries, func(o specEntry) bool { return o.Name == c.Base })
		if j < 0 {
			return fmt.Errorf("%s: configuration %s: base %q does not exist (configurations: %s)",
				r.entries[i].where(r.path), c.Name, c.Base, strings.Join(entryNames(r.entries), ", "))
		}
		if j == i {
			return fmt.Errorf("%s: configuration %s is its own base", r.entries[i].where(r.path), c.Name)
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

// maxSpecBytes bounds a run spec's size: a spec is a few lines, and a device such as
// /dev/zero must not be read until memory runs out.
const maxSpecBytes = 1 << 20

// readSpec reads the run spec at path, which must be a regular file of at most maxSpecBytes.
// Anything else (a device, a directory, a named pipe) is refused without reading it.
func readSpec(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			pe.Op = "open" // what the user asked for, not how it was looked at
		}
		return nil, fmt.Errorf("run spec: %w", err)
	}
	if err := regularSpec(path, st); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path have become a named pipe since, opening it does not wait.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("run spec: %w", err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("run spec: %w", err)
	}
	if err := regularSpec(path, st); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("run spec: read %s: %w", path, err)
	}
	if len(b) > maxSpecBytes {
		return nil, fmt.Errorf("%s: the run spec is larger than 1 MiB", path)
	}
	return b, nil
}

// regularSpec refuses a run spec that is not a regular file or is too large.
func regularSpec(path string, st os.FileInfo) error {
	m := st.Mode()
	kind := ""
	switch {
	case m.IsRegular():
		if st.Size() > maxSpecBytes {
			return fmt.Errorf("%s: the run spec is larger than 1 MiB (%d bytes)", path, st.Size())
		}
		return nil
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	case m&os.ModeDevice != 0:
		kind = "a device"
	default:
		kind = "mode " + m.String()
	}
	return fmt.Errorf("run spec %s: not a regular file (%s); give a YAML file", path, kind)
}

// entryNames returns the names of es.
func entryNames(es []specEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

// configLines returns the line of each item of the top-level configs list of doc.
func configLines(doc *yaml.Node) []int {
	seq := mapValue(doc, "configs")
	if seq != nil && seq.Kind == yaml.AliasNode {
		seq = seq.Alias
	}
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	lines := make([]int, len(seq.Content))
	for i, item := range seq.Content {
		if item.Kind == yaml.AliasNode {
			item = item.Alias
		}
		lines[i] = item.Line
		if n := mapValue(item, "name"); n != nil {
			lines[i] = n.Line
		}
	}
	return lines
}

// mapValue returns the value of key in the mapping n (or in the document n's mapping).
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mappingPairs returns the key and value nodes of the mapping n, refusing merge keys and
// duplicate keys (which yaml.v3 does not check in a node). what names n in errors.
func mappingPairs(path, what string, n *yaml.Node) ([][2]*yaml.Node, error) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil // absent or empty
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: %s must be a map of NAME: VALUE", path, n.Line, what)
	}
	var out [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			return nil, fmt.Errorf("%s:%d: %s: merge keys (<<) are not supported; use base: to start from another configuration", path, k.Line, what)
		}
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return nil, fmt.Errorf("%s:%d: %s: a key must be a non-empty name", path, k.Line, what)
		}
		if first, dup := seen[k.Value]; dup {
			return nil, fmt.Errorf("%s:%d: %s: %s is given twice (first at line %d)", path, k.Line, what, k.Value, first)
		}
		seen[k.Value] = k.Line
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

// specSettings returns the settings map n of configuration name: scalar values in their
// literal form; nested maps and lists, and missing values, are errors.
func specSettings(path, name string, n *yaml.Node) (map[string]string, error) {
	what := "configuration " + name + ": settings"
	pairs, err := mappingPairs(path, what, n)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v := p[0], p[1]
		switch {
		case v.Kind != yaml.ScalarNode:
			return nil, fmt.Errorf("%s:%d: %s: %s is a nested %s; a setting's value is a scalar (number, string, true/false)",
				path, v.Line, what, k.Value, kindName(v.Kind))
		case v.Tag == "!!null":
			return nil, fmt.Errorf("%s:%d: %s: %s has no value", path, k.Line, what, k.Value)
		}
		m[k.Value] = v.Value
	}
	return m, nil
}

// specParams returns the params map n: flag names of `run` with scalar values (a list of
// scalars is joined with commas, as for --steps). Whether each names a flag is checked by run.
func specParams(path string, n *yaml.Node) ([]specParam, error) {
	pairs, err := mappingPairs(path, "params", n)
	if err != nil {
		return nil, err
	}
	var out []specParam
	for _, p := range pairs {
		k, v := p[0], p[1]
		var val string
		switch v.Kind {
		case yaml.ScalarNode:
			if v.Tag == "!!null" {
				return nil, fmt.Errorf("%s:%d: params: %s has no value", path, k.Line, k.Value)
			}
			val = v.Value
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%s:%d: params: %s: a list holds scalars only", path, it.Line, k.Value)
				}
				items = append(items, it.Value)
			}
			val = strings.Join(items, ",")
		default:
			return nil, fmt.Errorf("%s:%d: params: %s is a nested %s; give a scalar value", path, v.Line, k.Value, kindName(v.Kind))
		}
		out = append(out, specParam{Flag: k.Value, Value: val, Line: k.Line})
	}
	return out, nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// yaml.v3 reports each error of a document as "line N: message"; unknown keys (KnownFields)
// as "field KEY not found in type T".
var (
	yamlLineRE    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknownRE = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)
)

// specDecodeError rewrites a yaml.v3 error as one line, "FILE:LINE: message; ...", with
// unknown keys named as such and the accepted keys listed.
func specDecodeError(path string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		at := path
		if sub := yamlLineRE.FindStringSubmatch(m); sub != nil {
			at, m = path+":"+sub[1], sub[2]
		}
		if sub := yamlUnknownRE.FindStringSubmatch(m); sub != nil {
			m = fmt.Sprintf("unknown key %q in %s (accepted: %s)", sub[1], specTypeName(sub[2]), strings.Join(specKeys(sub[2]), ", "))
		}
		out = append(out, at+": "+strings.ReplaceAll(m, "\n", " "))
	}
	return errors.New(strings.Join(out, "; "))
}

// specType returns the run spec type called goType (as yaml.v3 names it) and what to call
// it in messages.
func specType(goType string) (reflect.Type, string) {
	for _, t := range []struct {
		typ  reflect.Type
		what string
	}{
		{reflect.TypeOf(specFile{}), "the run spec"},
		{reflect.TypeOf(specConfig{}), "a configuration"},
	} {
		if t.typ.String() == goType {
			return t.typ, t.what
		}
	}
	return nil, goType
}

func specTypeName(goType string) string {
	_, what := specType(goType)
	return what
}

// specKeys lists the YAML keys of the spec type called goType.
func specKeys(goType string) []string {
	t, _ := specType(goType)
	if t == nil {
		return nil
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// redactedSpec returns the spec's text for the results directory: as written, or, when a
// configuration has a dsn, re-encoded with every dsn replaced; and any password removed, also
// from comments (redact.YAML), with each dsn's password wherever the file repeats it.
func redactedSpec(raw []byte, doc *yaml.Node) ([]byte, error) {
	seq := mapValue(doc, "configs")
	found := false
	var secrets []string // the dsns' passwords, wherever else the file repeats them
	if seq != nil {
		for _, item := range seq.Content {
			if v := mapValue(item, "dsn"); v != nil && v.Value != "" {
				secrets = append(secrets, redact.Secrets(v.Value)...)
				v.Value, v.Style, v.Tag, found = redact.Marker, 0, "!!str", true
			}
		}
	}
	if !found {
		return []byte(redact.YAML(string(raw))), nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode the run spec's copy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode the run spec's copy: %w", err)
	}
	return []byte(redact.YAML(buf.String(), secrets...)), nil
}

// specCopy returns the run spec's copy for the results directory with secrets (the DSNs the
// run learnt from the environment, their passwords) removed too.
func specCopy(sp *runSpec, secrets []string) []byte {
	return []byte(redact.YAML(string(sp.Copy), secrets...))
}

// Redaction: DSNs and passwords never reach output, logs or result files.

// hasPassword reports whether s holds a password that redactText removes.
func hasPassword(s string) bool { return redact.Text(s) != s }

// redactDSNFlag returns the value of a --dsn flag as it may be shown: CONFIG=<redacted> or
// <redacted>. Only a prefix that is a valid configuration name is kept.
func redactDSNFlag(v string) string {
	if name, _, ok := strings.Cut(v, "="); ok && validName.MatchString(name) {
		return name + "=" + redact.Marker
	}
	return redact.Marker
}

// redactArgs returns the command line args with the value of every --dsn (--dsn DSN,
// --dsn=DSN, CONFIG=DSN) replaced and any other password removed, for run.json and output.
func redactArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, rest := range args[i:] {
				out = append(out, redact.Text(rest))
			}
			return out
		case a == "--dsn" && i+1 < len(args):
			out = append(out, a, redactDSNFlag(args[i+1]))
			i++
		case strings.HasPrefix(a, "--dsn="):
			out = append(out, "--dsn="+redactDSNFlag(strings.TrimPrefix(a, "--dsn=")))
		default:
			out = append(out, redact.Text(a))
		}
	}
	return out
}

// redactingWriter writes through to w with passwords and secrets removed from each write.
type redactingWriter struct {
	w       io.Writer
	secrets []string
}

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redact.Text(string(p), r.secrets...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redactError returns err with its message redacted, keeping its exit status.
func redactError(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := redact.Text(msg, secrets...)
	if clean == msg {
		return err
	}
	var ee exitError
	if errors.As(err, &ee) {
		return exitError{ee.code, redact.Text(ee.msg, secrets...)}
	}
	var ue usageError
	if errors.As(err, &ue) {
		return usageError{errors.New(clean)}
	}
	return errors.New(clean)
}
