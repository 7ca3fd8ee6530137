//go:build cgo

package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/enginebench/enginebench/internal/engine"
)

// sqliteMaxIdleConns is how many idle connections the pool keeps. SQLite's page cache belongs to
// a connection, so a connection that is closed and reopened between two steps starts cold; the
// pool keeps enough of them for every client of the largest presets.
const sqliteMaxIdleConns = 64

// sqliteModule is the Go module that compiles SQLite in and drives it.
const sqliteModule = "github.com/mattn/go-sqlite3"

// sqliteAvailable reports that SQLite is always available in a cgo build: it is compiled in.
func sqliteAvailable() error { return nil }

// sqliteRetryable reports whether err wraps SQLITE_BUSY or SQLITE_LOCKED.
func sqliteRetryable(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	var no sqlite3.ErrNo
	if errors.As(err, &no) {
		return no == sqlite3.ErrBusy || no == sqlite3.ErrLocked
	}
	return false
}

// sqliteDuplicateKey reports whether err wraps SQLITE_CONSTRAINT_PRIMARYKEY or
// SQLITE_CONSTRAINT_UNIQUE.
func sqliteDuplicateKey(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique
}

// sqliteDB is an open sqlite engine.
type sqliteDB struct {
	db      *sql.DB
	path    string
	cfg     sqliteConfig
	version string
	// compileOptions is PRAGMA compile_options' answer, space-separated.
	compileOptions string
}

var (
	_ DB               = (*sqliteDB)(nil)
	_ engine.Cleaner   = (*sqliteDB)(nil)
	_ engine.Statser   = (*sqliteDB)(nil)
	_ engine.DataFiler = (*sqliteDB)(nil)
	_ engine.Builder   = (*sqliteDB)(nil)
)

// openSQLite opens <cfg.DataDir>/sqlite.db with a pool whose connections all carry the pragmas of
// the settings, and checks that the ones SQLite may silently ignore are in force.
func openSQLite(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	if cfg.DataDir == "" {
		return nil, errors.New("sqlite: open: no data directory")
	}
	c, err := parseSQLiteConfig(cfg.Settings)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("sqlite: data directory %q: %w", cfg.DataDir, err)
	}
	path := filepath.Join(dir, sqliteFile)

	// A file: URI, so that any character of the path is escaped. go-sqlite3 reads its own
	// parameters (those starting with _) from the query; SQLite ignores them.
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: url.Values{
		"_txlock":       {"immediate"},
		"_busy_timeout": {strconv.Itoa(c.busyTimeoutMS)},
	}.Encode()}).String()
	conn := &sqliteConnector{dsn: dsn}
	conn.drv = &sqlite3.SQLiteDriver{ConnectHook: c.configure}

	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(sqliteMaxIdleConns)
	e := &sqliteDB{db: db, path: path, cfg: c}
	if err := e.init(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

// init opens the first connection (which creates the database with its page size and journal
// mode), reads the version and the compile options, and checks the settings that SQLite may ignore without an error.
func (e *sqliteDB) init(ctx context.Context) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", e.path, err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&e.version); err != nil {
		return fmt.Errorf("sqlite: select sqlite_version(): %w", err)
	}
	if e.compileOptions, err = compileOptions(ctx, conn); err != nil {
		return err
	}
	var pageSize, mmapSize int64
	if err := conn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return fmt.Errorf("sqlite: read page_size: %w", err)
	}
	if pageSize != int64(e.cfg.pageSize) {
		return fmt.Errorf("sqlite: setting %s: %d is not in force: %s already exists with pages of %d bytes",
			sqlitePageSize, e.cfg.pageSize, e.path, pageSize)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmapSize); err != nil {
		return fmt.Errorf("sqlite: read mmap_size: %w", err)
	}
	if want := int64(e.cfg.mmapMB) << 20; mmapSize != want {
		return fmt.Errorf("sqlite: setting %s: %d is above this SQLite's limit of %d bytes (SQLITE_MAX_MMAP_SIZE)",
			sqliteMmapMB, e.cfg.mmapMB, mmapSize)
	}
	return nil
}

// compileOptions returns PRAGMA compile_options' rows, space-separated.
func compileOptions(ctx context.Context, conn *sql.Conn) (string, error) {
	rows, err := conn.QueryContext(ctx, "PRAGMA compile_options")
	if err != nil {
		return "", fmt.Errorf("sqlite: pragma compile_options: %w", err)
	}
	defer rows.Close()
	var opts []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return "", fmt.Errorf("sqlite: pragma compile_options: %w", err)
		}
		opts = append(opts, o)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("sqlite: pragma compile_options: %w", err)
	}
	return strings.Join(opts, " "), nil
}

