// Package sqldbtest holds the server engines that the workloads' tests run on: managed
// PostgreSQL, InnoDB and MyRocks servers with memory sizes small enough for a test.
package sqldbtest

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// Server is a server engine and the settings a test runs it with.
type Server struct {
	Driver engine.Driver
	Kind   server.Kind
	Plugin string // the MariaDB plugin the engine needs, if any
	// Small overrides the memory sizes of the defaults, so that several test servers fit side
	// by side; every other default is in force.
	Small map[string]string
}

// Servers are postgres, innodb and myrocks.
func Servers() []Server {
	return []Server{
		{sqldb.PostgresDriver(), server.Postgres, "", map[string]string{"shared_buffers": "128MB", "max_wal_size": "1GB"}},
		{sqldb.InnoDBDriver(), server.MariaDB, "", map[string]string{"innodb_buffer_pool_size": "128M", "innodb_log_file_size": "256M"}},
		{sqldb.MyRocksDriver(), server.MariaDB, "ha_rocksdb", map[string]string{"rocksdb_block_cache_size": "64M"}},
	}
}

// InnoDB is the InnoDB server of Servers.
func InnoDB() Server { return Servers()[1] }

// Require skips the test (or fails it with CI=true) where the server or its plugin is not
// installed.
func (s Server) Require(t testing.TB) {
	t.Helper()
	if s.Plugin != "" {
		servertest.RequirePlugin(t, s.Plugin)
		return
	}
	servertest.Require(t, s.Kind)
}

// Settings returns the small sizes with extra settings on top (e.g. the statement log's).
func (s Server) Settings(extra map[string]string) map[string]string {
	m := maps.Clone(s.Small)
	maps.Copy(m, extra)
	return m
}

// Open starts the server on the data directory dir with settings and opens the engine on it;
// the engine is closed (and the server stopped) at the end of the test.
func (s Server) Open(t testing.TB, ctx context.Context, settings map[string]string, dir string) engine.Engine {
	t.Helper()
	return enginetest.Open(t, ctx, s.Driver, "", settings, dir)
}

// Each runs fn as a parallel subtest for each of servers (skipped, or failed with CI=true,
// where it is not installed), with a context that ends after ten minutes, the bound of the
// tiny-scale runs the workloads' tests make.
func Each(t *testing.T, servers []Server, fn func(t *testing.T, s Server, ctx context.Context)) {
	for _, s := range servers {
		t.Run(s.Driver.Name, func(t *testing.T) {
			t.Parallel()
			s.Require(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			fn(t, s, ctx)
		})
	}
}

// Start starts the server (after Require) with its small sizes (and, where logged, its
// statement log on) on a fresh data directory and opens the engine on it, closed at the end of
// the test; it returns the engine and the directory, where the statement log is.
func (s Server) Start(t testing.TB, ctx context.Context, logged bool) (engine.Engine, string) {
	t.Helper()
	s.Require(t)
	settings := s.Small
	if logged {
		settings = s.Settings(servertest.StatementLogSettings(s.Kind))
	}
	dir := servertest.DataDir(t)
	return s.Open(t, ctx, settings, dir), dir
}

// StopStatementLog turns off, while the server runs, the statement log that
// servertest.StatementLogSettings turned on: MariaDB's general log at once, PostgreSQL's
// log_statement by ALTER SYSTEM and a reload, which each backend applies before its next
// command.
func (s Server) StopStatementLog(t testing.TB, ctx context.Context, eng engine.Engine) {
	t.Helper()
	stmts := []string{"ALTER SYSTEM SET log_statement = 'none'", "SELECT pg_reload_conf()"}
	if s.Kind == server.MariaDB {
		stmts = []string{"SET GLOBAL general_log = OFF"}
	}
	db, ok := eng.(sqldb.DB)
	if !ok {
		t.Fatalf("engine %s is not an SQL engine", s.Driver.Name)
	}
	for _, q := range stmts {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatalf("stop the statement log: %s: %v", q, err)
		}
	}
}

// LoggedBench runs fn as a sub-benchmark for each server but MyRocks (the same client and
// connections as InnoDB): on a managed server started with its statement log on (for fn to
// check its statements in the log of dir, then StopStatementLog), and with a context that
// can be cancelled, as the run's context that a workload gives its statements.
func LoggedBench(b *testing.B, fn func(b *testing.B, s Server, ctx context.Context, eng engine.Engine, dir string)) {
	for _, s := range Servers() {
		if s.Driver.Name == "myrocks" {
			continue
		}
		b.Run(s.Driver.Name, func(b *testing.B) {
			s.Require(b)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			eng, dir := s.Start(b, ctx, true)
			fn(b, s, ctx, eng, dir)
		})
	}
}
