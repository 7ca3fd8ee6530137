package sqldb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// clientConn is a pool connection to a server engine's server, its socket in blocking mode:
// a client waits for the server's reply in one read(2) that sleeps in the kernel, as the
// references' C clients do, instead of Go's network poller (a read that finds nothing, then
// parking the goroutine and waking it from epoll). That costs a round trip about a third less
// client CPU (docs/performance.md, BenchmarkRoundTripIOMode). A client blocked in a read holds
// an OS thread, one per client connection.
//
// Deadlines are the sockets' timeouts (SO_RCVTIMEO, SO_SNDTIMEO: a bound on each read or write
// rather than one instant), and a deadline already past shuts the socket down, which wakes a
// read or write in flight; the connection is then unusable, as a connection interrupted by its
// context always is.
type clientConn struct {
	f             *os.File
	raw           syscall.RawConn
	local, remote net.Addr
	expired       atomic.Bool // shut down by a deadline in the past

	t      *netConns
	key    driver.Conn                 // the driver connection on it, once known
	cancel func(context.Context) error // see netConns.cancelRequest; may be nil
}

// newClientConn takes over nc's socket in blocking mode for t; nc is closed.
func newClientConn(nc net.Conn, t *netConns) (*clientConn, error) {
	defer nc.Close()
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%T has no socket to read in blocking mode", nc)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(s uintptr) { fd, derr = dupCloexec(int(s)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("duplicate the socket: %w", derr)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("set the socket to blocking mode: %w", err)
	}
	// A file on a descriptor in blocking mode is not in the network poller: its reads and
	// writes are plain system calls.
	f := os.NewFile(uintptr(fd), "socket")
	c := &clientConn{f: f, local: nc.LocalAddr(), remote: nc.RemoteAddr(), t: t}
	if c.raw, err = f.SyscallConn(); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// dupCloexec duplicates descriptor fd, closed on exec like every descriptor Go opens.
func dupCloexec(fd int) (int, error) {
	nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(nfd), nil
}

func (c *clientConn) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	if err != nil {
		return n, c.opError("read", err)
	}
	return n, nil
}

func (c *clientConn) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	if err != nil {
		return n, c.opError("write", err)
	}
	return n, nil
}

// opError returns the error of a read or write as the net package's connections return it: a
// timeout (os.ErrDeadlineExceeded) after a socket timeout or a deadline in the past, io.EOF at
// the end of the stream.
func (c *clientConn) opError(op string, err error) error {
	switch {
	case c.expired.Load() || errors.Is(err, syscall.EAGAIN):
		err = os.ErrDeadlineExceeded
	case errors.Is(err, io.EOF):
		return io.EOF
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &net.OpError{Op: op, Net: c.local.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// Close shuts the socket down, which wakes a read or write in flight in another goroutine, and
// closes it; netConns forgets it.
func (c *clientConn) Close() error {
	if c.t != nil {
		c.t.forget(c)
	}
	c.shutdown()
	return c.f.Close()
}

func (c *clientConn) shutdown() {
	_ = c.raw.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
}

func (c *clientConn) LocalAddr() net.Addr  { return c.local }
func (c *clientConn) RemoteAddr() net.Addr { return c.remote }

func (c *clientConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

func (c *clientConn) SetReadDeadline(t time.Time) error {
	return c.setTimeout(syscall.SO_RCVTIMEO, t)
}

func (c *clientConn) SetWriteDeadline(t time.Time) error {
	return c.setTimeout(syscall.SO_SNDTIMEO, t)
}

// setTimeout bounds each later read or write (opt) by the time left until t; no bound when t
// is zero. A t already past shuts the socket down.
func (c *clientConn) setTimeout(opt int, t time.Time) error {
	var tv syscall.Timeval
	if !t.IsZero() {
		left := time.Until(t)
		if left <= 0 {
			c.expired.Store(true)
			c.shutdown()
			return nil
		}
		tv = syscall.NsecToTimeval(max(left, time.Microsecond).Nanoseconds())
	}
	var serr error
	if err := c.raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptTimeval(int(fd), syscall.SOL_SOCKET, opt, &tv)
	}); err != nil {
		return err
	}
	return serr
}

// SyscallConn gives the drivers the socket for a check that must not wait: go-sql-driver/mysql
// reads an idle connection before reusing it, to find one the server closed. Its Read and
// Write run their function with the socket in non-blocking mode for the time of the call.
func (c *clientConn) SyscallConn() (syscall.RawConn, error) { return nonblockingRaw{c.raw}, nil }

// nonblockingRaw is a RawConn of a blocking socket whose Read and Write calls do not wait.
type nonblockingRaw struct{ raw syscall.RawConn }

func (r nonblockingRaw) Control(f func(fd uintptr)) error { return r.raw.Control(f) }

// Read runs f once with the socket in non-blocking mode: a read that finds nothing returns
// EAGAIN. f's result (whether it is done) is not used: there is no waiting to do.
func (r nonblockingRaw) Read(f func(fd uintptr) bool) error { return r.once(f) }

// Write is Read for a write.
func (r nonblockingRaw) Write(f func(fd uintptr) bool) error { return r.once(f) }

func (r nonblockingRaw) once(f func(fd uintptr) bool) error {
	var err error
	if cerr := r.raw.Control(func(fd uintptr) {
		if err = syscall.SetNonblock(int(fd), true); err != nil {
			return
		}
		f(fd)
		err = syscall.SetNonblock(int(fd), false)
	}); cerr != nil {
		return cerr
	}
	return err
}
