package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
)

// The size of the benchmark database's own files (dbgb1), over SQL, so that it is measured the
// same way on a managed server and on a server given by --dsn that holds other databases too.

var (
	_ engine.DatabaseSizer = (*mysqlDB)(nil)
	_ engine.DatabaseSizer = (*postgresDB)(nil)
)

// DatabaseBytes returns the size of the current database: pg_database_size, the files of its
// relations (tables, indexes, TOAST, free space and visibility maps) under base/<oid>/, as
// the reference's dbsize.sh measures it. The WAL is not counted.
func (e *postgresDB) DatabaseBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := e.db.QueryRowContext(ctx, "SELECT pg_database_size(current_database())").Scan(&n); err != nil {
		return 0, e.redact(fmt.Errorf("postgres: database size: %w", err))
	}
	return n, nil
}

// DatabaseBytes returns the size of the benchmark database's tables (the connection's
// database), by the storage engine of each table:
//
//   - InnoDB: the bytes allocated to its tablespace files (<database>/<table>.ibd), from
//     information_schema.INNODB_SYS_TABLESPACES (MariaDB) or INNODB_TABLESPACES (MySQL 8.0);
//   - ROCKSDB: the bytes of the SST files of the column families that hold its indexes, each
//     file counted in the share of its data that belongs to the database's indexes
//     (information_schema.ROCKSDB_INDEX_FILE_MAP by index, ROCKSDB_DDL for the index's table,
//     ROCKSDB_SST_PROPS for each file's blocks, ROCKSDB_COMPACTION_STATS for the column family's
//     bytes on disk). Rows still in the memtables (and the WAL) are not counted;
//   - any other engine (e.g. TokuDB, Aria): DATA_LENGTH + INDEX_LENGTH of
//     information_schema.TABLES, the engine's own account.
func (e *mysqlDB) DatabaseBytes(ctx context.Context) (int64, error) {
	n, err := e.databaseBytes(ctx)
	if err != nil {
		return 0, e.redact(fmt.Errorf("%s: database size: %w", e.name, err))
	}
	return n, nil
}

