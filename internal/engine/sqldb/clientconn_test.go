package sqldb

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// clientPair returns a clientConn on a unix socket and the server's end of it.
func clientPair(t *testing.T) (*clientConn, net.Conn) {
	t.Helper()
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	nc, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	c, err := newClientConn(nc, &netConns{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, peer
}

// isTimeout reports whether err is a net.Error timeout wrapping os.ErrDeadlineExceeded, as
// the net package's connections return it.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
}

func TestClientConnReadsAndWrites(t *testing.T) {
	c, peer := clientPair(t)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(peer, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("the server read %q, %v", buf, err)
	}
	if _, err := peer.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("the client read %q, %v", buf, err)
	}
	peer.Close()
	if _, err := c.Read(buf); err != io.EOF {
		t.Fatalf("read after the server closed: %v, want io.EOF", err)
	}
}

// TestClientConnDeadlines checks the deadlines of a blocking socket: a future one bounds a read
// that gets nothing (a timeout error), zero removes it, and one already past fails a read in
// flight and every later read and write.
func TestClientConnDeadlines(t *testing.T) {
	c, peer := clientPair(t)
	buf := make([]byte, 1)
	if err := c.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(buf); !isTimeout(err) {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := peer.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(buf); err != nil {
		t.Fatalf("read without a deadline: %v", err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := c.Read(buf)
		done <- err
	}()
	if err := c.SetDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !isTimeout(err) {
		t.Fatalf("read cut by a deadline in the past: %v, want a timeout", err)
	}
	if _, err := c.Write([]byte("y")); !isTimeout(err) {
		t.Fatalf("write after a deadline in the past: %v, want a timeout", err)
	}
}

// TestClientConnCloseWakesARead checks that closing the connection ends a read in flight in
// another goroutine, which a blocking read(2) would otherwise never leave.
func TestClientConnCloseWakesARead(t *testing.T) {
	c, _ := clientPair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("a read on a closed connection succeeded")
	}
}

// TestClientConnLivenessCheck checks the read that go-sql-driver/mysql makes on an idle
// connection before reusing it: through SyscallConn it must not wait (EAGAIN while the server
// has sent nothing), it must see the server's close (a read of 0), and the socket must be back
// in blocking mode afterwards.
func TestClientConnLivenessCheck(t *testing.T) {
	c, peer := clientPair(t)
	sc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	check := func() (int, error) {
		var n int
		var rerr error
		if err := sc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), make([]byte, 1))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return n, rerr
	}
	if n, err := check(); n > 0 || !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("check of a live idle connection: %d, %v, want EAGAIN", n, err)
	}
	var flags uintptr
	if err := c.raw.Control(func(fd uintptr) {
		flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}); err != nil {
		t.Fatal(err)
	}
	if flags&syscall.O_NONBLOCK != 0 {
		t.Fatal("the socket is left in non-blocking mode after the check")
	}
	peer.Close()
	if n, err := check(); n != 0 || err != nil {
		t.Fatalf("check of a connection the server closed: %d, %v, want 0, nil (end of stream)", n, err)
	}
}
