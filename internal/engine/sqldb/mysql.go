package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/enginebench/enginebench/internal/redact"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
)

// The innodb and myrocks engines: MariaDB (or, with a DSN, any MySQL-protocol server) through
// github.com/go-sql-driver/mysql, with tables of ENGINE=<table_engine>: InnoDB or ROCKSDB by
// default. They share everything but their settings, stats, cleanup and data files.

// Polling of the MyRocks cleanup (mysql_cleanup.go): how often the server is asked, and how
// many settled readings in a row end a wait for compactions.
const (
	mysqlCleanupPoll  = 250 * time.Millisecond
	rocksSettleChecks = 3
)

// mysqlTimeZone is the session time zone of every connection: FROM_UNIXTIME and
// UNIX_TIMESTAMP convert unix seconds in it, and UTC has no daylight saving gap in which a
// value could not round-trip.
const mysqlTimeZone = "'+00:00'"

// InnoDBDriver returns the driver of the "innodb" engine: MariaDB's InnoDB through
// github.com/go-sql-driver/mysql, on a managed MariaDB server (package server) started on
// Config.DataDir with the settings merged over innodbSettings, or on an existing server given by
// Config.DSN (a go-sql-driver/mysql DSN naming a database), where it creates nothing but the
// benchmark tables. The setting table_engine (a Client setting, also taken with a DSN) names
// the storage engine of the tables.
//
// The engine implements DB, engine.Server, engine.Liveness, engine.Cleaner, engine.Statser,
// engine.DatabaseSizer and engine.DataFiler. Statements a workload prepares on a connection are server-side prepared
// statements.
func InnoDBDriver() engine.Driver {
	return newServerDriver(serverDriverSpec{
		name: "innodb",
		description: "MariaDB InnoDB (clustered B-tree, MVCC with purge) through github.com/go-sql-driver/mysql; " +
			"a managed server, or an existing one with --dsn",
		kind:        server.MariaDB,
		install:     baseDir,
		settings:    innodbSettings(),
		versioned:   mysqlVersioned("innodb"),
		available:   func() error { return server.Available(server.MariaDB) },
		checkClient: checkMySQLClient("innodb"),
		checkDSN:    func(dsn string) error { _, err := parseMySQLDSN("innodb", dsn); return err },
		capDefaults: innodbCapDefaults,
		open: func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
			return openMySQL(ctx, cfg, "innodb", false)
		},
	})
}

// MyRocksDriver returns the driver of the "myrocks" engine: MariaDB's MyRocks (RocksDB) through
// github.com/go-sql-driver/mysql, like InnoDBDriver with tables of ENGINE=ROCKSDB (by default) and
// the plugin loaded on a managed server.
func MyRocksDriver() engine.Driver {
	return newServerDriver(serverDriverSpec{
		name: "myrocks",
		description: "MariaDB MyRocks (RocksDB LSM) through github.com/go-sql-driver/mysql; " +
			"a managed server, or an existing one with --dsn",
		kind:        server.MariaDB,
		install:     baseDir,
		settings:    myrocksSettings(),
		versioned:   mysqlVersioned("myrocks"),
		checkClient: checkMySQLClient("myrocks"),
		checkDSN:    func(dsn string) error { _, err := parseMySQLDSN("myrocks", dsn); return err },
		capDefaults: myrocksCapDefaults,
		available: func() error {
			if err := server.Available(server.MariaDB); err != nil {
				return err
			}
			return server.AvailablePlugin("ha_rocksdb")
		},
		open: func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
			return openMySQL(ctx, cfg, "myrocks", true)
		},
	})
}

// mysqlDialect is the Dialect of MySQL and MariaDB. storage is the storage engine of the tables
// (InnoDB, ROCKSDB); empty leaves the server's default.
type mysqlDialect struct {
	storage string
}

var _ Dialect = mysqlDialect{}

// Name returns "mysql".
func (mysqlDialect) Name() string { return MySQL.String() }

// Kind returns MySQL.
func (mysqlDialect) Kind() Kind { return MySQL }

// Server returns true: MySQL and MariaDB are servers.
func (mysqlDialect) Server() bool { return true }

// Placeholder returns "?".
func (mysqlDialect) Placeholder(int) string { return "?" }

