package engine

import (
	"context"
	"time"
)

// The keys of ServerCounters' values: cumulative counters of the server since it started, in
// the units their names say. They are the raw usage keys of the same names (measure.KeySrv*),
// which hold a step's differences of them. What each engine counts under each key is in
// docs/efficiency.md (The server's own counters).
const (
	// CounterReads is the reads of data pages or blocks the server asked of its files (the
	// OS): PostgreSQL's blks_read, InnoDB's Innodb_data_reads, MyRocks' block cache misses.
	// A read the OS's page cache served counts too: it is not a device read.
	CounterReads = "srv_reads"
	// CounterReadKB is the KB those reads transferred.
	CounterReadKB = "srv_read_kb"
	// CounterWriteKB is the KB the server wrote to its data files, its WAL or redo log not
	// included.
	CounterWriteKB = "srv_write_kb"
	// CounterWALKB is the KB the server wrote to its WAL or redo log.
	CounterWALKB = "srv_wal_kb"
	// CounterLogicalReads is the page or block requests to the server's cache, hits and
	// misses: a logical read, not a device read.
	CounterLogicalReads = "srv_logical_reads"
	// CounterRowsRead is the rows the server read for its queries; CounterRowsWritten the
	// rows it inserted, updated and deleted.
	CounterRowsRead    = "srv_rows_read"
	CounterRowsWritten = "srv_rows_written"
)

// Counters is a reading of a server's own cumulative counters.
type Counters struct {
	// Values holds the counters read, keyed by the Counter* keys; a key that is absent was
	// not read.
	Values map[string]float64
	// Unread says, per counter group that could not be read (a view the user may not read,
	// one the server's version lacks), why; nil when every group was read.
	Unread map[string]string
	// From names where Values came from, shortly: the views or the status variables read
	// ("pg_stat_database, pg_stat_wal, pg_stat_io").
	From string
	// Lag is how late the server may publish the counters of the Lagging keys: their reading
	// may miss up to Lag of the latest work (PostgreSQL's sessions publish theirs at most once
	// a second, an idle session's last second up to 10 s later); 0 when every counter is
	// current.
	Lag     time.Duration
	Lagging []string
}

// ServerCounters is implemented by server engines that can read the server's own counters
// of its IO and rows over SQL, so that a step's efficiency is known also when the server's
// process is not on this host (--dsn without --db-pid). An error means no counter could be
// read; a group that could not be read is in Counters.Unread instead.
type ServerCounters interface {
	ServerCounters(ctx context.Context) (Counters, error)
}

// SetUnread records that group could not be read, and why.
func (c *Counters) SetUnread(group, why string) {
	if c.Unread == nil {
		c.Unread = map[string]string{}
	}
	c.Unread[group] = why
}
