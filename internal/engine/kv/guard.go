package kv

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrClosed is wrapped by the errors of operations on a closed engine.
var ErrClosed = errors.New("engine is closed")

// Guard keeps an engine bound to a C library from closing under a running operation or an
// open iterator (the library must not free what is in use). Operations run between Enter and
// Leave; iterators count themselves with IterOpened and IterClosed.
type Guard struct {
	// Name prefixes the errors: the engine's name.
	Name   string
	mu     sync.RWMutex
	closed bool
	iters  atomic.Int64
}

// Enter takes the engine for operation op, or fails when it is closed.
func (g *Guard) Enter(op string) error {
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return fmt.Errorf("%s: %s: %w", g.Name, op, ErrClosed)
	}
	return nil
}

// Leave gives the engine back after Enter.
func (g *Guard) Leave() { g.mu.RUnlock() }

// IterOpened and IterClosed count the open iterators.
func (g *Guard) IterOpened() { g.iters.Add(1) }

// IterClosed counts an iterator closed.
func (g *Guard) IterClosed() { g.iters.Add(-1) }

// Close runs release once no operation runs: it fails while iterators are open (nothing is
// released then), and a second time.
func (g *Guard) Close(what string, release func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return fmt.Errorf("%s: close %s: %w", g.Name, what, ErrClosed)
	}
	if n := g.iters.Load(); n > 0 {
		return fmt.Errorf("%s: close %s: %d iterators are still open", g.Name, what, n)
	}
	g.closed = true
	return release()
}