// Type maps portable column types to BIGINT, INT, TINYINT, DATETIME (as the reference's
// dateandtime; 5 bytes), VARCHAR(size), TEXT, VARBINARY(size), and for Blob the smallest of
// BLOB, MEDIUMBLOB and LONGBLOB that holds size bytes. An unknown ColType yields "".
func (mysqlDialect) Type(t ColType, size int) string {
	switch t {
	case BigInt:
		return "BIGINT"
	case Int:
		return "INT"
	case TinyInt:
		return "TINYINT"
	case Timestamp:
		return "DATETIME"
	case VarChar:
		return fmt.Sprintf("VARCHAR(%d)", max(size, 1))
	case Text:
		return "TEXT"
	case VarBinary:
		return fmt.Sprintf("VARBINARY(%d)", max(size, 1))
	case Blob:
		switch {
		case size < 1<<16:
			return "BLOB"
		case size < 1<<24:
			return "MEDIUMBLOB"
		}
		return "LONGBLOB"
	}
	return ""
}

// AutoIncrementPK returns "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY": the table is clustered on
// it (InnoDB) or keyed by it (MyRocks), in insert order.
func (mysqlDialect) AutoIncrementPK() string { return "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY" }

// TableOptions returns " ENGINE=<storage>", or "" when storage is empty.
func (d mysqlDialect) TableOptions() string {
	if d.storage == "" {
		return ""
	}
	return " ENGINE=" + d.storage
}

// IndexHint returns " FORCE INDEX (index)", as the reference's queries.
func (mysqlDialect) IndexHint(index string) string { return " FORCE INDEX (" + index + ")" }

// PrimaryKeyHint returns " FORCE INDEX (PRIMARY)".
func (mysqlDialect) PrimaryKeyHint() string { return " FORCE INDEX (PRIMARY)" }

// DeleteOldest returns DELETE FROM table WHERE pk >= ? ORDER BY pk LIMIT limit.
func (mysqlDialect) DeleteOldest(table, pk string, limit int) string {
	return fmt.Sprintf("DELETE FROM %[1]s WHERE %[2]s >= ? ORDER BY %[2]s LIMIT %[3]d", table, pk, limit)
}

// Retryable reports whether err (or an error it wraps) is a server error 1213 (deadlock; MyRocks
// also reports snapshot conflicts with it), 1205 (lock wait timeout, InnoDB's and MyRocks') or
// 1020 (record changed since last read: InnoDB with innodb_snapshot_isolation). A lost
// connection is not retryable.
func (mysqlDialect) Retryable(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1213, 1205, 1020:
		return true
	}
	return false
}

// TimestampFromUnix returns FROM_UNIXTIME(arg); every connection of the engine uses the time
// zone UTC, so that the value reads back unchanged.
func (mysqlDialect) TimestampFromUnix(arg string) string { return "FROM_UNIXTIME(" + arg + ")" }

// TimestampToUnix returns UNIX_TIMESTAMP(col).
func (mysqlDialect) TimestampToUnix(col string) string { return "UNIX_TIMESTAMP(" + col + ")" }

// ClusteredPK returns "": InnoDB and MyRocks tables are always stored in primary key order.
func (mysqlDialect) ClusteredPK() string { return "" }

// BeginWrite returns "START TRANSACTION" (REPEATABLE READ, the server's default).
func (mysqlDialect) BeginWrite() string { return "START TRANSACTION" }

