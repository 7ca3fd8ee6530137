package runspec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"gopkg.in/yaml.v3"
)

// MaxBytes bounds a run spec's size: a spec is a few lines, and a device such as /dev/zero
// must not be read until memory runs out.
const MaxBytes = 1 << 20

// readFile reads the run spec at path, which must be a regular file of at most MaxBytes.
// Anything else (a device, a directory, a named pipe) is refused without reading it.
func readFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			pe.Op = "open" // what the user asked for, not how it was looked at
		}
		return nil, fmt.Errorf("run spec: %w", err)
	}
	if err := regularFile(path, st); err != nil {
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
	if err := regularFile(path, st); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("run spec: read %s: %w", path, err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%s: the run spec is larger than 1 MiB", path)
	}
	return b, nil
}

// regularFile refuses a run spec that is not a regular file or is too large.
func regularFile(path string, st os.FileInfo) error {
	m := st.Mode()
	kind := ""
	switch {
	case m.IsRegular():
		if st.Size() > MaxBytes {
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

// decode decodes the run spec b read from path, refusing unknown keys and a second document,
// and returns it both as the spec and as its YAML node tree.
func decode(path string, b []byte) (*file, *yaml.Node, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: the run spec is empty", path)
		}
		return nil, nil, decodeError(path, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: a run spec is one YAML document; this file has more", path)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, nil, decodeError(path, err)
	}
	return &f, &doc, nil
}
