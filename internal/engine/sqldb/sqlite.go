package sqldb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
)

// sqliteFile is the name of the SQLite database file inside the engine's data directory. Its
// write-ahead log is sqliteFile + "-wal".
const sqliteFile = "sqlite.db"

// The settings of the sqlite engine.
const (
	sqliteJournalMode       = "journal_mode"
	sqliteSynchronous       = "synchronous"
	sqliteBusyTimeoutMS     = "busy_timeout_ms"
	sqliteCacheMB           = "cache_mb"
	sqlitePageSize          = "page_size"
	sqliteMmapMB            = "mmap_mb"
	sqliteWALAutocheckpoint = "wal_autocheckpoint"
	sqliteTempStore         = "temp_store"
)

// Accepted values of the enumerated settings, in the order error messages list them.
var (
	sqliteJournalModes = []string{"delete", "truncate", "persist", "memory", "wal", "off"}
	sqliteSyncModes    = []string{"off", "normal", "full", "extra"}
	sqliteTempStores   = []string{"default", "file", "memory"}
)

// sqliteSettings is the documented list of settings; every pragma the engine sets is here.
func sqliteSettings() []engine.Setting {
	return []engine.Setting{
		{Name: sqliteJournalMode, Default: "wal",
			Doc: "PRAGMA journal_mode: " + strings.Join(sqliteJournalModes, ", ")},
		{Name: sqliteSynchronous, Default: "normal",
			Doc: "PRAGMA synchronous: " + strings.Join(sqliteSyncModes, ", ") +
				" (normal in WAL mode syncs only at checkpoints: durable against crashes, not power loss)"},
		{Name: sqliteBusyTimeoutMS, Default: "60000",
			Doc: "PRAGMA busy_timeout in milliseconds: concurrent clients queue on the write lock instead of failing with SQLITE_BUSY; 0 fails at once"},
		{Name: sqliteCacheMB, Default: "64",
			Doc: "page cache per connection in MiB (PRAGMA cache_size = -cache_mb*1024, i.e. in KiB)"},
		{Name: sqlitePageSize, Default: "4096",
			Doc: "PRAGMA page_size in bytes, a power of two in [512, 65536]; set before the first table, so it shapes a new database only"},
		{Name: sqliteMmapMB, Default: "0",
			Doc: "PRAGMA mmap_size in MiB: how much of the database file is read through mmap; 0 disables memory-mapped I/O"},
		{Name: sqliteWALAutocheckpoint, Default: "1000",
			Doc: "PRAGMA wal_autocheckpoint in pages: a commit checkpoints once the WAL holds this many pages; 0 disables automatic checkpoints"},
		{Name: sqliteTempStore, Default: "memory",
			Doc: "PRAGMA temp_store: " + strings.Join(sqliteTempStores, ", ") + " (where temporary tables and sort spills live)"},
	}
}

// SQLiteDriver returns the driver of the "sqlite" engine: real SQLite (the amalgamation bundled
// with github.com/mattn/go-sqlite3, through cgo) on the file <DataDir>/sqlite.db.
//
// Every connection of the pool gets the pragmas of the settings when it is opened, and every
// transaction begins with BEGIN IMMEDIATE, so that concurrent writers wait for the write lock
// (up to busy_timeout_ms) instead of failing with SQLITE_BUSY when a read lock cannot be upgraded.
// Read-only work should therefore not be wrapped in a transaction: it would take the write lock.
//
// The engine implements DB, engine.Cleaner (a truncating WAL checkpoint) and engine.Statser.
func SQLiteDriver() engine.Driver {
	return engine.Driver{
		Name:      "sqlite",
		Family:    engine.FamilySQL,
		Snapshots: true, // a read transaction in WAL mode (Dialect.BeginSnapshot)
		Description: "SQLite (B-tree, WAL) embedded through github.com/mattn/go-sqlite3; " +
			"transactions begin IMMEDIATE, so writers queue on the busy timeout",
		Settings:    sqliteSettings(),
		Available:   sqliteAvailable,
		Open:        openSQLite,
		CapDefaults: sqliteCapDefaults,
		CheckSettings: func(o map[string]string) error {
			_, err := parseSQLiteConfig(o)
			return err
		},
	}
}