// BeginSnapshot returns SET TRANSACTION ISOLATION LEVEL REPEATABLE READ (for the next
// transaction only: a server may default to READ COMMITTED, whose read view, or MyRocks
// snapshot, lasts one statement) and START TRANSACTION WITH CONSISTENT SNAPSHOT, which takes
// the read view (InnoDB: it holds back purge, the history list grows) or the RocksDB snapshot
// (MyRocks: compactions keep the versions it sees) at once.
func (mysqlDialect) BeginSnapshot() []string {
	return []string{"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "START TRANSACTION WITH CONSISTENT SNAPSHOT"}
}

// ForUpdate returns " FOR UPDATE".
func (mysqlDialect) ForUpdate() string { return " FOR UPDATE" }

// Upsert returns INSERT INTO table (cols) VALUES (?, ...) ON DUPLICATE KEY UPDATE set (which
// applies to a conflict on any unique key: key is not needed).
func (mysqlDialect) Upsert(table string, cols, _ []string, set string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" +
		placeholders(mysqlDialect{}, 1, len(cols)) + ") ON DUPLICATE KEY UPDATE " + set
}

// Returning returns "": the driver's LastInsertId is the AUTO_INCREMENT value assigned.
func (mysqlDialect) Returning(string) string { return "" }

// AdvanceSequence returns "": InnoDB and MyRocks move a table's AUTO_INCREMENT counter past
// every value inserted explicitly.
func (mysqlDialect) AdvanceSequence(string, string) string { return "" }

// DeleteWithHint returns DELETE table FROM table<hint> WHERE where: only the multi-table form
// of DELETE takes index hints. (Without one, MyRocks may delete a row found by its full primary
// key through a secondary index range, locking every row of the range.)
func (mysqlDialect) DeleteWithHint(table, hint, where string) string {
	return "DELETE " + table + " FROM " + table + hint + " WHERE " + where
}

// DuplicateKey reports whether err (or an error it wraps) is a server error 1062 (duplicate
// entry for a key) or 1586 (the same, naming the key).
func (mysqlDialect) DuplicateKey(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1062 || me.Number == 1586)
}

// MaxParams returns 65535, the server's limit of placeholders in a prepared statement.
func (mysqlDialect) MaxParams() int { return 65535 }

// mysqlDB is an open innodb or myrocks engine.
type mysqlDB struct {
	serverCore
	rocks    bool   // myrocks
	database string // the benchmark database (the DSN's, or the managed server's)
}

var (
	_ DB                 = (*mysqlDB)(nil)
	_ engine.Server      = (*mysqlDB)(nil)
	_ engine.Liveness    = (*mysqlDB)(nil)
	_ engine.Cleaner     = (*mysqlDB)(nil)
	_ engine.Statser     = (*mysqlDB)(nil)
	_ engine.DataFiler   = (*mysqlDB)(nil)
	_ engine.LogResetter = (*mysqlDB)(nil)
)

// ResetLog removes the binary log of a managed server (RESET MASTER), as the reference's np.sh
// does before and after each step and iq.sh before its cleanup; a server without a binary log
// (--set innodb.skip_log_bin) has nothing to remove. On an existing server (--dsn) it does
// nothing: a user's binary logs are never removed.
func (e *mysqlDB) ResetLog(ctx context.Context) error {
	if e.srv == nil {
		return nil
	}
	_, err := e.db.ExecContext(ctx, "RESET MASTER")
	if me := (*mysql.MySQLError)(nil); errors.As(err, &me) && me.Number == mysqlBinlogClosed {
		return nil
	}
	if err != nil {
		return e.redact(fmt.Errorf("%s: RESET MASTER: %w", e.name, err))
	}
	return nil
}

// mysqlBinlogClosed is ER_FLUSH_MASTER_BINLOG_CLOSED: RESET MASTER without a binary log.
const mysqlBinlogClosed = 1186

// openMySQL opens the innodb or myrocks engine on a managed server or on the server of cfg.DSN.
func openMySQL(ctx context.Context, cfg engine.Config, name string, rocks bool) (engine.Engine, error) {
	defs := innodbSettings()
	if rocks {
		defs = myrocksSettings()
	}
	settings := engine.MergeSettings(defs, cfg.Settings)
	tableEngine := settings[tableEngineSetting]
	if err := checkTableEngine(name, tableEngine); err != nil {
		return nil, err
	}
	e := &mysqlDB{serverCore: serverCore{name: name, dialect: mysqlDialect{storage: tableEngine}}, rocks: rocks}
	var mc *mysql.Config
	if cfg.DSN == "" {
		settings, _, err := mysqlVersioned(name)(settings, cfg.Settings)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		srv, err := startManaged(ctx, name, server.MariaDB, baseDir, cfg, defs, settings)
		if err != nil {
			return nil, err
		}
		e.srv, e.version, e.settings = srv, srv.Version(), settings
		mc = managedMySQLConfig(srv)
		if mc.Passwd != "" {
			e.secrets = []string{mc.Passwd}
		}
	} else {
		e.secrets, e.dbPID = redact.Secrets(cfg.DSN), cfg.DBPID
		var err error
		if mc, err = parseMySQLDSN(name, cfg.DSN); err != nil {
			return nil, err
		}
		if mc.Passwd != "" {
			e.secrets = append(e.secrets, mc.Passwd)
		}
	}
	e.database, e.address = mc.DBName, mc.Addr
	if err := e.connect(ctx, mc, tableEngine); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	if cfg.DSN != "" {
		if err := e.describeExternal(ctx, mc, defs); err != nil {
			return nil, errors.Join(err, e.Close())
		}
		e.settings[tableEngineSetting] = tableEngine
	}
	return e, nil
}

