package runner

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// phaser is HdrHistogram's WriterReaderPhaser: it lets a reader wait until every writer that
// might still use a buffer it has just swapped out has left it, while writers take no lock.
//
// A writer brackets each use of the active buffer with e := enter() ... exit(e). The reader
// first swaps the active buffer (an atomic pointer), then calls flip, which returns once every
// writer that entered before the flip has exited: those are the only ones that can hold the
// old buffer, since writers that enter later load the pointer after the swap. Writers of
// alternate phases count their exits on separate counters (even phases start the entry count
// at 0, odd ones at math.MinInt64), so a writer that keeps entering never delays a flip.
// flip must be called by one reader at a time. The zero value is ready to use (flip sets the
// exit counter of each new phase before that phase begins).
type phaser struct {
	start   atomic.Int64
	evenEnd atomic.Int64
	oddEnd  atomic.Int64
}

// enter marks the start of a writer's critical section; pass its result to exit.
func (p *phaser) enter() int64 { return p.start.Add(1) - 1 }

// exit marks the end of the critical section entered with e.
func (p *phaser) exit(e int64) {
	if e < 0 {
		p.oddEnd.Add(1)
	} else {
		p.evenEnd.Add(1)
	}
}

// flip starts a new phase and waits until every writer of the previous phase has exited.
func (p *phaser) flip() {
	nextEven := p.start.Load() < 0
	initial := int64(0)
	if nextEven {
		p.evenEnd.Store(0)
	} else {
		initial = math.MinInt64
		p.oddEnd.Store(initial)
	}
	atFlip := p.start.Swap(initial)
	for spins := 0; ; spins++ {
		var end int64
		if nextEven {
			end = p.oddEnd.Load()
		} else {
			end = p.evenEnd.Load()
		}
		if end == atFlip {
			return
		}
		// A writer's critical section is a few histogram updates; it can only be long when
		// its goroutine was preempted inside it.
		if spins < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(10 * time.Microsecond)
		}
	}
}
