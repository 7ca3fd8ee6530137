package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/redact"
)

// serverMaxIdleConns is how many idle connections a server engine's pool keeps, so that the
// clients of one step find their connections again in the next.
const serverMaxIdleConns = 64

// PostgresDriver returns the driver of the "postgres" engine: PostgreSQL through pgx
// (github.com/jackc/pgx/v5/stdlib), on a managed server (package server) started on
// Config.DataDir with the settings merged over postgresSettings, or on an existing server given
// by Config.DSN (a pgx connection string or URL), where it creates nothing but the benchmark
// tables.
//
// The engine implements DB, engine.Server, engine.Liveness, engine.Cleaner, engine.Statser,
// engine.DatabaseSizer and engine.DataFiler. Statements a workload prepares on a connection are server-side prepared
// statements.
func PostgresDriver() engine.Driver {
	defs := postgresSettings()
	return newServerDriver(serverDriverSpec{
		name: "postgres",
		description: "PostgreSQL (heap + B-tree indexes, MVCC with vacuum) through github.com/jackc/pgx; " +
			"a managed server (the installed one, or any installation's with bindir, its build recorded), or an existing one with --dsn",
		kind:        server.Postgres,
		install:     binDir,
		settings:    defs,
		available:   func() error { return server.Available(server.Postgres) },
		checkDSN:    func(dsn string) error { _, err := parsePostgresDSN(dsn); return err },
		capDefaults: postgresCapDefaults,
		versioned:   postgresVersioned,
		open:        openPostgres,
	})
}

// postgresVersioned returns settings (the defaults merged with overrides) for the major
// version of the postgres binary they name (postgresForVersion), and its version.
func postgresVersioned(settings, overrides map[string]string) (map[string]string, string, error) {
	v, err := server.BinaryVersion(server.Postgres, settings[binDir])
	if err != nil {
		return nil, "", err
	}
	majorText, _, _ := strings.Cut(v, ".")
	major, err := strconv.Atoi(majorText)
	if err != nil {
		return nil, "", fmt.Errorf("postgres --version: %q is not a version", v)
	}
	if err := checkPublishedVersion(v, major); err != nil {
		return nil, "", err
	}
	return postgresForVersion(major, settings, overrides), v, nil
}

// postgresDialect is the Dialect of PostgreSQL. Its zero value is ready to use.
type postgresDialect struct{}

var _ Dialect = postgresDialect{}

// Name returns "postgres".
func (postgresDialect) Name() string { return Postgres.String() }

// Kind returns Postgres.
func (postgresDialect) Kind() Kind { return Postgres }

// Server returns true: PostgreSQL is a server.
func (postgresDialect) Server() bool { return true }

// Placeholder returns $i.
func (postgresDialect) Placeholder(i int) string { return fmt.Sprintf("$%d", i) }

// Type maps portable column types to PostgreSQL's: bigint, integer, smallint (PostgreSQL has no
// one-byte integer), timestamp (without time zone, as the reference's dateandtime),
// varchar(size), text, and bytea for VarBinary and Blob (whose size is not enforced). An
// unknown ColType yields "".
func (postgresDialect) Type(t ColType, size int) string {
	switch t {
	case BigInt:
		return "bigint"
	case Int:
		return "integer"
	case TinyInt:
		return "smallint"
	case Timestamp:
		return "timestamp"
	case VarChar:
		if size <= 0 {
			return "varchar"
		}
		return fmt.Sprintf("varchar(%d)", size)
	case Text:
		return "text"
	case VarBinary, Blob:
		return "bytea"
	}
	return ""
}

// AutoIncrementPK returns "bigserial PRIMARY KEY", as the reference: ids come from a sequence
// (without a per-session cache, so they are assigned in insert order).
func (postgresDialect) AutoIncrementPK() string { return "bigserial PRIMARY KEY" }

// TableOptions returns "".
func (postgresDialect) TableOptions() string { return "" }

