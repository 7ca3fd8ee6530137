package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net"
	"sync"
	"time"
)

// Conn is one client's connection and the context its statements run with.
//
// A statement run with a context that can be cancelled costs database/sql and the drivers a
// goroutine or a callback per statement (database/sql's Rows and Tx watchers,
// go-sql-driver/mysql's watcher, pgx's context.AfterFunc): docs/performance.md measures it.
// A Conn's statements run instead with a context that cannot be cancelled (Ctx), and when the
// context it was opened with ends, the Conn interrupts the connection itself: a deadline in the
// past on its network connection fails the statement in flight, and every later one, at once.
// The connection is then closed rather than given back to the pool. An engine without network
// connections (SQLite) keeps the cancellable context on its statements, for its driver to
// interrupt them.
type Conn struct {
	*sql.Conn
	parent context.Context // the context the Conn was opened with
	ctx    context.Context // the context of its statements
	stop   func() bool     // stops the watch of parent; nil when not watched
	cut    chan struct{}   // closed once the watch of parent has cut the connection
}

// Connect takes a connection from db's pool for one client; its statements end when ctx ends
// (see Conn).
func Connect(ctx context.Context, db DB) (*Conn, error) {
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		return nil, err
	}
	c := &Conn{Conn: conn, parent: ctx, ctx: ctx}
	tr, ok := db.(interface{ netConns() *netConns })
	if !ok || ctx.Done() == nil {
		return c, nil
	}
	nc := tr.netConns().of(conn)
	if nc == nil {
		return c, nil
	}
	c.ctx = context.WithoutCancel(ctx)
	c.cut = make(chan struct{})
	c.stop = context.AfterFunc(ctx, func() {
		_ = nc.SetDeadline(time.Unix(1, 0))
		close(c.cut)
		if nc.cancel != nil {
			cctx, stop := context.WithTimeout(context.Background(), cancelRequestWait)
			defer stop()
			_ = nc.cancel(cctx)
		}
	})
	return c, nil
}

// Ctx returns the context to run a statement with for a caller whose context is ctx: the
// Conn's own when ctx is the one the Conn was opened with, else ctx.
func (c *Conn) Ctx(ctx context.Context) context.Context {
	if ctx == c.parent {
		return c.ctx
	}
	return ctx
}

// Err returns err, or when the Conn's context has ended (and the Conn cuts its connection), an
// error that wraps the context's error and tells err.
func (c *Conn) Err(err error) error {
	if err == nil || c.stop == nil || c.parent.Err() == nil {
		return err
	}
	return fmt.Errorf("%w (%v)", c.parent.Err(), err)
}

// Close stops watching the Conn's context and gives the connection back to the pool, or closes
// it when it was interrupted.
func (c *Conn) Close() error {
	if c.stop != nil && !c.stop() {
		c.Discard()
		return nil
	}
	return c.Conn.Close()
}

// Discard closes the connection instead of giving it back to the pool, for a session whose
// state is not the pool's (autocommit off, statements prepared by name) or is unknown.
func (c *Conn) Discard() {
	if c.stop != nil {
		c.stop()
	}
	// driver.ErrBadConn from Raw makes database/sql close the connection.
	_ = c.Conn.Raw(func(any) error { return driver.ErrBadConn })
}

// cancelRequestWait bounds the cancel request an interrupt sends to the server.
const cancelRequestWait = 5 * time.Second

// netConns remembers the network connection under each driver connection of a pool, so that
// Connect can interrupt a client's connection with a deadline. Its lock is taken when a
// connection is opened, looked up or closed, never per statement.
type netConns struct {
	mu sync.Mutex
	m  map[driver.Conn]*clientConn
	// cancelRequest, when set, returns the function that asks the server to stop the
	// statement running on a driver connection (PostgreSQL's cancel request), so that an
	// interrupted statement does not go on running on the server; nil where there is none.
	cancelRequest func(driver.Conn) func(context.Context) error
}

// dialedKey is the context key under which netConns.Connect passes a dialed to the dial
// function.
type dialedKey struct{}

// dialed receives the network connection a driver's Connect dialed.
type dialed struct{ nc *clientConn }

// dialFunc is the signature of the drivers' dial hooks (mysql.Config.DialFunc,
// pgconn.Config.DialFunc).
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// wrapDial returns dial (a plain net.Dialer when nil) whose connections for the pool are
// clientConns that netConns tracks.
func (t *netConns) wrapDial(dial dialFunc) dialFunc {
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		h, ok := ctx.Value(dialedKey{}).(*dialed)
		if !ok {
			return nc, nil // not for the pool (e.g. pgx's cancel request)
		}
		cc, err := newClientConn(nc, t)
		if err != nil {
			return nil, err
		}
		h.nc = cc
		return cc, nil
	}
}

// connector returns inner, whose connections t tracks: inner's driver must dial through
// t.wrapDial.
func (t *netConns) connector(inner driver.Connector) driver.Connector {
	return trackingConnector{Connector: inner, t: t}
}

// of returns the network connection under conn, or nil when it is not known.
func (t *netConns) of(conn *sql.Conn) *clientConn {
	var nc *clientConn
	_ = conn.Raw(func(dc any) error {
		if d, ok := dc.(driver.Conn); ok {
			t.mu.Lock()
			nc = t.m[d]
			t.mu.Unlock()
		}
		return nil
	})
	return nc
}

// forget removes c from t.
func (t *netConns) forget(c *clientConn) {
	t.mu.Lock()
	if c.key != nil && t.m[c.key] == c {
		delete(t.m, c.key)
	}
	t.mu.Unlock()
}

// trackingConnector records the network connection of every driver connection it opens.
type trackingConnector struct {
	driver.Connector
	t *netConns
}

func (c trackingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	h := &dialed{}
	dc, err := c.Connector.Connect(context.WithValue(ctx, dialedKey{}, h))
	if err != nil || h.nc == nil {
		return dc, err
	}
	h.nc.key = dc
	if c.t.cancelRequest != nil {
		h.nc.cancel = c.t.cancelRequest(dc)
	}
	c.t.mu.Lock()
	if c.t.m == nil {
		c.t.m = map[driver.Conn]*clientConn{}
	}
	c.t.m[dc] = h.nc
	c.t.mu.Unlock()
	return dc, nil
}
