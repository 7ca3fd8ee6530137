package rundir

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/runlock"
)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestOpenLocksAndCloseRemovesWhatARefusedRunCreated: Open creates the directories with their
// parents and locks them; a second Open is refused while they are held; Close of a run that
// never started removes what it created, and a started run keeps them (but the default data
// root, left empty).
func TestOpenLocksAndCloseRemovesWhatARefusedRunCreated(t *testing.T) {
	base := t.TempDir()
	o := Options{Results: filepath.Join(base, "a", "results", "r1"), DataRoot: filepath.Join(base, "data", "r1"),
		Run: runlock.Info{PID: os.Getpid(), RunID: "r1"}}
	d, err := Open(o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{o.Results, o.DataRoot} {
		if st, _, err := runlock.Probe(dir); err != nil || st != runlock.Held {
			t.Errorf("%s: lock %v, %v; want held", dir, st, err)
		}
	}
	_, err = Open(o, io.Discard)
	var input *badinput.Error
	if !errors.As(err, &input) || !strings.Contains(err.Error(), "is in use by another enginebench run, run r1") {
		t.Errorf("a second Open: %v, want an InputError naming the holder", err)
	}
	d.Close()
	for _, dir := range []string{filepath.Join(base, "a"), filepath.Join(base, "data")} {
		if exists(dir) {
			t.Errorf("%s outlived a run that never started", dir)
		}
	}

	o.DataDefault = true
	if d, err = Open(o, io.Discard); err != nil {
		t.Fatal(err)
	}
	d.Started()
	d.Close()
	if !exists(o.Results) || exists(filepath.Join(base, "data")) {
		t.Errorf("after a started run: results kept %v, the default data root kept %v", exists(o.Results), exists(filepath.Join(base, "data")))
	}
}

// TestOpenChecksTheDataRoot: a data root that holds anything is refused, as is a configuration
// directory its engine cannot use (an InputError), and nothing of the refused run stays.
func TestOpenChecksTheDataRoot(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if err := os.MkdirAll(filepath.Join(data, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Results: filepath.Join(base, "results"), DataRoot: data}
	if _, err := Open(o, io.Discard); err == nil || err.Error() != "data directory "+data+" is not empty" {
		t.Errorf("Open on a full data root: %v", err)
	}
	os.Remove(filepath.Join(data, "old"))
	refused := errors.New("the server's user cannot reach it")
	cfg := filepath.Join(data, "c1")
	o.Configs = []ConfigDir{{Path: cfg, Check: func(dir string) error {
		if !exists(dir) {
			t.Errorf("checked %s before it was created", dir)
		}
		return refused
	}}}
	_, err := Open(o, io.Discard)
	var input *badinput.Error
	if !errors.As(err, &input) || !errors.Is(err, refused) {
		t.Errorf("Open with a refused configuration directory: %v, want an InputError", err)
	}
	for _, dir := range []string{cfg, o.Results, filepath.Join(data, runlock.FileName)} {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s outlived the refused run: %v", dir, err)
		}
	}
	o.Need = 1 << 62
	o.Configs = nil
	if _, err := Open(o, io.Discard); err == nil || !strings.Contains(err.Error(), "this run needs about") {
		t.Errorf("Open without room: %v", err)
	}
}
