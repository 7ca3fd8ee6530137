// Package servertest starts managed database servers for tests.
package servertest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/server"
)

// Require skips the test (with the install command) when kind's binaries are missing, or fails
// it when the environment variable CI=true.
func Require(t testing.TB, kind server.Kind) {
	t.Helper()
	missing(t, server.Available(kind))
}

// RequirePlugin is Require for a MariaDB plugin (e.g. "ha_rocksdb"): it also requires the
// MariaDB server.
func RequirePlugin(t testing.TB, plugin string) {
	t.Helper()
	Require(t, server.MariaDB)
	missing(t, server.AvailablePlugin(plugin))
}

func missing(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %v", err)
	}
	t.Skip(err)
}

// Start starts a server for a test in a fresh temporary directory (usable by the unprivileged
// server user when tests run as root) and stops it in t.Cleanup. It calls Require first.
func Start(t testing.TB, kind server.Kind, settings map[string]string) *server.Server {
	t.Helper()
	return StartWith(t, kind, server.Options{Settings: settings})
}

// StartWith is Start with the options o (Listen, Keep, ...); their DataDir and Log are the
// test's own.
func StartWith(t testing.TB, kind server.Kind, o server.Options) *server.Server {
	t.Helper()
	Require(t, kind)
	o.DataDir, o.Log = DataDir(t), Logger(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := server.Start(ctx, kind, o)
	if err != nil {
		t.Fatalf("start %s server: %v", kind, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop %s server: %v", kind, err)
		}
	})
	return s
}

// DataDir returns a fresh empty directory for a server's data, removed at the end of the
// test. The directories t.TempDir creates are private to their owner: they are opened for
// search (mode 0711) so that a server running as another user reaches the data directory.
func DataDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// t.TempDir: <TMPDIR>/<TestName><random>/<NNN>.
	tmp := filepath.Clean(os.TempDir())
	for d := filepath.Dir(dir); d != tmp && d != filepath.Dir(d) && strings.HasPrefix(d, tmp); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Logger returns a writer that logs each line written to it with t.Log.
func Logger(t testing.TB) *LogWriter {
	return &LogWriter{t: t}
}

// LogWriter is an io.Writer that logs its lines with t.Log.
type LogWriter struct {
	mu  sync.Mutex
	t   testing.TB
	buf []byte
}

// Write logs the complete lines of p; a partial line waits for the rest.
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.t.Log(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// Buffer is an io.Writer safe for concurrent use that keeps what is written: a server's log,
// read while the server writes it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// WithPassword returns dsn, a DSN of srv that names its user without a password (srv.DSN,
// srv.TLSDSN), with srv's password: postgres:// URLs and go-sql-driver/mysql DSNs, whose user
// comes before the first '@'.
func WithPassword(srv *server.Server, dsn string) string {
	if srv.Password() == "" {
		return dsn
	}
	return strings.Replace(dsn, srv.User()+"@", srv.User()+":"+srv.Password()+"@", 1)
}
