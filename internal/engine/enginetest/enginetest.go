// Package enginetest opens engines for tests through the registry, as a run opens them.
package enginetest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// Open opens an engine of driver d through a registry, as a run opens it: as the configuration
// name (d's name when empty) with settings on the data directory dir; a managed server logs to
// t. The engine is closed (and its server stopped) when the test ends; an error fails the test,
// but for kv.ErrClosed: a key-value engine that the test closed itself is not closed again.
func Open(t testing.TB, ctx context.Context, d engine.Driver, name string, settings map[string]string, dir string) engine.Engine {
	t.Helper()
	if name == "" {
		name = d.Name
	}
	reg, err := engine.NewRegistry(d)
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Name: name, Engine: d.Name, Settings: settings, DataDir: dir}
	if d.Server {
		cfg.Log = servertest.Logger(t)
	}
	eng, err := reg.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := eng.Close(); err != nil && !errors.Is(err, kv.ErrClosed) {
			t.Errorf("close %s: %v", name, err)
		}
	})
	return eng
}

// CheckErr fails t unless err is what a test case wants: nil when want is "", otherwise an
// error whose message contains want. what names the call in the message.
func CheckErr(t testing.TB, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", what, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s = %v, want an error with %q", what, err, want)
	}
}

// FakeServer returns a driver of a server engine called name that checks configurations like a
// server engine's (a DSN, any server variable but "bad", which it refuses) and opens nothing:
// for tests that check flags, run specs and configurations, never an engine.
func FakeServer(name string) engine.Driver {
	return engine.Driver{Name: name, Family: engine.FamilySQL, Server: true,
		CheckSettings: func(o map[string]string) error {
			if v, ok := o["bad"]; ok {
				return errors.New(name + ": setting bad: " + strconv.Quote(v) + " is refused")
			}
			return nil
		},
		Open: func(context.Context, engine.Config) (engine.Engine, error) {
			return nil, errors.New("a fake server engine opens nothing")
		}}
}