// sqliteCapConns is the number of connections whose page caches sqliteCapDefaults fits in a cap.
const sqliteCapConns = 16

// sqliteCapDefaults returns the settings of the engine under a memory cap of capBytes
// (engine.Driver.CapDefaults): a page cache per connection of C/64 (at most the default 64
// MiB), so that the caches of 16 connections take a quarter of the cap. SQLite has no direct
// IO: its reads go through the page cache, which the cap charges and which has the rest.
func sqliteCapDefaults(capBytes int64) map[string]string {
	return map[string]string{
		sqliteCacheMB: strconv.FormatInt(min(engine.CapMiB(capBytes, 4*sqliteCapConns, 1), 64), 10),
	}
}

// sqliteConfig is the parsed, validated form of the engine settings.
type sqliteConfig struct {
	journalMode       string
	synchronous       string
	busyTimeoutMS     int
	cacheMB           int
	pageSize          int
	mmapMB            int
	walAutocheckpoint int
	tempStore         string
}

// parseSQLiteConfig merges overrides over the defaults and validates every value. Names are
// not checked here: the registry rejects unknown names before Open.
func parseSQLiteConfig(overrides map[string]string) (sqliteConfig, error) {
	m := engine.MergeSettings(sqliteSettings(), overrides)
	var c sqliteConfig
	var err error
	if c.journalMode, err = engine.EnumSetting("sqlite", m, sqliteJournalMode, sqliteJournalModes); err != nil {
		return c, err
	}
	if c.synchronous, err = engine.EnumSetting("sqlite", m, sqliteSynchronous, sqliteSyncModes); err != nil {
		return c, err
	}
	if c.tempStore, err = engine.EnumSetting("sqlite", m, sqliteTempStore, sqliteTempStores); err != nil {
		return c, err
	}
	// The upper bounds keep every derived pragma value (milliseconds, KiB, bytes) within the
	// ranges SQLite takes, and are far beyond any sensible configuration.
	if c.busyTimeoutMS, err = engine.IntSetting("sqlite", m, sqliteBusyTimeoutMS, 0, 1<<31-1); err != nil {
		return c, err
	}
	if c.cacheMB, err = engine.IntSetting("sqlite", m, sqliteCacheMB, 0, 1<<30); err != nil {
		return c, err
	}
	if c.mmapMB, err = engine.IntSetting("sqlite", m, sqliteMmapMB, 0, 1<<30); err != nil {
		return c, err
	}
	if c.walAutocheckpoint, err = engine.IntSetting("sqlite", m, sqliteWALAutocheckpoint, 0, 1<<31-1); err != nil {
		return c, err
	}
	if c.pageSize, err = engine.IntSetting("sqlite", m, sqlitePageSize, 0, 65536); err != nil {
		return c, err
	}
	if c.pageSize < 512 || c.pageSize&(c.pageSize-1) != 0 {
		return c, fmt.Errorf("sqlite: setting %s: %q is not a power of two between 512 and 65536",
			sqlitePageSize, m[sqlitePageSize])
	}
	return c, nil
}

// settings returns the effective settings in the normalized form of their values.
func (c sqliteConfig) settings() map[string]string {
	return map[string]string{
		sqliteJournalMode:       c.journalMode,
		sqliteSynchronous:       c.synchronous,
		sqliteBusyTimeoutMS:     strconv.Itoa(c.busyTimeoutMS),
		sqliteCacheMB:           strconv.Itoa(c.cacheMB),
		sqlitePageSize:          strconv.Itoa(c.pageSize),
		sqliteMmapMB:            strconv.Itoa(c.mmapMB),
		sqliteWALAutocheckpoint: strconv.Itoa(c.walAutocheckpoint),
		sqliteTempStore:         c.tempStore,
	}
}

