package insertbench

import (
	"context"
	"fmt"
	"strconv"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// insertCols is the number of values of a row in an insert.
const insertCols = 6

// CheckEngine refuses, before the run starts, an engine that holds no snapshot open when
// --htap-transaction-seconds is on (checkSnapshots), and an engine whose statements the parameters make
// too large: an insert of a batch with more bind parameters than the engine takes (SQLite
// 32766), or an insert sent as text (the reference's, on the servers) longer than the
// engine takes (MariaDB's max_allowed_packet, 16 MiB on a managed server).
func (w *Workload) CheckEngine(d engine.Driver) error {
	if err := w.p.checkSnapshots(d); err != nil {
		return err
	}
	lim, ok := sqldb.LimitsOf(d)
	if !ok {
		return nil
	}
	return w.p.checkLimits(d.Name, lim, d.Server && !w.p.Corrected())
}

// batchFlags are the insert batch sizes with their flags.
func (p *Params) batchFlags() []struct {
	flag  string
	batch int
} {
	return []struct {
		flag  string
		batch int
	}{{"--batch-l.i0", p.BatchI0}, {"--batch-l.i1", p.BatchI1}, {"--batch-l.i2", p.BatchI2}, {"--batch-q", p.BatchQ}}
}

// checkLimits checks every statement size against lim of engine name; text says whether the
// inserts go as text with their values in them, else they are prepared with bind parameters.
func (p *Params) checkLimits(name string, lim sqldb.StatementLimits, text bool) error {
	for _, b := range p.batchFlags() {
		if text {
			if n := p.insertTextBytes(b.batch); n > lim.MaxBytes {
				return fmt.Errorf("%s %d: an insert of that many rows takes up to %d bytes of text, more than %s takes (%d; at most %d rows)",
					b.flag, b.batch, n, name, lim.MaxBytes, p.maxTextBatch(lim.MaxBytes))
			}
			continue
		}
		if n := insertCols * b.batch; n > lim.MaxParams {
			return fmt.Errorf("%s %d: an insert of that many rows has %d bind parameters, more than %s takes (%d; at most %d rows)",
				b.flag, b.batch, n, name, lim.MaxParams, lim.MaxParams/insertCols)
		}
	}
	if p.PointIDs > lim.MaxParams {
		return fmt.Errorf("--point-ids %d: more bind parameters than %s takes (%d)", p.PointIDs, name, lim.MaxParams)
	}
	return nil
}

// insertTextBytes bounds the length of the reference's insert of batch rows as text
// (insertText): its head, and per row the time, the four integers at their widest, the price's
// decimals, the data at its longest and the punctuation.
func (p *Params) insertTextBytes(batch int) int64 {
	head := len("insert into pi "+insertColumns+" values ") + len(strconv.Itoa(p.Tables()))
	digits := func(n int) int { return len(strconv.Itoa(n)) }
	row := len("('2006-01-02 15:04:05',") + digits(p.CashRegs) + digits(p.Customers) + digits(p.Products) +
		digits(p.MaxPrice) + len(",,,.00,'") + p.DataMax + len("'),\n")
	return int64(head) + int64(batch)*int64(row)
}

// maxTextBatch is the largest batch whose text insert fits in max bytes.
func (p *Params) maxTextBatch(max int64) int64 {
	per := p.insertTextBytes(1) - p.insertTextBytes(0)
	return (max - p.insertTextBytes(0)) / per
}

// checkLimits checks the text inserts against the max_allowed_packet of the server the
// run is on (an existing server may have another than the managed servers' default), before
// the first step.
func (b *sqlBackend) checkLimits(ctx context.Context) error {
	if !b.text || b.d.Kind() != sqldb.MySQL {
		return nil
	}
	var packet int64
	if err := b.db.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
		return runner.OpError("select @@max_allowed_packet", err)
	}
	lim := sqldb.StatementLimits{MaxParams: b.d.MaxParams(), MaxBytes: packet}
	if err := b.p.checkLimits("the server (max_allowed_packet)", lim, true); err != nil {
		return err
	}
	return nil
}