// IndexHint returns "": PostgreSQL has no index hints. The range queries of the Insert
// Benchmark use their index anyway (an index-only scan that provides the ORDER BY ... LIMIT);
// a full count may be a sequential scan of the table.
func (postgresDialect) IndexHint(string) string { return "" }

// PrimaryKeyHint returns "": see IndexHint.
func (postgresDialect) PrimaryKeyHint() string { return "" }

// DeleteOldest returns
//
//	DELETE FROM table WHERE ctid = ANY (ARRAY(SELECT ctid FROM table WHERE pk >= $1 ORDER BY pk LIMIT limit))
//
// because PostgreSQL has no DELETE ... ORDER BY ... LIMIT. The subquery reads the primary key
// index in order once (an InitPlan), and the rows are deleted by their physical address with a
// TID scan, whatever the size of the table; the IN (subquery) form is planned as a semi-join
// that reads the whole table when the table is small (or the statistics say so).
func (postgresDialect) DeleteOldest(table, pk string, limit int) string {
	return fmt.Sprintf("DELETE FROM %[1]s WHERE ctid = ANY (ARRAY(SELECT ctid FROM %[1]s WHERE %[2]s >= $1 ORDER BY %[2]s LIMIT %[3]d))",
		table, pk, limit)
}

// Retryable reports whether err (or an error it wraps) is a PostgreSQL error with SQLSTATE
// 40P01 (deadlock detected), 40001 (serialization failure) or 55P03 (lock not available). A lost
// connection is not retryable.
func (postgresDialect) Retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40P01", "40001", "55P03":
		return true
	}
	return false
}

// TimestampFromUnix returns (to_timestamp(CAST(arg AS bigint)) AT TIME ZONE 'UTC'): the UTC
// wall-clock time of the unix seconds, as a timestamp without time zone, whatever the
// session's TimeZone.
func (postgresDialect) TimestampFromUnix(arg string) string {
	return "(to_timestamp(CAST(" + arg + " AS bigint)) AT TIME ZONE 'UTC')"
}

// TimestampToUnix returns CAST(EXTRACT(EPOCH FROM col) AS bigint), which for a timestamp without
// time zone counts the seconds from 1970-01-01 00:00 of the same (UTC) clock.
func (postgresDialect) TimestampToUnix(col string) string {
	return "CAST(EXTRACT(EPOCH FROM " + col + ") AS bigint)"
}

// ClusteredPK returns "": a PostgreSQL table is a heap, whatever its primary key.
func (postgresDialect) ClusteredPK() string { return "" }

// BeginWrite returns "BEGIN" (READ COMMITTED, the server's default).
func (postgresDialect) BeginWrite() string { return "BEGIN" }

// BeginSnapshot returns BEGIN ISOLATION LEVEL REPEATABLE READ: the snapshot of the first
// statement is the transaction's, and its xmin holds back VACUUM until the end. (At the
// default READ COMMITTED each statement takes its own snapshot, and an idle transaction holds
// none.)
func (postgresDialect) BeginSnapshot() []string {
	return []string{"BEGIN ISOLATION LEVEL REPEATABLE READ"}
}

// ForUpdate returns " FOR UPDATE".
func (postgresDialect) ForUpdate() string { return " FOR UPDATE" }

// Upsert returns INSERT INTO table (cols) VALUES ($1, ...) ON CONFLICT (key) DO UPDATE SET set.
func (postgresDialect) Upsert(table string, cols, key []string, set string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" +
		placeholders(postgresDialect{}, 1, len(cols)) + ") ON CONFLICT (" + strings.Join(key, ", ") +
		") DO UPDATE SET " + set
}

// Returning returns " RETURNING col": pgx has no LastInsertId.
func (postgresDialect) Returning(col string) string { return " RETURNING " + col }