// tableEngineRE is what a storage engine's name may be: letters, digits and underscores.
var tableEngineRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// checkTableEngine checks the value of the table_engine setting of engine name.
func checkTableEngine(name, v string) error {
	if !tableEngineRE.MatchString(v) {
		return fmt.Errorf("%s: setting %s: %q is not a storage engine name (letters, digits, _)", name, tableEngineSetting, v)
	}
	return nil
}

// checkMySQLClient is the checkClient of the innodb and myrocks drivers.
func checkMySQLClient(name string) func(map[string]string) error {
	return func(overrides map[string]string) error {
		if v, ok := overrides[tableEngineSetting]; ok {
			return checkTableEngine(name, v)
		}
		return nil
	}
}

// connect opens the pool on mc and checks that the server answers and has the storage engine
// of the tables.
func (e *mysqlDB) connect(ctx context.Context, mc *mysql.Config, tableEngine string) error {
	if mc.Params == nil {
		mc.Params = map[string]string{}
	}
	mc.Params["time_zone"] = mysqlTimeZone
	// A statement run with arguments but not prepared is interpolated by the client and sent
	// as text (COM_QUERY), as the references' Python and Java clients send theirs; a statement
	// prepared with Prepare is prepared on the server (COM_STMT_PREPARE / EXECUTE).
	mc.InterpolateParams = true
	mc.Logger = &mysql.NopLogger{}
	if mc.Timeout == 0 {
		mc.Timeout = 30 * time.Second
	}
	mc.DialFunc = e.conns.wrapDial(mc.DialFunc)
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return e.redact(fmt.Errorf("%s: connection settings: %w", e.name, err))
	}
	e.db = sql.OpenDB(e.conns.connector(conn))
	e.db.SetMaxIdleConns(serverMaxIdleConns)
	if err := e.db.PingContext(ctx); err != nil {
		if e.srv == nil { // an existing server's DSN: its TLS faults told as hints
			err = mysqlTLSHint(err, mc.TLS)
		}
		return e.redact(fmt.Errorf("%s: connect to the server: %w", e.name, err))
	}
	return e.checkEngine(ctx, tableEngine)
}

// checkEngine checks that the server has the storage engine name enabled (information_schema.ENGINES
// says YES or DEFAULT), so that a missing one fails before any table is created (a server whose
// sql_mode lacks NO_ENGINE_SUBSTITUTION would silently create the tables with another engine).
func (e *mysqlDB) checkEngine(ctx context.Context, name string) error {
	rows, err := e.db.QueryContext(ctx, "SELECT ENGINE, SUPPORT FROM information_schema.ENGINES ORDER BY ENGINE")
	if err != nil {
		return e.redact(fmt.Errorf("%s: list the storage engines: %w", e.name, err))
	}
	defer rows.Close()
	var usable []string
	found := ""
	for rows.Next() {
		var eng, support string
		if err := rows.Scan(&eng, &support); err != nil {
			return e.redact(fmt.Errorf("%s: list the storage engines: %w", e.name, err))
		}
		if support != "YES" && support != "DEFAULT" {
			continue
		}
		usable = append(usable, eng)
		if strings.EqualFold(eng, name) {
			found = eng
		}
	}
	if err := rows.Err(); err != nil {
		return e.redact(fmt.Errorf("%s: list the storage engines: %w", e.name, err))
	}
	if found != "" {
		return nil
	}
	hint := ""
	if strings.EqualFold(name, "ROCKSDB") {
		hint = "; load the plugin ha_rocksdb"
	}
	return fmt.Errorf("%s: the server has no usable storage engine %q (setting %s; it has %s)%s",
		e.name, name, tableEngineSetting, strings.Join(usable, ", "), hint)
}

