package sqldb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
)

var _ engine.ServerCounters = (*postgresDB)(nil)

// pgCounterGroup is one view of PostgreSQL's cumulative statistics that ServerCounters reads:
// its query, returning one row of float8 columns named by keys.
type pgCounterGroup struct {
	name   string // the view, for Counters.Unread
	minVer int    // the first server_version_num that has it
	query  string
	keys   []string
	// instead says, for a group the server's version lacks, what stands in for it.
	instead string
}

// pgBlockKB turns a count of blocks (BLCKSZ bytes) into KB in a query.
const pgBlockKB = "current_setting('block_size')::float8 / 1024"

// pgCounterGroups are the groups ServerCounters reads on a server of version ver:
//
//   - pg_stat_database of the current database: blks_read (reads from the OS, its page cache
//     included), blks_hit + blks_read (logical reads), tup_returned (rows read) and
//     tup_inserted + tup_updated + tup_deleted (rows written);
//   - pg_current_wal_lsn(): the WAL's position, the bytes of WAL written since initdb (what
//     pg_stat_wal.wal_bytes counts, but not up to a second late as the backends publish it);
//   - pg_stat_io (16+): (writes + extends) × op_bytes of every backend type and context,
//     what the server wrote to its relation files;
//   - before 16, pg_stat_bgwriter: buffers_checkpoint + buffers_clean + buffers_backend ×
//     block_size, the shared buffers written (relation extensions not counted).
func pgCounterGroups(ver int) []pgCounterGroup {
	gs := []pgCounterGroup{{
		name: "pg_stat_database",
		query: `SELECT blks_read::float8, (blks_read * ` + pgBlockKB + `)::float8, (blks_hit + blks_read)::float8,
	tup_returned::float8, (tup_inserted + tup_updated + tup_deleted)::float8
FROM pg_stat_database WHERE datname = current_database()`,
		keys: []string{engine.CounterReads, engine.CounterReadKB, engine.CounterLogicalReads,
			engine.CounterRowsRead, engine.CounterRowsWritten},
	}, {
		// The WAL's position rather than pg_stat_wal.wal_bytes (14+), which the backends
		// publish up to a second late: the same bytes, counted at once.
		name:  "pg_current_wal_lsn()",
		query: `SELECT (pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') / 1024)::float8`,
		keys:  []string{engine.CounterWALKB},
	}}
	io := pgCounterGroup{name: "pg_stat_io", minVer: 160000,
		instead: ": KB written to data files are pg_stat_bgwriter's buffers written, relation extensions not counted"}
	if ver >= io.minVer {
		return append(gs, pgCounterGroup{
			name: io.name, minVer: io.minVer,
			query: `SELECT (coalesce(sum((coalesce(writes, 0) + coalesce(extends, 0)) * op_bytes), 0) / 1024)::float8
FROM pg_stat_io`,
			keys: []string{engine.CounterWriteKB},
		})
	}
	// Listed so that its absence is said.
	return append(gs, io, pgCounterGroup{
		name: "pg_stat_bgwriter",
		query: `SELECT ((buffers_checkpoint + buffers_clean + buffers_backend) * ` + pgBlockKB + `)::float8
FROM pg_stat_bgwriter`,
		keys: []string{engine.CounterWriteKB},
	})
}

// pgStatsLag is how late PostgreSQL may publish a session's statistics: a busy session at most
// once a second (PGSTAT_MIN_INTERVAL; the statistics collector's interval before 15), so that
// a reading misses up to its last second; an idle one its last second up to 10 s later
// (PGSTAT_IDLE_INTERVAL), or at its next statement or its exit. The WAL's position is current.
const pgStatsLag = time.Second

// ServerCounters implements engine.ServerCounters from PostgreSQL's cumulative statistics
// (pgCounterGroups). Backends publish them about once a second and when idle, so a reading
// may lag the work by that much. A view the user may not read, or that the server's version
// lacks, is in Unread; an error only when no group could be read.
func (e *postgresDB) ServerCounters(ctx context.Context) (engine.Counters, error) {
	c := engine.Counters{Values: map[string]float64{}}
	var firstErr error
	var from []string
	for _, g := range pgCounterGroups(e.versionNum) {
		if e.versionNum < g.minVer {
			c.SetUnread(g.name, fmt.Sprintf("PostgreSQL %d has no %s (%d+)%s", e.versionNum/10000, g.name, g.minVer/10000, g.instead))
			continue
		}
		vals := make([]float64, len(g.keys))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := e.db.QueryRowContext(ctx, g.query).Scan(ptrs...); err != nil {
			if ctx.Err() != nil {
				return engine.Counters{}, e.redact(fmt.Errorf("postgres: server counters: %w", err))
			}
			firstErr = err
			c.SetUnread(g.name, e.redact(err).Error())
			continue
		}
		for i, k := range g.keys {
			c.Values[k] = vals[i]
		}
		from = append(from, g.name)
	}
	c.From = strings.Join(from, ", ")
	c.Lag = pgStatsLag
	for k := range c.Values {
		if k != engine.CounterWALKB {
			c.Lagging = append(c.Lagging, k)
		}
	}
	slices.Sort(c.Lagging)
	if len(c.Values) == 0 && firstErr != nil {
		return engine.Counters{}, e.redact(fmt.Errorf("postgres: server counters: %w", firstErr))
	}
	return c, nil
}
