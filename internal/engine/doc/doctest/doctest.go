// Package doctest holds the document servers that the workloads' tests run on: managed
// FerretDB servers on SQLite and on PostgreSQL (a real server speaking MongoDB's wire
// protocol, started by the test).
package doctest

import (
	"context"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// Server is a document engine configuration a test runs on.
type Server struct {
	// Name names the subtest: ferretdb-sqlite, ferretdb-postgresql.
	Name   string
	Driver engine.Driver
	// Settings are the configuration's settings (the backend).
	Settings map[string]string
}

// Servers are FerretDB on SQLite and FerretDB on PostgreSQL.
func Servers() []Server {
	return []Server{
		{Name: "ferretdb-sqlite", Driver: doc.FerretDBDriver(), Settings: map[string]string{"backend": "sqlite"}},
		{Name: "ferretdb-postgresql", Driver: doc.FerretDBDriver(), Settings: map[string]string{"backend": "postgresql"}},
	}
}

// SQLite is FerretDB on SQLite, the quicker of Servers.
func SQLite() Server { return Servers()[0] }

// Require skips the test (or fails it with CI=true) where the server's binaries are missing.
func (s Server) Require(t testing.TB) {
	t.Helper()
	servertest.Require(t, server.FerretDB)
	if s.Settings["backend"] == "postgresql" {
		servertest.Require(t, server.Postgres)
	}
}

// Start starts the server on a fresh data directory with s's settings and extra on top, and
// opens the engine on it; the engine is closed (and the server stopped) at the end of the
// test. It returns the engine and its data directory.
func (s Server) Start(t testing.TB, ctx context.Context, extra map[string]string) (doc.DB, string) {
	t.Helper()
	s.Require(t)
	settings := map[string]string{}
	for k, v := range s.Settings {
		settings[k] = v
	}
	for k, v := range extra {
		settings[k] = v
	}
	dir := servertest.DataDir(t)
	eng := enginetest.Open(t, ctx, s.Driver, s.Name, settings, dir)
	db, ok := eng.(doc.DB)
	if !ok {
		t.Fatalf("%s is not a document engine", s.Name)
	}
	return db, dir
}

// Each runs fn as a parallel subtest for each of servers (skipped, or failed with CI=true,
// where it is not installed), with a context that ends after ten minutes.
func Each(t *testing.T, servers []Server, fn func(t *testing.T, s Server, ctx context.Context)) {
	for _, s := range servers {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			s.Require(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			fn(t, s, ctx)
		})
	}
}