// describeExternal reads the version and the documented settings of an external server.
func (e *mysqlDB) describeExternal(ctx context.Context, mc *mysql.Config, defs []engine.Setting) error {
	if err := e.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&e.version); err != nil {
		return e.redact(fmt.Errorf("%s: read the server version: %w", e.name, err))
	}
	if i := strings.Index(e.version, "-MariaDB"); i >= 0 {
		e.version = e.version[:i+len("-MariaDB")]
	}
	var names []string
	for _, d := range defs {
		names = append(names, "'"+d.Name+"'")
	}
	rows, err := e.db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+strings.Join(names, ",")+")")
	if err != nil {
		return e.redact(fmt.Errorf("%s: read the server's settings: %w", e.name, err))
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return e.redact(fmt.Errorf("%s: read the server's settings: %w", e.name, err))
		}
		m[k] = v
	}
	if err := rows.Err(); err != nil {
		return e.redact(fmt.Errorf("%s: read the server's settings: %w", e.name, err))
	}
	m["dsn_host"] = mc.Addr
	m["dsn_database"] = mc.DBName
	e.settings = m
	return nil
}

// innodbStatus maps the stats keys of the innodb engine to their global status variables.
var innodbStatus = map[string]string{
	"history_list_length":   "INNODB_HISTORY_LIST_LENGTH",
	"dirty_pages":           "INNODB_BUFFER_POOL_PAGES_DIRTY",
	"data_pages":            "INNODB_BUFFER_POOL_PAGES_DATA",
	"pending_reads":         "INNODB_DATA_PENDING_READS",
	"pending_writes":        "INNODB_DATA_PENDING_WRITES",
	"pending_fsyncs":        "INNODB_DATA_PENDING_FSYNCS",
	"checkpoint_age_bytes":  "INNODB_CHECKPOINT_AGE",
	"buffer_pool_wait_free": "INNODB_BUFFER_POOL_WAIT_FREE",
	"log_waits":             "INNODB_LOG_WAITS",
	"row_lock_waits":        "INNODB_ROW_LOCK_WAITS",
	"deadlocks":             "INNODB_DEADLOCKS",
}

// myrocksStatus maps stats keys of the myrocks engine to their global status variables.
var myrocksStatus = map[string]string{
	"memtable_bytes":           "ROCKSDB_MEMTABLE_TOTAL",
	"stall_micros":             "ROCKSDB_STALL_MICROS",
	"stall_stops":              "ROCKSDB_STALL_TOTAL_STOPS",
	"stall_slowdowns":          "ROCKSDB_STALL_TOTAL_SLOWDOWNS",
	"flush_bytes_written":      "ROCKSDB_FLUSH_WRITE_BYTES",
	"compaction_bytes_written": "ROCKSDB_COMPACT_WRITE_BYTES",
	"compaction_bytes_read":    "ROCKSDB_COMPACT_READ_BYTES",
	"wal_bytes":                "ROCKSDB_WAL_BYTES",
	"row_lock_deadlocks":       "ROCKSDB_ROW_LOCK_DEADLOCKS",
	"row_lock_wait_timeouts":   "ROCKSDB_ROW_LOCK_WAIT_TIMEOUTS",
	"snapshot_conflicts":       "ROCKSDB_SNAPSHOT_CONFLICT_ERRORS",
}

