package sqldb

import (
	"context"
	"fmt"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
)

var _ engine.ServerCounters = (*mysqlDB)(nil)

// serverCounter is one counter of ServerCounters as a sum of global status variables times
// a scale (bytes to KB).
type serverCounter struct {
	key   string
	vars  []string
	scale float64
	// alt are the variables to sum instead when the server lacks some of vars (MariaDB has
	// no Innodb_rows_*).
	alt []string
}

// innodbCounters are the server counters of the innodb engine, from SHOW GLOBAL STATUS:
// Innodb_data_reads and Innodb_data_read (reads of the data files, the OS's page cache
// included), Innodb_data_written (data files and the doublewrite buffer),
// Innodb_os_log_written (redo log), Innodb_buffer_pool_read_requests (logical reads) and
// Innodb_rows_* (MySQL), which MariaDB does not have: there, the server's Rows_read and
// Handler_write + Handler_update + Handler_delete, of every engine.
var innodbCounters = []serverCounter{
	{engine.CounterReads, []string{"INNODB_DATA_READS"}, 1, nil},
	{engine.CounterReadKB, []string{"INNODB_DATA_READ"}, 1.0 / 1024, nil},
	{engine.CounterWriteKB, []string{"INNODB_DATA_WRITTEN"}, 1.0 / 1024, nil},
	{engine.CounterWALKB, []string{"INNODB_OS_LOG_WRITTEN"}, 1.0 / 1024, nil},
	{engine.CounterLogicalReads, []string{"INNODB_BUFFER_POOL_READ_REQUESTS"}, 1, nil},
	{engine.CounterRowsRead, []string{"INNODB_ROWS_READ"}, 1, []string{"ROWS_READ"}},
	{engine.CounterRowsWritten, []string{"INNODB_ROWS_INSERTED", "INNODB_ROWS_UPDATED", "INNODB_ROWS_DELETED"}, 1,
		[]string{"HANDLER_WRITE", "HANDLER_UPDATE", "HANDLER_DELETE"}},
}

// myrocksCounters are the server counters of the myrocks engine, from SHOW GLOBAL STATUS.
// MariaDB's MyRocks counts no file reads as such: a block cache miss reads one block from an
// SST file (the OS's page cache included), and Rocksdb_block_cache_bytes_write is the bytes of
// the blocks so read (uncompressed); compaction reads its input files besides
// (Rocksdb_compact_read_bytes). Rocksdb_bytes_read and Rocksdb_iter_bytes_read are the
// logical bytes of the rows returned, not file IO, and are not used.
var myrocksCounters = []serverCounter{
	{engine.CounterReads, []string{"ROCKSDB_BLOCK_CACHE_MISS"}, 1, nil},
	{engine.CounterReadKB, []string{"ROCKSDB_BLOCK_CACHE_BYTES_WRITE", "ROCKSDB_COMPACT_READ_BYTES"}, 1.0 / 1024, nil},
	{engine.CounterWriteKB, []string{"ROCKSDB_FLUSH_WRITE_BYTES", "ROCKSDB_COMPACT_WRITE_BYTES"}, 1.0 / 1024, nil},
	{engine.CounterWALKB, []string{"ROCKSDB_WAL_BYTES"}, 1.0 / 1024, nil},
	{engine.CounterLogicalReads, []string{"ROCKSDB_BLOCK_CACHE_HIT", "ROCKSDB_BLOCK_CACHE_MISS"}, 1, nil},
	{engine.CounterRowsRead, []string{"ROCKSDB_ROWS_READ"}, 1, nil},
	{engine.CounterRowsWritten, []string{"ROCKSDB_ROWS_INSERTED", "ROCKSDB_ROWS_UPDATED", "ROCKSDB_ROWS_DELETED"}, 1, nil},
}

// ServerCounters implements engine.ServerCounters from the global status (innodbCounters,
// myrocksCounters), which every user may read. A counter whose variables the server does not
// have (another version, the engine not loaded) is in Unread under its key.
func (e *mysqlDB) ServerCounters(ctx context.Context) (engine.Counters, error) {
	defs := innodbCounters
	if e.rocks {
		defs = myrocksCounters
	}
	vars := map[string]string{}
	for _, d := range defs {
		for _, v := range append(d.vars, d.alt...) {
			vars[v] = v
		}
	}
	got, err := e.status(ctx, vars)
	if err != nil {
		return engine.Counters{}, e.redact(fmt.Errorf("%s: server counters: %w", e.name, err))
	}
	c := sumCounters(defs, got)
	c.From = "SHOW GLOBAL STATUS Innodb_*"
	if e.rocks {
		c.From = "SHOW GLOBAL STATUS Rocksdb_*"
	}
	return c, nil
}

// sumCounters adds up the status variables got (by upper-case name) into the counters defs.
func sumCounters(defs []serverCounter, got map[string]float64) engine.Counters {
	c := engine.Counters{Values: map[string]float64{}}
	for _, d := range defs {
		sum, absent := sumStatus(d.vars, got)
		if len(absent) > 0 && d.alt != nil {
			if alt, none := sumStatus(d.alt, got); len(none) == 0 {
				sum, absent = alt, nil
			}
		}
		if len(absent) > 0 {
			c.SetUnread(d.key, "the server has no status variable "+strings.Join(statusNames(absent), ", "))
			continue
		}
		c.Values[d.key] = sum * d.scale
	}
	return c
}

// sumStatus sums the variables vars of got, and names those got lacks.
func sumStatus(vars []string, got map[string]float64) (sum float64, absent []string) {
	for _, v := range vars {
		x, ok := got[v]
		if !ok {
			absent = append(absent, v)
		}
		sum += x
	}
	return sum, absent
}

// statusNames spells status variables as SHOW GLOBAL STATUS does: Innodb_data_read.
func statusNames(vars []string) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		lower := strings.ToLower(v)
		out[i] = strings.ToUpper(lower[:1]) + lower[1:]
	}
	return out
}
