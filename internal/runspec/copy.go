package runspec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/enginebench/enginebench/internal/redact"
)

// Copy returns the run spec's text for the results directory: with every dsn replaced and any
// password removed, also from comments, and secrets (the DSNs the run learnt from the
// environment, their passwords) removed too.
func (s *Spec) Copy(secrets []string) []byte {
	return []byte(redact.YAML(string(s.redacted), secrets...))
}

// SHA256 returns the SHA-256, in hex, of the spec's text with every dsn and password removed
// (without the run's secrets): the same for every run of the same spec (docs/results.md).
func (s *Spec) SHA256() string {
	sum := sha256.Sum256(s.redacted)
	return hex.EncodeToString(sum[:])
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