// Stats returns the engine's debt. For innodb, from the global status:
//
//	history_list_length   undo log records not yet purged (purge lag)
//	dirty_pages           modified pages in the buffer pool not yet written
//	data_pages            pages in the buffer pool holding data
//	pending_reads         data file reads in progress
//	pending_writes        data file writes in progress
//	pending_fsyncs        data file fsyncs in progress
//	checkpoint_age_bytes  redo log written since the last checkpoint
//	buffer_pool_wait_free times a page had to wait for a free buffer (counter)
//	log_waits             times the log buffer was too small (counter)
//	row_lock_waits        row lock waits (counter)
//	deadlocks             deadlocks (counter)
//
// For myrocks, from the global status and information_schema.ROCKSDB_CFSTATS and
// ROCKSDB_COMPACTION_STATS, summed over the column families:
//
//	pending_compaction_bytes estimate of the bytes compaction must rewrite to bring every level
//	                         under its target size (RocksDB's estimate-pending-compaction-bytes,
//	                         which MariaDB does not expose, computed the same way from the
//	                         levels' sizes and scores)
//	compaction_pending       column families whose compaction score is 1 or more
//	compacting_files         SST files being compacted now
//	l0_files                 SST files in level 0
//	immutable_memtables      memtables waiting to be flushed
//	memtable_bytes           size of all memtables
//	stall_micros             time writes were stalled (counter)
//	stall_stops              write stops (counter)
//	stall_slowdowns          write slowdowns (counter)
//	flush_bytes_written      bytes written by memtable flushes (counter)
//	compaction_bytes_written bytes written by compactions (counter)
//	compaction_bytes_read    bytes read by compactions (counter)
//	wal_bytes                bytes written to the WAL (counter)
//	row_lock_deadlocks, row_lock_wait_timeouts, snapshot_conflicts (counters)
func (e *mysqlDB) Stats(ctx context.Context) (map[string]float64, error) {
	if e.rocks {
		return e.rocksStats(ctx)
	}
	vals, err := e.status(ctx, innodbStatus)
	if err != nil {
		return nil, e.redact(fmt.Errorf("%s: stats: %w", e.name, err))
	}
	return vals, nil
}

// status reads the global status variables of keys (key -> variable) as key -> value.
func (e *mysqlDB) status(ctx context.Context, keys map[string]string) (map[string]float64, error) {
	byVar := make(map[string]string, len(keys))
	names := make([]string, 0, len(keys))
	for k, v := range keys {
		byVar[v] = k
		names = append(names, v)
	}
	// SHOW GLOBAL STATUS rather than information_schema.GLOBAL_STATUS, which MySQL 8.0 lacks.
	rows, err := e.db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]float64, len(keys)+8)
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		if f, err := strconv.ParseFloat(value, 64); err == nil {
			out[byVar[strings.ToUpper(name)]] = f
		}
	}
	return out, rows.Err()
}

// rocksLevel is one level of a column family, from ROCKSDB_COMPACTION_STATS.
type rocksLevel struct {
	files, compacting, bytes, score float64
}

// rocksState is what the myrocks stats and cleanup read from the column families.
type rocksState struct {
	cf     map[string]float64             // ROCKSDB_CFSTATS stat type -> sum over column families
	levels map[string]map[int]*rocksLevel // column family -> level
}

// rocksState reads ROCKSDB_CFSTATS and the per-level ROCKSDB_COMPACTION_STATS in one query.
func (e *mysqlDB) rocksState(ctx context.Context) (rocksState, error) {
	const q = `SELECT 'cf', CF_NAME, STAT_TYPE, CAST(VALUE AS CHAR) FROM information_schema.ROCKSDB_CFSTATS
UNION ALL
SELECT LEVEL, CF_NAME, TYPE, CAST(VALUE AS CHAR) FROM information_schema.ROCKSDB_COMPACTION_STATS
WHERE LEVEL LIKE 'L%' AND TYPE IN ('NumFiles', 'CompactedFiles', 'SizeBytes', 'Score')`
	st := rocksState{cf: map[string]float64{}, levels: map[string]map[int]*rocksLevel{}}
	rows, err := e.db.QueryContext(ctx, q)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, cf, typ, value string
		if err := rows.Scan(&kind, &cf, &typ, &value); err != nil {
			return st, err
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		if kind == "cf" {
			st.cf[typ] += v
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(kind, "L"))
		if err != nil {
			continue
		}
		if st.levels[cf] == nil {
			st.levels[cf] = map[int]*rocksLevel{}
		}
		l := st.levels[cf][n]
		if l == nil {
			l = &rocksLevel{}
			st.levels[cf][n] = l
		}
		switch typ {
		case "NumFiles":
			l.files = v
		case "CompactedFiles":
			l.compacting = v
		case "SizeBytes":
			l.bytes = v
		case "Score":
			l.score = v
		}
	}
	return st, rows.Err()
}

// settled reports whether no flush or compaction is pending or running.
func (st rocksState) settled() bool {
	if st.cf["COMPACTION_PENDING"] > 0 || st.cf["MEM_TABLE_FLUSH_PENDING"] > 0 || st.cf["NUM_IMMUTABLE_MEM_TABLE"] > 0 {
		return false
	}
	for _, levels := range st.levels {
		for _, l := range levels {
			if l.compacting > 0 {
				return false
			}
		}
	}
	return true
}