// AdvanceSequence returns
//
//	SELECT setval(pg_get_serial_sequence('table', 'col'), GREATEST($1, (SELECT COALESCE(max(col), 0) + 1 FROM table)), false)
//
// because a bigserial's sequence does not move when values are inserted explicitly.
func (postgresDialect) AdvanceSequence(table, col string) string {
	return fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%[1]s', '%[2]s'), "+
		"GREATEST(CAST($1 AS bigint), (SELECT COALESCE(max(%[2]s), 0) + 1 FROM %[1]s)), false)", table, col)
}

// DeleteWithHint returns DELETE FROM table WHERE where: hint is "" (PostgreSQL has no hints).
func (postgresDialect) DeleteWithHint(table, hint, where string) string {
	return "DELETE FROM " + table + hint + " WHERE " + where
}

// DuplicateKey reports whether err (or an error it wraps) has SQLSTATE 23505 (unique violation).
func (postgresDialect) DuplicateKey(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// MaxParams returns 65535, the limit of the protocol's 16-bit parameter count.
func (postgresDialect) MaxParams() int { return 65535 }

// postgresDB is an open postgres engine.
type postgresDB struct {
	serverCore
	versionNum int    // server_version_num, e.g. 150018
	dbOID      uint32 // the current database's oid: its directory base/<oid>/
}

var (
	_ DB               = (*postgresDB)(nil)
	_ engine.Server    = (*postgresDB)(nil)
	_ engine.Liveness  = (*postgresDB)(nil)
	_ engine.Cleaner   = (*postgresDB)(nil)
	_ engine.Statser   = (*postgresDB)(nil)
	_ engine.DataFiler = (*postgresDB)(nil)
)

// openPostgres opens the engine on a managed server, or on the server of cfg.DSN.
func openPostgres(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	if cfg.DSN != "" {
		return openPostgresExternal(ctx, cfg)
	}
	defs := postgresSettings()
	settings, _, err := postgresVersioned(engine.MergeSettings(defs, cfg.Settings), cfg.Settings)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	srv, err := startManaged(ctx, "postgres", server.Postgres, binDir, cfg, defs, settings)
	if err != nil {
		return nil, err
	}
	connStr := managedPostgresConnString(srv)
	e := &postgresDB{serverCore: serverCore{
		name: "postgres", srv: srv, version: srv.Version(), address: srv.SocketPath(),
		settings: settings, dialect: postgresDialect{},
	}}
	pc, err := pgx.ParseConfig(connStr)
	if err == nil {
		// Not asked for on the socket; over TCP it would be.
		pc.Password = srv.Password()
		if pc.Password != "" {
			e.secrets = []string{pc.Password}
		}
		err = e.connect(ctx, pc)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("postgres: connect to the managed server: %w", err), e.Close())
	}
	return e, nil
}

// openPostgresExternal opens the engine on the existing server of cfg.DSN.
func openPostgresExternal(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	secrets := redact.Secrets(cfg.DSN)
	pc, err := parsePostgresDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	if pc.Password != "" {
		secrets = append(secrets, pc.Password)
	}
	e := &postgresDB{serverCore: serverCore{
		name: "postgres", dbPID: cfg.DBPID, dialect: postgresDialect{}, secrets: secrets,
		address: pgAddress(pc.Host, pc.Port),
	}}
	if err := e.connect(ctx, pc); err != nil {
		return nil, errors.Join(e.redact(fmt.Errorf("postgres: connect to the server of the DSN: %w", pgTLSHint(err))), e.Close())
	}
	var version string
	if err := e.db.QueryRowContext(ctx, "SELECT current_setting('server_version')").Scan(&version); err != nil {
		return nil, errors.Join(e.redact(fmt.Errorf("postgres: read the server version: %w", err)), e.Close())
	}
	if f := strings.Fields(version); len(f) > 0 {
		version = f[0] // "15.18 (Debian 15.18-0+deb12u1)" -> "15.18"
	}
	e.version = version
	settings, err := e.readSettings(ctx)
	if err != nil {
		return nil, errors.Join(e.redact(err), e.Close())
	}
	settings["dsn_host"] = pc.Host
	settings["dsn_database"] = pc.Database
	e.settings = settings
	return e, nil
}

