package kv

import (
	"errors"
	"strings"
	"testing"
)

func TestGuard(t *testing.T) {
	g := Guard{Name: "eng"}
	released := 0
	release := func() error { released++; return nil }
	if err := g.Enter("get"); err != nil {
		t.Fatal(err)
	}
	g.Leave()
	g.IterOpened()
	if err := g.Close("dir", release); err == nil || !strings.Contains(err.Error(), "1 iterators are still open") || released != 0 {
		t.Errorf("close under an iterator: %v, released %d times", err, released)
	}
	g.IterClosed()
	if err := g.Close("dir", release); err != nil || released != 1 {
		t.Fatalf("close: %v, released %d times", err, released)
	}
	if err := g.Enter("get"); !errors.Is(err, ErrClosed) || !strings.HasPrefix(err.Error(), "eng: get:") {
		t.Errorf("enter after close: %v", err)
	}
	if err := g.Close("dir", release); !errors.Is(err, ErrClosed) || released != 1 {
		t.Errorf("second close: %v, released %d times", err, released)
	}
}
