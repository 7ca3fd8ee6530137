package runspec

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

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

// readSettings returns the settings map n of configuration name: scalar values in their
// literal form; nested maps and lists, and missing values, are errors.
func readSettings(path, name string, n *yaml.Node) (map[string]string, error) {
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

// readParams returns the params map n: flag names of `run` with scalar values (a list of
// scalars is joined with commas, as for --steps). Whether each names a flag is checked by run.
func readParams(path string, n *yaml.Node) ([]Param, error) {
	pairs, err := mappingPairs(path, "params", n)
	if err != nil {
		return nil, err
	}
	var out []Param
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
		out = append(out, Param{Flag: k.Value, Value: val, Line: k.Line})
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

// decodeError rewrites a yaml.v3 error as one line, "FILE:LINE: message; ...", with unknown
// keys named as such and the accepted keys listed.
func decodeError(path string, err error) error {
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
			m = fmt.Sprintf("unknown key %q in %s (accepted: %s)", sub[1], typeName(sub[2]), strings.Join(keys(sub[2]), ", "))
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
		{reflect.TypeOf(file{}), "the run spec"},
		{reflect.TypeOf(fileConfig{}), "a configuration"},
	} {
		if t.typ.String() == goType {
			return t.typ, t.what
		}
	}
	return nil, goType
}

func typeName(goType string) string {
	_, what := specType(goType)
	return what
}

// keys lists the YAML keys of the spec type called goType.
func keys(goType string) []string {
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
