package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// BenchmarkRoundTripIOMode puts the Go runtime's network poller beside blocking reads for
// BenchmarkRoundTrip's point SELECT (issue 18): "netpoller" is the drivers' own connection, on
// which a read that finds no data parks the goroutine and waits in epoll; "blocking" is the
// same socket switched to blocking mode and read and written with plain read(2) and write(2)
// system calls, the way a C client (MySQLdb, psycopg2) waits for its reply. Both with a
// context that cannot be cancelled.
func BenchmarkRoundTripIOMode(b *testing.B) {
	for _, c := range serverCases() {
		if c.driver.Name == "myrocks" {
			continue
		}
		b.Run(c.driver.Name, func(b *testing.B) {
			e := c.openManaged(b)
			conn := rtSetup(b, e)
			q := Bind(e.Dialect(), "SELECT v FROM rt WHERE id = ?")
			blocking := blockingConn(b, e)
			for _, v := range []rtVariant{{"text-background", false, false}, {"prepared-background", true, false}} {
				b.Run("netpoller-"+v.name, func(b *testing.B) { rtRun(b, conn, q, v) })
				b.Run("blocking-"+v.name, func(b *testing.B) { rtRun(b, blocking, q, v) })
			}
		})
	}
}

// blockingConn opens a second pool on e's managed server whose connections use blocking
// system calls (dialBlocking), and returns one of its connections.
func blockingConn(b *testing.B, e *serverEngine) *sql.Conn {
	b.Helper()
	var db *sql.DB
	switch d := e.DB.(type) {
	case *mysqlDB:
		mc := mysql.NewConfig()
		mc.Net, mc.Addr, mc.User, mc.DBName = "unix", d.srv.SocketPath(), d.srv.User(), d.srv.Database()
		mc.InterpolateParams = true
		mc.DialFunc = dialBlocking
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			b.Fatal(err)
		}
		db = sql.OpenDB(conn)
	case *postgresDB:
		pc, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
			pgQuote(d.srv.SocketDir()), d.srv.Port(), pgQuote(d.srv.User()), pgQuote(d.srv.Database())))
		if err != nil {
			b.Fatal(err)
		}
		pc.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		pc.DialFunc = dialBlocking
		db = stdlib.OpenDB(*pc)
	default:
		b.Fatalf("%T is not a server engine", e.DB)
	}
	b.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatalf("connect with blocking reads: %v", err)
	}
	b.Cleanup(func() { conn.Close() })
	return conn
}

// dialBlocking dials a connection, then takes over its socket in blocking mode.
func dialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(f uintptr) { fd, derr = syscall.Dup(int(f)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &blockingNetConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

// blockingNetConn is a socket read and written with blocking system calls. It has no
// deadlines: the benchmark does not need them.
type blockingNetConn struct {
	fd            int
	local, remote net.Addr
}

func (c *blockingNetConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingNetConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

func (c *blockingNetConn) Close() error                     { return syscall.Close(c.fd) }
func (c *blockingNetConn) LocalAddr() net.Addr              { return c.local }
func (c *blockingNetConn) RemoteAddr() net.Addr             { return c.remote }
func (c *blockingNetConn) SetDeadline(time.Time) error      { return nil }
func (c *blockingNetConn) SetReadDeadline(time.Time) error  { return nil }
func (c *blockingNetConn) SetWriteDeadline(time.Time) error { return nil }
