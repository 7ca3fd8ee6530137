package iibench

import (
	"fmt"
	"math"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// maxPacket is MariaDB's default max_allowed_packet, which the managed servers keep: the most
// bytes one statement may have, as text or as the values of a prepared statement.
const maxPacket = 16 << 20

// stmtOverhead bounds the bytes of an insert statement besides its rows.
const stmtOverhead = 1024

// stmtRowBytes bounds the bytes one row takes in an insert statement, as text (the reference
// variant's) or as the values of a prepared statement: a quoted date, three ints of up to 11
// characters, a price of up to 24, the quoted data column, each quoted padding column, and the
// commas and parentheses.
func (p *Params) stmtRowBytes() int64 {
	return 120 + int64(p.CharFields)*(int64(p.CharLength)+3)
}

// chunkRows is the most rows of p one insert statement holds on a dialect that takes maxParams
// bind parameters: a batch with more is split into several statements in one transaction.
func chunkRows(maxParams int, p *Params) int { return max(maxParams/(6+p.CharFields), 1) }

// maxMariaRows is the most rows of p one insert statement may hold on MariaDB.
func (p *Params) maxMariaRows() int { return int((maxPacket - stmtOverhead) / p.stmtRowBytes()) }

// CheckEngine refuses, before any work, an engine the parameters cannot run on: on MariaDB
// (innodb, myrocks) an insert statement above max_allowed_packet, which the server would refuse
// in the middle of the run; on MariaDB and PostgreSQL in the reference variant more rows than
// its int transactionid holds (2^31 - 1); on the document engines more rows than the count in
// their _ids holds (2^48, docSession.objectID). The KV engines, SQLite, PostgreSQL and the
// document engines take any batch that Validate accepts: a batch with more values than a
// statement takes is split (by the driver, into insert commands of at most 48 MB, on the
// document engines).
func (w *Workload) CheckEngine(d engine.Driver) error {
	p := &w.p
	if d.Family == engine.FamilyDoc && p.totalRows() >= maxDocIDs {
		return fmt.Errorf("--max-rows %d: the _ids of %s count at most %d documents a process", p.MaxRows, d.Name, int64(maxDocIDs))
	}
	if d.Family != engine.FamilySQL || !d.Server {
		return nil
	}
	if d.Name == sqldb.InnoDBDriver().Name || d.Name == sqldb.MyRocksDriver().Name {
		rows := min(p.InsertBatch, chunkRows(sqldb.DialectOf(sqldb.MySQL).MaxParams(), p))
		if limit := p.maxMariaRows(); rows > limit {
			return fmt.Errorf("--insert-batch %d: an insert statement of %d rows with %d padding columns of %d bytes may take %.1f MiB, "+
				"above MariaDB's max_allowed_packet (16 MiB) on %s: at most %d rows per insert",
				p.InsertBatch, rows, p.CharFields, p.CharLength, float64(int64(rows)*p.stmtRowBytes()+stmtOverhead)/(1<<20), d.Name, limit)
		}
	}
	if !p.Corrected() && p.totalRows() > math.MaxInt32 {
		return fmt.Errorf("--max-rows %d: the reference variant's transactionid is an int, which holds %d rows on %s; "+
			"--variant corrected makes it a bigint", p.MaxRows, math.MaxInt32, d.Name)
	}
	return nil
}