// connect opens the pool on pc, checks that the server answers and reads its version number.
func (e *postgresDB) connect(ctx context.Context, pc *pgx.ConnConfig) error {
	if pc.ConnectTimeout == 0 {
		pc.ConnectTimeout = 30 * time.Second
	}
	// A statement run with arguments but not prepared is interpolated by the client and sent
	// as one text query (the simple protocol), as psycopg2 sends iibench.py's; a statement
	// prepared with Prepare is prepared on the server and executed with the extended protocol.
	pc.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	pc.DialFunc = pgconn.DialFunc(e.conns.wrapDial(dialFunc(pc.DialFunc)))
	e.conns.cancelRequest = pgCancelRequest
	e.db = sql.OpenDB(e.conns.connector(stdlib.GetConnector(*pc)))
	e.db.SetMaxIdleConns(serverMaxIdleConns)
	if err := e.db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int, "+
		"(SELECT oid FROM pg_database WHERE datname = current_database())").Scan(&e.versionNum, &e.dbOID); err != nil {
		return err
	}
	return nil
}

// readSettings returns the server's values of the documented settings (as SHOW prints them).
func (e *postgresDB) readSettings(ctx context.Context) (map[string]string, error) {
	defs := postgresSettings()
	names := make([]string, 0, len(defs))
	for _, d := range defs {
		names = append(names, d.Name)
	}
	rows, err := e.db.QueryContext(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)", names)
	if err != nil {
		return nil, fmt.Errorf("postgres: read the server's settings: %w", err)
	}
	defer rows.Close()
	m := make(map[string]string, len(names)+2)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("postgres: read the server's settings: %w", err)
		}
		m[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: read the server's settings: %w", err)
	}
	return m, nil
}

// pgVacuum returns the reference's VACUUM of the cleanup for a server version
// (bench/ibench/iq.sh, vac_pg): INDEX_CLEANUP exists from PostgreSQL 12 on.
func pgVacuum(versionNum int) string {
	if versionNum < 120000 {
		return "VACUUM (VERBOSE, ANALYZE)"
	}
	return "VACUUM (VERBOSE, ANALYZE, INDEX_CLEANUP ON)"
}

// Cleanup reduces the engine's debt before the read steps as the reference does: VACUUM
// (VERBOSE, ANALYZE, INDEX_CLEANUP ON) (before PostgreSQL 12: without INDEX_CLEANUP) on every
// table of the current schema (the benchmark tables: the engine creates nothing else), all at
// once, each on its own connection, then CHECKPOINT once they have all ended, so that the read
// steps start without dead tuples, with fresh statistics and with the buffer pool's dirty pages
// written. The caller's wait comes after it. The VERBOSE messages are not kept. ctx cancels the
// running statements.
func (e *postgresDB) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return e.redact(fmt.Errorf("postgres: cleanup: %w", err))
	}
	defer conn.Close()
	tables, err := pgTables(ctx, conn)
	if err != nil {
		return fmt.Errorf("postgres: cleanup: list the tables: %w", err)
	}
	e.closeIdle(ctx, conn)
	vac := pgVacuum(e.versionNum)
	vacuum := startPerTable(ctx, e.db, vac, tables, func(ctx context.Context, c *sql.Conn, t string) error {
		_, err := c.ExecContext(ctx, vac+" "+t)
		return err
	})
	if err := vacuum.wait(h); err != nil {
		return e.redact(fmt.Errorf("postgres: cleanup: %w", err))
	}
	if err := timed(ctx, conn, h, "CHECKPOINT"); err != nil {
		return fmt.Errorf("postgres: cleanup: %w", err)
	}
	return nil
}

