//go:build !wiredtiger || !cgo

package wiredtiger

import (
	"context"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// TestNotBuilt checks that a binary without the wiredtiger tag lists the engine as not built, with
// the command that builds it, and refuses to open it.
func TestNotBuilt(t *testing.T) {
	d := Driver()
	if err := d.Available(); err == nil || !strings.Contains(err.Error(), "-tags wiredtiger") {
		t.Errorf("Available: %v", err)
	}
	if _, err := d.Open(context.Background(), engine.Config{DataDir: t.TempDir()}); err == nil {
		t.Error("opened an engine that is not built in")
	}
}
