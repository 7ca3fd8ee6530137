package doc

import (
	"context"

	"github.com/enginebench/enginebench/internal/engine"
)

var _ engine.Pinger = (*docEngine)(nil)

// Pinger implements engine.Pinger: the driver's ping command, which the pool sends on one of
// its idle connections. The driver does not tell a connection's cipher: Link.TLS says only
// whether the URI asks for TLS.
func (e *docEngine) Pinger(context.Context) (engine.Link, func(context.Context) error, func() error, error) {
	ping := func(ctx context.Context) error { return e.conn.client.Ping(ctx, nil) }
	return e.conn.link, ping, func() error { return nil }, nil
}
