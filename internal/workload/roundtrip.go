package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// The round trip to a server, measured before a configuration's first step (issue 36): a
// cloud client is often the limit, and the time of a trivial statement says how far away the
// server is.
const (
	// roundTripWarm are the untimed round trips first (the connection's first statements).
	roundTripWarm = 3
	// roundTripSamples are the timed ones.
	roundTripSamples = 100
	// roundTripTimeout bounds the whole measurement.
	roundTripTimeout = 30 * time.Second
)

// serverLink returns where eng's DBMS runs and how the client reaches it, with the round
// trip's time on clock; nil for an embedded engine. A round trip that fails is recorded as
// the link's error: the run goes on.
func serverLink(ctx context.Context, eng engine.Engine, clock runner.Clock) *result.ServerLink {
	s, ok := eng.(engine.Server)
	if !ok {
		return nil
	}
	l := &result.ServerLink{DBMSHost: result.DBMSThisHost}
	if s.ServerPID() == 0 {
		l.DBMSHost = result.DBMSUnknown
	}
	p, ok := eng.(engine.Pinger)
	if !ok {
		return l
	}
	ctx, cancel := context.WithTimeout(ctx, roundTripTimeout)
	defer cancel()
	link, ping, done, err := p.Pinger(ctx)
	if err != nil {
		l.Error = err.Error()
		return l
	}
	l.Address, l.TLS = link.Address, link.TLS
	rt, err := timeRoundTrips(ctx, clock, ping, roundTripWarm, roundTripSamples)
	if err = errors.Join(err, done()); err != nil {
		l.Error = fmt.Sprintf("round trip: %v", err)
		return l
	}
	rt.Statement = link.Ping
	l.RoundTrip = rt
	return l
}

// timeRoundTrips runs ping warm times untimed, then n times timed on clock, one after the
// other.
func timeRoundTrips(ctx context.Context, clock runner.Clock, ping func(context.Context) error, warm, n int) (*result.RoundTrip, error) {
	for range warm {
		if err := ping(ctx); err != nil {
			return nil, err
		}
	}
	us := make([]float64, n)
	for i := range us {
		start := clock.Now()
		if err := ping(ctx); err != nil {
			return nil, err
		}
		us[i] = float64(clock.Now().Sub(start).Nanoseconds()) / 1e3
	}
	slices.Sort(us)
	rank := func(p float64) float64 { return us[min(n-1, int(math.Ceil(p*float64(n)))-1)] }
	return &result.RoundTrip{Samples: n, MinUs: us[0], P50Us: rank(0.5), P99Us: rank(0.99), MaxUs: us[n-1]}, nil
}