func (e *mysqlDB) databaseBytes(ctx context.Context) (int64, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	// MySQL 8.0 caches the table statistics of information_schema.TABLES for a day by default;
	// MariaDB has no such variable (the error is expected there).
	_, _ = conn.ExecContext(ctx, "SET SESSION information_schema_stats_expiry = 0")
	byEngine, other, err := tableEngines(ctx, conn)
	if err != nil {
		return 0, err
	}
	total := other
	if byEngine["INNODB"] {
		n, err := innodbBytes(ctx, conn)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if byEngine["ROCKSDB"] {
		n, err := rocksBytes(ctx, conn)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// tableEngines returns the storage engines (upper case) of the current database's tables, and
// DATA_LENGTH + INDEX_LENGTH summed over the tables of the other engines than InnoDB and
// ROCKSDB.
func tableEngines(ctx context.Context, conn *sql.Conn) (map[string]bool, int64, error) {
	rows, err := conn.QueryContext(ctx, `SELECT UPPER(ENGINE), COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0)
FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' GROUP BY UPPER(ENGINE)`)
	if err != nil {
		return nil, 0, fmt.Errorf("the tables' engines: %w", err)
	}
	defer rows.Close()
	engines := map[string]bool{}
	var other int64
	for rows.Next() {
		var eng sql.NullString
		var n int64
		if err := rows.Scan(&eng, &n); err != nil {
			return nil, 0, fmt.Errorf("the tables' engines: %w", err)
		}
		engines[eng.String] = true
		if eng.String != "INNODB" && eng.String != "ROCKSDB" {
			other += n
		}
	}
	return engines, other, rows.Err()
}

// innodbBytes sums ALLOCATED_SIZE of the current database's tablespaces: MariaDB's
// INNODB_SYS_TABLESPACES, else MySQL 8.0's INNODB_TABLESPACES (the same columns).
func innodbBytes(ctx context.Context, conn *sql.Conn) (int64, error) {
	const q = `SELECT COALESCE(SUM(ALLOCATED_SIZE), 0) FROM information_schema.%s
WHERE LEFT(NAME, CHAR_LENGTH(DATABASE()) + 1) = CONCAT(DATABASE(), '/')`
	var n int64
	err := conn.QueryRowContext(ctx, fmt.Sprintf(q, "INNODB_SYS_TABLESPACES")).Scan(&n)
	if err == nil {
		return n, nil
	}
	if err2 := conn.QueryRowContext(ctx, fmt.Sprintf(q, "INNODB_TABLESPACES")).Scan(&n); err2 != nil {
		return 0, fmt.Errorf("InnoDB tablespaces: %w", errors.Join(err, err2))
	}
	return n, nil
}

// rocksSST is one SST file of a column family: its blocks' bytes, and the data of the current
// database's indexes and of all indexes in it.
type rocksSST struct {
	cf                  int
	blocks, mine, total float64
}

// rocksBytes is the ROCKSDB part of DatabaseBytes.
func rocksBytes(ctx context.Context, conn *sql.Conn) (int64, error) {
	cfBytes, err := rocksCFBytes(ctx, conn)
	if err != nil || len(cfBytes) == 0 {
		return 0, err
	}
	ssts, err := rocksSSTs(ctx, conn)
	if err != nil {
		return 0, err
	}
	return rocksShare(cfBytes, ssts), nil
}

// rocksShare apportions each column family's bytes on disk to the current database: by the
// blocks of each of its SST files, times the database's share of the file's data.
func rocksShare(cfBytes map[int]float64, ssts []rocksSST) int64 {
	weight, mine := map[int]float64{}, map[int]float64{}
	for _, s := range ssts {
		if _, ok := cfBytes[s.cf]; !ok || s.total <= 0 {
			continue
		}
		weight[s.cf] += s.blocks
		mine[s.cf] += s.blocks * s.mine / s.total
	}
	var total float64
	for cf, b := range cfBytes {
		if weight[cf] > 0 {
			total += b * mine[cf] / weight[cf]
		}
	}
	return int64(total)
}

// rocksCFBytes returns the bytes of the SST files (all levels) of each column family (by id)
// that holds an index of the current database.
func rocksCFBytes(ctx context.Context, conn *sql.Conn) (map[int]float64, error) {
	rows, err := conn.QueryContext(ctx, `SELECT DISTINCT d.COLUMN_FAMILY, CAST(s.VALUE AS CHAR)
FROM information_schema.ROCKSDB_DDL d JOIN information_schema.ROCKSDB_COMPACTION_STATS s
  ON s.CF_NAME = d.CF AND s.LEVEL = 'Sum' AND s.TYPE = 'SizeBytes'
WHERE d.TABLE_SCHEMA = DATABASE()`)
	if err != nil {
		return nil, fmt.Errorf("MyRocks column families: %w", err)
	}
	defer rows.Close()
	out := map[int]float64{}
	for rows.Next() {
		var cf int
		var v string
		if err := rows.Scan(&cf, &v); err != nil {
			return nil, fmt.Errorf("MyRocks column families: %w", err)
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[cf] = f
		}
	}
	return out, rows.Err()
}

// rocksSSTs returns every SST file with its blocks' bytes and its data by owner.
func rocksSSTs(ctx context.Context, conn *sql.Conn) ([]rocksSST, error) {
	rows, err := conn.QueryContext(ctx, `SELECT m.COLUMN_FAMILY, p.DATA_BLOCK_SIZE + p.INDEX_BLOCK_SIZE + p.FILTER_BLOCK_SIZE,
  SUM(CASE WHEN d.TABLE_SCHEMA = DATABASE() THEN m.DATA_SIZE ELSE 0 END), SUM(m.DATA_SIZE)
FROM information_schema.ROCKSDB_INDEX_FILE_MAP m
JOIN information_schema.ROCKSDB_SST_PROPS p ON p.SST_NAME = m.SST_NAME
LEFT JOIN information_schema.ROCKSDB_DDL d ON d.COLUMN_FAMILY = m.COLUMN_FAMILY AND d.INDEX_NUMBER = m.INDEX_NUMBER
GROUP BY m.COLUMN_FAMILY, m.SST_NAME, p.DATA_BLOCK_SIZE, p.INDEX_BLOCK_SIZE, p.FILTER_BLOCK_SIZE`)
	if err != nil {
		return nil, fmt.Errorf("MyRocks SST files: %w", err)
	}
	defer rows.Close()
	var out []rocksSST
	for rows.Next() {
		var s rocksSST
		if err := rows.Scan(&s.cf, &s.blocks, &s.mine, &s.total); err != nil {
			return nil, fmt.Errorf("MyRocks SST files: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// IsDataFile reports whether rel (relative to the data directory) is one of the benchmark
// database's files, for the size measured from the data directory when DatabaseBytes fails.
//
// innodb (and any table engine other than ROCKSDB): the files of the database's directory
// <database>/ (its .ibd tablespaces, .frm definitions and db.opt), as the reference's dbsize.sh
// measures it (du of the database directory). Not the system and undo tablespaces, the redo
// log, the binary log, the other databases, or server.log.
//
// myrocks: the SST files of #rocksdb (of every database on the server: they cannot be told apart
// by name). Not the WAL, MANIFEST, OPTIONS or info LOG.
func (e *mysqlDB) IsDataFile(rel string) bool {
	dir, file := path.Split(rel)
	if e.rocks {
		return dir == "#rocksdb/" && strings.HasSuffix(file, ".sst")
	}
	return e.database != "" && dir == e.database+"/"
}
