package kv

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// TestNewDriver checks the driver shape every KV engine shares: the family, and CheckSettings
// validating through parse without opening anything.
func TestNewDriver(t *testing.T) {
	errBad := errors.New("bad value")
	parse := func(m map[string]string) (int, error) {
		if m["x"] == "bad" {
			return 0, errBad
		}
		return 1, nil
	}
	opened := false
	open := func(context.Context, engine.Config) (engine.Engine, error) {
		opened = true
		return nil, errors.New("not opened in this test")
	}
	d := NewDriver("e", "an engine", []engine.Setting{{Name: "x"}}, nil, parse, open)
	if d.Name != "e" || d.Family != engine.FamilyKV || d.Description != "an engine" || len(d.Settings) != 1 || d.Available != nil {
		t.Errorf("driver %+v", d)
	}
	if err := d.CheckSettings(map[string]string{"x": "bad"}); !errors.Is(err, errBad) {
		t.Errorf("CheckSettings of a bad value: %v", err)
	}
	if err := d.CheckSettings(map[string]string{"x": "good"}); err != nil {
		t.Errorf("CheckSettings of a good value: %v", err)
	}
	if opened {
		t.Error("CheckSettings opened the engine")
	}
}

// TestBase checks what Base answers for an open engine, and its closed flag.
func TestBase(t *testing.T) {
	b := NewBase("e", "1.2.3", map[string]string{"sync": "true"})
	if b.Family() != engine.FamilyKV || b.Version() != "1.2.3" {
		t.Errorf("family %q version %q", b.Family(), b.Version())
	}
	b.Settings()["sync"] = "changed"
	if s := b.Settings(); s["sync"] != "true" || len(s) != 1 {
		t.Errorf("settings %v after a caller changed its copy", s)
	}
	if err := b.CheckOpen("get"); err != nil {
		t.Errorf("CheckOpen of an open engine: %v", err)
	}
	if err := b.MarkClosed("/d"); err != nil {
		t.Fatalf("first close: %v", err)
	}
	if err := b.CheckOpen("get"); !errors.Is(err, ErrClosed) || err.Error() != "e: get: engine is closed" {
		t.Errorf("CheckOpen of a closed engine: %v", err)
	}
	if err := b.MarkClosed("/d"); !errors.Is(err, ErrClosed) || err.Error() != "e: close /d: engine is closed" {
		t.Errorf("second close: %v", err)
	}
}

// TestCBytes checks the byte helpers of the C bindings.
func TestCBytes(t *testing.T) {
	if CPtr(nil) != nil || CPtr([]byte{}) != nil {
		t.Error("CPtr of an empty slice is not nil")
	}
	if b := CBytes(nil, 0); b == nil || len(b) != 0 {
		t.Errorf("CBytes of 0 bytes: %#v, want an empty, non-nil slice", b)
	}
	src := []byte("key")
	if b := CBytes(CPtr(src), len(src)); string(b) != "key" || &b[0] != &src[0] {
		t.Errorf("CBytes(CPtr(%q)) = %q, not a view of the same bytes", src, b)
	}
}

// TestOpenConfig checks the checks before an engine opens its files: the settings' error first,
// then a missing data directory, then a done context; otherwise the directory is created.
func TestOpenConfig(t *testing.T) {
	errBad := errors.New("bad value")
	parse := func(m map[string]string) (int, error) {
		if m["x"] == "bad" {
			return 0, errBad
		}
		return 7, nil
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	dir := filepath.Join(t.TempDir(), "a", "b")
	for _, c := range []struct {
		name string
		ctx  context.Context
		cfg  engine.Config
		want string
	}{
		{"bad setting", canceled, engine.Config{Settings: map[string]string{"x": "bad"}}, "bad value"},
		{"no directory", canceled, engine.Config{}, "e: open: no data directory"},
		{"done context", canceled, engine.Config{DataDir: dir}, "e: open " + dir + ": context canceled"},
	} {
		if _, err := OpenConfig(c.ctx, "e", c.cfg, parse); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed check created the directory: %v", err)
	}
	if got, err := OpenConfig(context.Background(), "e", engine.Config{DataDir: dir}, parse); err != nil || got != 7 {
		t.Fatalf("OpenConfig = %d, %v, want the parsed 7", got, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("the data directory was not created: %v", err)
	}
}