// pgTables lists the tables of the current schema, each as a quoted schema.table.
func pgTables(ctx context.Context, conn *sql.Conn) ([]string, error) {
	return queryStrings(ctx, conn,
		"SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
}

// closeIdle closes the pool's idle connections and waits (at most idleExitWait) until no
// other session of the database is busy, holds a snapshot or is still exiting. A backend reports
// its table statistics lazily (at the latest when it exits), and a statement the step canceled
// may still be running with its snapshot: either would make the VACUUM leave dead tuples, or
// count the step's deletes after it. Other sessions (an existing server's other users) only
// cost the wait.
func (e *postgresDB) closeIdle(ctx context.Context, conn *sql.Conn) {
	e.db.SetMaxIdleConns(0) // closes the idle connections
	e.db.SetMaxIdleConns(serverMaxIdleConns)
	deadline := time.Now().Add(idleExitWait)
	for time.Now().Before(deadline) {
		var busy int
		err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
  AND (state IS DISTINCT FROM 'idle' OR backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)`).Scan(&busy)
		if err != nil || busy == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// idleExitWait bounds how long Cleanup waits for the pool's closed connections to exit.
const idleExitWait = 5 * time.Second

// Stats returns the engine's debt, in one query:
//
//	live_tuples      estimated live rows of the tables of the current schema (n_live_tup)
//	dead_tuples      dead row versions not yet vacuumed (n_dead_tup)
//	autovacuum_runs  autovacuums of those tables so far (autovacuum_count)
//	vacuum_runs      VACUUMs run by hand (Cleanup) on those tables so far (vacuum_count)
//	autoanalyze_runs autoanalyzes of those tables so far (autoanalyze_count)
//	vacuums_running  VACUUMs (auto or not) running in the database now
//	wal_bytes        WAL written since the cluster was created (pg_current_wal_lsn() - '0/0')
//	checkpoints      checkpoints since the statistics were reset (timed and requested)
//	blks_read        blocks of the database read outside shared_buffers (from the page cache
//	                 or the device: pg_stat_database), and blks_hit those found in it
//	snapshot_xid_age transactions begun since the oldest snapshot another client session of
//	                 the database holds (age of the oldest backend_xmin in pg_stat_activity):
//	                 VACUUM keeps every row version deleted since, so it grows while a long
//	                 read transaction is open (--htap-transaction-seconds); 0 when none
//
// The table counters come from the cumulative statistics, which backends publish about once
// a second, and at the latest when they exit: a count may lag the work by that much.
func (e *postgresDB) Stats(ctx context.Context) (map[string]float64, error) {
	checkpoints := "(SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)"
	if e.versionNum >= 170000 {
		checkpoints = "(SELECT num_timed + num_requested FROM pg_stat_checkpointer)"
	}
	q := `SELECT coalesce(sum(n_live_tup), 0)::float8, coalesce(sum(n_dead_tup), 0)::float8,
	coalesce(sum(autovacuum_count), 0)::float8, coalesce(sum(autoanalyze_count), 0)::float8,
	coalesce(sum(vacuum_count), 0)::float8,
	(SELECT count(*) FROM pg_stat_progress_vacuum WHERE datname = current_database())::float8,
	pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8,
	` + checkpoints + `::float8,
	(SELECT blks_read FROM pg_stat_database WHERE datname = current_database())::float8,
	(SELECT blks_hit FROM pg_stat_database WHERE datname = current_database())::float8,
	(SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity
	  WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend')::float8
FROM pg_stat_user_tables WHERE schemaname = current_schema()`
	var live, dead, autovac, autoanalyze, vacuums, running, wal, ckpt, blksRead, blksHit, snapAge float64
	if err := e.db.QueryRowContext(ctx, q).Scan(&live, &dead, &autovac, &autoanalyze, &vacuums, &running, &wal, &ckpt,
		&blksRead, &blksHit, &snapAge); err != nil {
		return nil, e.redact(fmt.Errorf("postgres: stats: %w", err))
	}
	return map[string]float64{
		"live_tuples":      live,
		"dead_tuples":      dead,
		"autovacuum_runs":  autovac,
		"autoanalyze_runs": autoanalyze,
		"vacuum_runs":      vacuums,
		"vacuums_running":  running,
		"wal_bytes":        wal,
		"checkpoints":      ckpt,
		"blks_read":        blksRead,
		"blks_hit":         blksHit,
		"snapshot_xid_age": snapAge,
	}, nil
}

// IsDataFile reports whether rel (relative to the data directory, PGDATA) is one of the
// benchmark database's files, for the size measured from the data directory when
// DatabaseBytes fails: the files under base/<oid>/ of the current database (its relations,
// with their free space and visibility maps), what pg_database_size counts. Not the other
// databases, the shared catalogs in global/, pg_wal (whose size is set by max_wal_size,
// min_wal_size and segment recycling rather than by the data), pg_xact and the other
// bookkeeping directories, the log and the configuration.
func (e *postgresDB) IsDataFile(rel string) bool {
	return e.dbOID != 0 && strings.HasPrefix(rel, "base/"+strconv.FormatUint(uint64(e.dbOID), 10)+"/")
}

// pgQuote quotes a value of a keyword/value connection string.
func pgQuote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// RowValueSeek implements Dialect: a btree index scan starts at a row-value comparison.
func (postgresDialect) RowValueSeek() bool { return true }

// IndexOrderSettings implements Dialect: with sequential and bitmap scans and sorts priced
// out, the only plan left for an ORDER BY is a scan of the index in that order.
func (postgresDialect) IndexOrderSettings() []string {
	return []string{"SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off"}
}

// pgCancelRequest returns the cancel request of a pgx connection (see netConns.cancelRequest).
func pgCancelRequest(dc driver.Conn) func(context.Context) error {
	if c, ok := dc.(*stdlib.Conn); ok {
		return c.Conn().PgConn().CancelRequest
	}
	return nil
}

// parsePostgresDSN parses the DSN of an existing server with pgx's own parser. The error never
// shows the DSN or its password: pgx's own message quotes the DSN (with what it recognises as a
// password masked), so only its reason is kept.
func parsePostgresDSN(dsn string) (*pgx.ConnConfig, error) {
	pc, err := pgx.ParseConfig(dsn)
	if err == nil {
		return pc, nil
	}
	reason := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		bare := *pe
		bare.ConnString = ""
		reason = strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	}
	if files, ok := pgTLSFileError(reason); ok {
		return nil, fmt.Errorf("postgres: the DSN's TLS files: %s (sslrootcert= names the CA that signed the server's certificate, sslcert= and sslkey= a client certificate and its key, each a PEM file)",
			redact.Text(files, redact.Secrets(dsn)...))
	}
	return nil, fmt.Errorf("postgres: the DSN is not a valid connection string or URL (host=... port=... dbname=... or postgres://...): %s",
		redact.Text(reason, redact.Secrets(dsn)...))
}

// pgTLSFileError returns what pgx's reason for refusing a DSN says of its TLS files, in
// plainer words, and whether the reason is about them.
func pgTLSFileError(reason string) (string, bool) {
	inner, ok := strings.CutPrefix(reason, "failed to configure TLS (")
	if !ok {
		return "", false
	}
	inner = strings.TrimSuffix(inner, ")")
	switch inner {
	case "unable to add CA to cert pool":
		return "the sslrootcert file holds no PEM certificate", true
	case "failed to decode sslkey":
		return "the sslkey file holds no PEM key", true
	}
	return inner, true
}

// managedPostgresConnString returns the connection string of the managed server srv: its
// private socket directory, its user and the benchmark database.
func managedPostgresConnString(srv *server.Server) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		pgQuote(srv.SocketDir()), srv.Port(), pgQuote(srv.User()), pgQuote(srv.Database()))
}
