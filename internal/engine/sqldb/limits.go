package sqldb

import "github.com/enginebench/enginebench/internal/engine"

// StatementLimits are the bounds an SQL engine puts on one statement, for a workload to check
// the statements its parameters call for before a run starts.
type StatementLimits struct {
	// MaxParams is the most bind parameters a prepared statement may have (Dialect.MaxParams).
	MaxParams int
	// MaxBytes is the longest statement text the engine accepts: SQLite's
	// SQLITE_MAX_SQL_LENGTH (10^9 bytes), MariaDB's max_allowed_packet as the managed servers
	// keep it (its default, 16 MiB; an existing server may differ), PostgreSQL's largest
	// message (1 GiB - 1).
	MaxBytes int64
}

// mysqlMaxAllowedPacket is max_allowed_packet of the managed MariaDB servers: MariaDB's
// default, which their configuration leaves alone.
const mysqlMaxAllowedPacket = 16 << 20

// LimitsOf returns the statement limits of the engine of driver d, and false for an engine
// that is not an SQL engine this package knows.
func LimitsOf(d engine.Driver) (StatementLimits, bool) {
	switch d.Name {
	case "sqlite":
		return StatementLimits{MaxParams: sqliteDialect{}.MaxParams(), MaxBytes: 1_000_000_000}, true
	case "postgres":
		return StatementLimits{MaxParams: postgresDialect{}.MaxParams(), MaxBytes: 1<<30 - 1}, true
	case "innodb", "myrocks":
		return StatementLimits{MaxParams: mysqlDialect{}.MaxParams(), MaxBytes: mysqlMaxAllowedPacket}, true
	}
	return StatementLimits{}, false
}
