package runner

import (
	"os"
	"runtime"
)

// spareProcs are the processors a step whose workers wait in system calls gets beyond one per
// worker: for the runner's own goroutines and the runtime's, so that one stays idle while every
// worker waits.
const spareProcs = 2

// procsForWaits gives Go's scheduler a processor (a P, runtime.GOMAXPROCS) per worker and
// spareProcs more, when a step of requests has at least as many foreground workers (request
// loops, each nearly always waiting) as it has processors, and returns what puts back the
// default. A worker waiting for its server's reply in a blocking read holds a P in the system
// call; when every P is held so, the runtime's monitor (sysmon) takes a P back from a thread
// that has waited 20 us and hands it on, waking every 20 us while it does, and on a machine
// whose CPUs the client shares with the server each such wake-up preempts a server thread.
// With a P idle, the monitor leaves a waiting thread its P (runtime.retake) and sleeps longer,
// and the worker's thread returns to its own P when the reply comes: each worker waits as one
// of the kernel's threads does, as the references' clients' threads do. Fewer foreground
// workers leave a P idle anyway, and workers that compute between their waits (a load's)
// would run on more threads than CPUs, and the garbage collector on the idle Ps: the client
// costs more (docs/performance.md has the figures). GOMAXPROCS set in the environment is the
// user's choice and stands.
func procsForWaits(workers []Worker) (restore func()) {
	foreground := 0
	for _, w := range workers {
		if !w.Background {
			foreground++
		}
	}
	procs, want := runtime.GOMAXPROCS(0), len(workers)+spareProcs
	if os.Getenv("GOMAXPROCS") != "" || foreground < procs || procs >= want {
		return func() {}
	}
	runtime.GOMAXPROCS(want)
	return runtime.SetDefaultGOMAXPROCS
}