// pendingCompactionBytes estimates RocksDB's estimate-pending-compaction-bytes of leveled
// compaction from the levels of one column family: level 0 is compacted whole once its score
// reaches 1, and each lower level's bytes above its target (size / score) move down, rewriting
// the overlapping part of the next level (in proportion to the two levels' sizes).
func pendingCompactionBytes(levels map[int]*rocksLevel) float64 {
	maxLevel := 0
	for n := range levels {
		maxLevel = max(maxLevel, n)
	}
	size := func(n int) float64 {
		if l := levels[n]; l != nil {
			return l.bytes
		}
		return 0
	}
	var total, carry float64
	if l0 := levels[0]; l0 != nil && l0.score >= 1 {
		carry = l0.bytes
		total += l0.bytes
	}
	for n := 1; n <= maxLevel; n++ {
		l := levels[n]
		if l == nil || (l.bytes == 0 && carry == 0) {
			continue
		}
		levelSize := l.bytes + carry
		carry = 0
		if l.score <= 0 || l.bytes == 0 {
			continue
		}
		target := l.bytes / l.score
		if levelSize > target {
			carry = levelSize - target
			total += carry * (size(n+1)/levelSize + 1)
		}
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return 0
	}
	return total
}

// rocksStats reads the myrocks stats (see Stats).
func (e *mysqlDB) rocksStats(ctx context.Context) (map[string]float64, error) {
	out, err := e.status(ctx, myrocksStatus)
	if err != nil {
		return nil, e.redact(fmt.Errorf("%s: stats: %w", e.name, err))
	}
	st, err := e.rocksState(ctx)
	if err != nil {
		return nil, e.redact(fmt.Errorf("%s: stats: %w", e.name, err))
	}
	var pending, l0, compacting float64
	for _, levels := range st.levels {
		pending += pendingCompactionBytes(levels)
		if l := levels[0]; l != nil {
			l0 += l.files
		}
		for _, l := range levels {
			compacting += l.compacting
		}
	}
	out["pending_compaction_bytes"] = pending
	out["l0_files"] = l0
	out["compacting_files"] = compacting
	out["compaction_pending"] = st.cf["COMPACTION_PENDING"]
	out["immutable_memtables"] = st.cf["NUM_IMMUTABLE_MEM_TABLE"]
	return out, nil
}

// sleepCtx sleeps for d, or returns ctx's error when it is done first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RowValueSeek implements Dialect: MariaDB's range optimizer does not use an index for a
// row-value inequality, but reads the expanded OR as ranges of the forced index, in order.
func (mysqlDialect) RowValueSeek() bool { return false }

// IndexOrderSettings implements Dialect: FORCE INDEX chooses the index.
func (mysqlDialect) IndexOrderSettings() []string { return nil }

// managedMySQLConfig returns the connection settings of the managed server srv: its private
// socket, its user, its password (when it listens on TCP too) and the benchmark database.
func managedMySQLConfig(srv *server.Server) *mysql.Config {
	mc := mysql.NewConfig()
	mc.Net, mc.Addr, mc.User, mc.DBName = "unix", srv.SocketPath(), srv.User(), srv.Database()
	mc.Passwd = srv.Password()
	return mc
}

// parseMySQLDSN parses the DSN of an existing server with go-sql-driver/mysql's own parser,
// after taking out enginebench's TLS parameters (mysqltls.go), which it then applies; it must
// name the database. The error never shows the DSN or its password.
func parseMySQLDSN(name, dsn string) (*mysql.Config, error) {
	rest, tlsParams, err := cutMySQLTLSParams(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	mc, err := mysql.ParseDSN(rest)
	if err != nil {
		return nil, fmt.Errorf("%s: the DSN is not a valid go-sql-driver/mysql DSN ([user[:password]@][net[(address)]]/database): %w", name,
			redact.Error(err, redact.Secrets(dsn)))
	}
	if mc.DBName == "" {
		return nil, fmt.Errorf("%s: the DSN names no database ([user[:password]@][net[(address)]]/database): the benchmark tables go there", name)
	}
	if err := applyMySQLTLS(mc, tlsParams); err != nil {
		return nil, fmt.Errorf("%s: %w", name, redact.Error(err, redact.Secrets(dsn)))
	}
	return mc, nil
}