// sqlitePragma is one statement that configures a connection. If want is set, the statement's
// answer must equal it: SQLite answers a journal mode it cannot switch to with the mode it keeps,
// not with an error.
type sqlitePragma struct {
	setting string
	stmt    string
	want    string
}

// pragmas returns the statements that configure a new connection, in the order they must run:
// page_size before journal_mode, because switching a new database to WAL writes its first page.
func (c sqliteConfig) pragmas() []sqlitePragma {
	return []sqlitePragma{
		{sqlitePageSize, fmt.Sprintf("PRAGMA page_size = %d", c.pageSize), ""},
		{sqliteJournalMode, "PRAGMA journal_mode = " + c.journalMode, c.journalMode},
		{sqliteSynchronous, "PRAGMA synchronous = " + c.synchronous, ""},
		{sqliteCacheMB, fmt.Sprintf("PRAGMA cache_size = %d", -int64(c.cacheMB)*1024), ""},
		{sqliteMmapMB, fmt.Sprintf("PRAGMA mmap_size = %d", int64(c.mmapMB)<<20), ""},
		{sqliteWALAutocheckpoint, fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", c.walAutocheckpoint), ""},
		{sqliteTempStore, "PRAGMA temp_store = " + c.tempStore, ""},
	}
}

// sqliteDialect is the Dialect of SQLite. Its zero value is ready to use.
type sqliteDialect struct{}

var _ Dialect = sqliteDialect{}

// Name returns "sqlite".
func (sqliteDialect) Name() string { return SQLite.String() }

// Kind returns SQLite.
func (sqliteDialect) Kind() Kind { return SQLite }

// Server returns false: SQLite is a library in the process, on one file.
func (sqliteDialect) Server() bool { return false }

// Placeholder returns "?": SQLite binds parameters by position.
func (sqliteDialect) Placeholder(int) string { return "?" }

// Type maps portable column types to SQLite's storage classes: every integer type, and
// Timestamp (unix seconds), is INTEGER; VarChar and Text are TEXT; VarBinary and Blob are BLOB
// (SQLite enforces no length, so size is ignored). An unknown ColType yields "".
func (sqliteDialect) Type(t ColType, _ int) string {
	switch t {
	case BigInt, Int, TinyInt, Timestamp:
		return "INTEGER"
	case VarChar, Text:
		return "TEXT"
	case VarBinary, Blob:
		return "BLOB"
	}
	return ""
}

// AutoIncrementPK returns "INTEGER PRIMARY KEY": the column becomes an alias of the rowid, the
// key of the table's B-tree. An insert that leaves it NULL gets max(rowid)+1, so ids are assigned
// in insert order and the primary key is append-only. (Without AUTOINCREMENT an id can be reused
// only after the row with the largest id is deleted, which a queue that deletes its oldest rows
// never does.)
func (sqliteDialect) AutoIncrementPK() string { return "INTEGER PRIMARY KEY" }

// TableOptions returns "": SQLite needs no table options.
func (sqliteDialect) TableOptions() string { return "" }

// IndexHint returns " INDEXED BY <index>". SQLite fails to prepare the statement if the index
// does not exist or cannot be used for it.
func (sqliteDialect) IndexHint(index string) string { return " INDEXED BY " + index }

// PrimaryKeyHint returns " NOT INDEXED", which makes a query on a table whose primary key is
// INTEGER PRIMARY KEY, or on a WITHOUT ROWID table, read the table's own B-tree (lookups and
// ranges of its key still apply) rather than a smaller covering secondary index.
func (sqliteDialect) PrimaryKeyHint() string { return " NOT INDEXED" }

// DeleteOldest returns
//
//	DELETE FROM table WHERE pk IN (SELECT pk FROM table WHERE pk >= ? ORDER BY pk LIMIT limit)
//
// because the bundled SQLite is built without DELETE ... ORDER BY ... LIMIT.
func (sqliteDialect) DeleteOldest(table, pk string, limit int) string {
	return fmt.Sprintf("DELETE FROM %[1]s WHERE %[2]s IN (SELECT %[2]s FROM %[1]s WHERE %[2]s >= ? ORDER BY %[2]s LIMIT %[3]d)",
		table, pk, limit)
}

// Retryable reports whether err (or an error it wraps) is SQLITE_BUSY or SQLITE_LOCKED.
func (sqliteDialect) Retryable(err error) bool { return sqliteRetryable(err) }

// TimestampFromUnix returns arg: SQLite stores a Timestamp as its integer of unix seconds.
func (sqliteDialect) TimestampFromUnix(arg string) string { return arg }

// TimestampToUnix returns col: a Timestamp column already holds unix seconds.
func (sqliteDialect) TimestampToUnix(col string) string { return col }

// ClusteredPK returns " WITHOUT ROWID": the table is a B-tree keyed by its primary key, not a
// rowid table with a separate index on it.
func (sqliteDialect) ClusteredPK() string { return " WITHOUT ROWID" }

// BeginWrite returns "BEGIN IMMEDIATE", which takes the database's write lock at once (waiting
// up to busy_timeout_ms for it), as every transaction of the engine's pool does.
func (sqliteDialect) BeginWrite() string { return "BEGIN IMMEDIATE" }

// BeginSnapshot returns BEGIN DEFERRED: the transaction's first read takes a read lock and,
// in WAL mode, the WAL's end as its snapshot, past which no checkpoint may go while it lasts
// (the WAL grows). Outside WAL mode the read lock blocks every writer (SnapshotBlocksWriters).
func (sqliteDialect) BeginSnapshot() []string { return []string{"BEGIN DEFERRED"} }

// ForUpdate returns "": SQLite has no row locks, and a transaction begun with BeginWrite holds
// the only write lock until it ends.
func (sqliteDialect) ForUpdate() string { return "" }

// Upsert returns INSERT INTO table (cols) VALUES (?, ...) ON CONFLICT (key) DO UPDATE SET set.
func (sqliteDialect) Upsert(table string, cols, key []string, set string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" +
		placeholders(sqliteDialect{}, 1, len(cols)) + ") ON CONFLICT (" + strings.Join(key, ", ") +
		") DO UPDATE SET " + set
}

// Returning returns "": the driver's LastInsertId is the rowid of the inserted row, which an
// INTEGER PRIMARY KEY column is.
func (sqliteDialect) Returning(string) string { return "" }

// AdvanceSequence returns "": an INTEGER PRIMARY KEY column gets the largest value of the
// column plus one, whether the values were assigned or inserted explicitly. (A value can come
// back only after the row holding the largest one is deleted.)
func (sqliteDialect) AdvanceSequence(string, string) string { return "" }

// DeleteWithHint returns DELETE FROM table<hint> WHERE where: SQLite takes INDEXED BY and NOT
// INDEXED in DELETE.
func (sqliteDialect) DeleteWithHint(table, hint, where string) string {
	return "DELETE FROM " + table + hint + " WHERE " + where
}

// DuplicateKey reports whether err (or an error it wraps) is SQLITE_CONSTRAINT_PRIMARYKEY or
// SQLITE_CONSTRAINT_UNIQUE.
func (sqliteDialect) DuplicateKey(err error) bool { return sqliteDuplicateKey(err) }

// MaxParams returns 32766, SQLITE_MAX_VARIABLE_NUMBER of the bundled SQLite.
func (sqliteDialect) MaxParams() int { return 32766 }

// placeholders returns the placeholders of d for the n arguments first, first+1, ... joined
// with ", ".
func placeholders(d Dialect, first, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(d.Placeholder(first + i))
	}
	return sb.String()
}

// RowValueSeek implements Dialect: SQLite seeks an index to a row-value comparison on its
// leading columns, where the expanded OR becomes a multi-index OR followed by a sort.
func (sqliteDialect) RowValueSeek() bool { return true }

// IndexOrderSettings implements Dialect: INDEXED BY chooses the index.
func (sqliteDialect) IndexOrderSettings() []string { return nil }