// configure runs the pragmas on a new connection of the pool and checks the answers of those
// that must be read back.
func (c sqliteConfig) configure(conn *sqlite3.SQLiteConn) error {
	for _, p := range c.pragmas() {
		got, err := queryFirst(conn, p.stmt)
		if err != nil {
			return fmt.Errorf("sqlite: setting %s: %s: %w", p.setting, p.stmt, err)
		}
		if p.want != "" && got != p.want {
			return fmt.Errorf("sqlite: setting %s: %s is not in force (SQLite answered %q)", p.setting, p.want, got)
		}
	}
	return nil
}

// queryFirst runs stmt on conn and returns the first column of its first row as text, or "" if
// it returns no row.
func queryFirst(conn *sqlite3.SQLiteConn, stmt string) (string, error) {
	rows, err := conn.Query(stmt, nil)
	if err != nil {
		return "", err
	}
	var got string
	if cols := rows.Columns(); len(cols) > 0 {
		dest := make([]driver.Value, len(cols))
		err := rows.Next(dest)
		switch {
		case errors.Is(err, io.EOF):
		case err != nil:
			rows.Close()
			return "", err
		default:
			if b, ok := dest[0].([]byte); ok {
				got = string(b)
			} else {
				got = fmt.Sprint(dest[0])
			}
		}
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	return got, nil
}

// sqliteConnector opens connections of the pool through a private go-sqlite3 driver value, so
// that nothing is registered globally with database/sql.
type sqliteConnector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

// Connect opens and configures a connection; SQLite's open cannot be canceled once started.
func (c *sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.drv.Open(c.dsn)
}

// Driver returns the underlying go-sqlite3 driver.
func (c *sqliteConnector) Driver() driver.Driver { return c.drv }

// Family returns engine.FamilySQL.
func (e *sqliteDB) Family() engine.Family { return engine.FamilySQL }

// Version is the SQLite library version, from select sqlite_version().
func (e *sqliteDB) Version() string { return e.version }

// Build records the SQLite library's version and compile options, and go-sqlite3's module,
// which compiles it in.
func (e *sqliteDB) Build() map[string]string {
	b := engine.EmbeddedBuild("sqlite", e.version, sqliteModule)
	if e.compileOptions != "" {
		b[engine.BuildCompileOptions] = e.compileOptions
	}
	return b
}

// Settings returns every effective setting, normalized (lower case, decimal integers).
func (e *sqliteDB) Settings() map[string]string { return e.cfg.settings() }

// SQL returns the connection pool.
func (e *sqliteDB) SQL() *sql.DB { return e.db }

// Dialect returns sqliteDialect.
func (e *sqliteDB) Dialect() Dialect { return sqliteDialect{} }

// Close closes the pool. The last connection to close checkpoints the WAL into the database.
func (e *sqliteDB) Close() error {
	if err := e.db.Close(); err != nil {
		return fmt.Errorf("sqlite: close %s: %w", e.path, err)
	}
	return nil
}

// IsDataFile reports whether rel holds the database: the database file and its WAL (where
// committed pages live until a checkpoint), not the shared-memory index.
func (e *sqliteDB) IsDataFile(rel string) bool { return rel == sqliteFile || rel == sqliteFile+"-wal" }

// Stats returns wal_bytes (size of sqlite.db-wal, 0 when there is none), db_bytes (size of
// sqlite.db), page_count, freelist_count and page_size.
func (e *sqliteDB) Stats(ctx context.Context) (map[string]float64, error) {
	st := make(map[string]float64, 5)
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: stats: %w", err)
	}
	defer conn.Close()
	for _, p := range []string{"page_count", "freelist_count", "page_size"} {
		var v int64
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			return nil, fmt.Errorf("sqlite: stats: pragma %s: %w", p, err)
		}
		st[p] = float64(v)
	}
	for key, name := range map[string]string{"db_bytes": e.path, "wal_bytes": e.path + "-wal"} {
		n, err := fileSize(name)
		if err != nil {
			return nil, fmt.Errorf("sqlite: stats: %w", err)
		}
		st[key] = float64(n)
	}
	return st, nil
}

// fileSize returns the size of the file name, or 0 if it does not exist.
func fileSize(name string) (int64, error) {
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Cgo implements engine.Cgo: the library is C, reached through cgo.
func (*sqliteDB) Cgo() {}
