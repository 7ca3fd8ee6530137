package kv

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine"
)

// NewDriver returns the driver of the key-value engine called name: its settings are validated
// by parse without opening anything, and available (nil: always available) says whether it can
// run on this machine.
func NewDriver[C any](name, description string, settings []engine.Setting, available func() error,
	parse func(overrides map[string]string) (C, error),
	open func(ctx context.Context, cfg engine.Config) (engine.Engine, error)) engine.Driver {
	return engine.Driver{
		Name:        name,
		Family:      engine.FamilyKV,
		Description: description,
		Settings:    settings,
		Available:   available,
		CheckSettings: func(overrides map[string]string) error {
			_, err := parse(overrides)
			return err
		},
		Open: open,
	}
}

// OpenConfig parses the settings of cfg with parse and checks what every engine checks before it
// opens its files: a data directory is given and ctx is not done; it then creates the directory.
// name (the engine's) prefixes its errors.
func OpenConfig[C any](ctx context.Context, name string, cfg engine.Config,
	parse func(overrides map[string]string) (C, error)) (C, error) {
	c, err := parse(cfg.Settings)
	if err != nil {
		return c, err
	}
	if cfg.DataDir == "" {
		return c, fmt.Errorf("%s: open: %w", name, errNoDataDir)
	}
	if err := ctx.Err(); err != nil {
		return c, fmt.Errorf("%s: open %s: %w", name, cfg.DataDir, err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return c, fmt.Errorf("%s: open: %w", name, err)
	}
	return c, nil
}

// NotBuilt returns the Available and Open of an engine behind build tag tag in a binary built
// without it: both fail with engine.NotBuilt, which names devPackage to install.
func NotBuilt(tag, devPackage string) (available func() error,
	open func(context.Context, engine.Config) (engine.Engine, error)) {
	err := engine.NotBuilt(devPackage, tag)
	return func() error { return err },
		func(context.Context, engine.Config) (engine.Engine, error) {
			return nil, fmt.Errorf("%s: %w", tag, err)
		}
}

// errNoDataDir is the error of an engine opened without a data directory.
var errNoDataDir = errors.New("no data directory")

// Base answers the engine.Engine methods that report what an open key-value engine was opened
// with (Family, Version, Settings), and keeps whether it is closed for the engines that check
// it with an atomic flag (CheckOpen, MarkClosed) rather than a Guard. An engine embeds it.
type Base struct {
	name     string
	version  string
	settings map[string]string
	closed   atomic.Bool
}

// NewBase returns the Base of the engine called name (the prefix of its errors), of version
// version, opened with the effective settings settings.
func NewBase(name, version string, settings map[string]string) Base {
	return Base{name: name, version: version, settings: settings}
}

// Family returns engine.FamilyKV.
func (b *Base) Family() engine.Family { return engine.FamilyKV }

// Version returns the engine's version.
func (b *Base) Version() string { return b.version }

// Settings returns a copy of every effective setting.
func (b *Base) Settings() map[string]string { return maps.Clone(b.settings) }

// CheckOpen fails operation op when the engine is closed.
func (b *Base) CheckOpen(op string) error {
	if b.closed.Load() {
		return fmt.Errorf("%s: %s: %w", b.name, op, ErrClosed)
	}
	return nil
}

// MarkClosed marks the engine closed, or fails when it already was (a second Close of what).
func (b *Base) MarkClosed(what string) error {
	if !b.closed.CompareAndSwap(false, true) {
		return fmt.Errorf("%s: close %s: %w", b.name, what, ErrClosed)
	}
	return nil
}

// CPtr returns a pointer to b's first byte to pass to C, or nil for an empty b (the bindings
// to C libraries convert it to their char pointer).
func CPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// CBytes returns the n bytes of C memory at p as a slice, without copying: valid as long as the
// library keeps them. It is empty, not nil, for n == 0.
func CBytes(p unsafe.Pointer, n int) []byte {
	if n == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(p), n)
}
