package runner

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestProcsForWaits: a runner whose workers wait in system calls gives a step of requests with
// at least as many foreground workers as processors a processor per worker and two more while
// it runs, and the default back after it; fewer foreground workers (the rest background),
// workers that do not wait, a step that is not of requests (a load) and GOMAXPROCS set in the
// environment leave the processors alone.
func TestProcsForWaits(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" { // this test process's own: start from the runtime's default
		orig := runtime.GOMAXPROCS(0)
		runtime.SetDefaultGOMAXPROCS()
		t.Cleanup(func() { runtime.GOMAXPROCS(orig) })
	}
	def := runtime.GOMAXPROCS(0)
	tests := []struct {
		name                   string
		foreground, background int
		wait, load             bool
		env                    string
		want                   int
	}{
		{name: "as many waiting workers as processors", foreground: def, wait: true, want: def + spareProcs},
		{name: "more, some in the background", foreground: def, background: 3, wait: true, want: def + 3 + spareProcs},
		{name: "fewer in the foreground", foreground: def - 1, background: 3, wait: true, want: def},
		{name: "workers that do not wait", foreground: def + 3},
		{name: "a step that is not of requests", foreground: def + 3, wait: true, load: true},
		{name: "GOMAXPROCS in the environment", foreground: def + 3, wait: true, env: strconv.Itoa(def)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tt.env)
			if tt.want == 0 {
				tt.want = def
			}
			n := tt.foreground + tt.background
			seen := make(chan int, n)
			ws := make([]Worker, n)
			for i := range ws {
				ws[i] = Worker{Client: i, Background: i >= tt.foreground, Run: func(ctx context.Context, rec *Recorder) error {
					seen <- runtime.GOMAXPROCS(0)
					if i >= tt.foreground {
						<-ctx.Done() // a background worker runs until the foreground ones are done
					}
					return nil
				}}
			}
			r := &Runner{Clock: NewManualClock(t0), WorkersWait: tt.wait}
			if res := r.Run(context.Background(), Step{Name: "s", Ops: []OpSpec{{Name: "op"}}, Workers: ws, Requests: !tt.load}); res.Error != "" {
				t.Fatal(res.Error)
			}
			close(seen)
			for got := range seen {
				if got != tt.want {
					t.Fatalf("a worker saw %d processors, want %d", got, tt.want)
				}
			}
			if got := runtime.GOMAXPROCS(0); got != def {
				t.Errorf("%d processors after the step, want the default %d back", got, def)
			}
		})
	}
}
