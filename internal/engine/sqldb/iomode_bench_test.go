package sqldb

import (
	"context"
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// BenchmarkRoundTripIOMode puts the Go runtime's network poller beside blocking reads for
// BenchmarkRoundTrip's point SELECT (issue 18): "netpoller" is a pool whose connections the
// drivers dial themselves, on which a read that finds no data parks the goroutine and waits in
// epoll; "blocking" is the engine's own pool, whose connections are clientConns: the socket in
// blocking mode, read and written with plain read(2) and write(2) system calls, the way a C
// client (MySQLdb, psycopg2) waits for its reply. Both with a context that cannot be cancelled.
func BenchmarkRoundTripIOMode(b *testing.B) {
	rtServers(b, func(b *testing.B, e *serverEngine, blocking *sql.Conn, q string) {
		netpoller := netpollerConn(b, e)
		for _, v := range []rtVariant{{"text-background", false, false}, {"prepared-background", true, false}} {
			b.Run("netpoller-"+v.name, func(b *testing.B) { rtRun(b, netpoller, q, v) })
			b.Run("blocking-"+v.name, func(b *testing.B) { rtRun(b, blocking, q, v) })
		}
	})
}

// netpollerConn opens a second pool on e's managed server whose connections the driver dials
// itself (the network poller), with the engine's protocol settings, and returns one of its
// connections.
func netpollerConn(b *testing.B, e *serverEngine) *sql.Conn {
	b.Helper()
	var db *sql.DB
	switch d := e.DB.(type) {
	case *mysqlDB:
		mc := managedMySQLConfig(d.srv)
		mc.InterpolateParams = true
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			b.Fatal(err)
		}
		db = sql.OpenDB(conn)
	case *postgresDB:
		pc, err := pgx.ParseConfig(managedPostgresConnString(d.srv))
		if err != nil {
			b.Fatal(err)
		}
		pc.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		db = stdlib.OpenDB(*pc)
	default:
		b.Fatalf("%T is not a server engine", e.DB)
	}
	b.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatalf("connect through the network poller: %v", err)
	}
	b.Cleanup(func() { conn.Close() })
	return conn
}
