package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
)

// rocksSettleLimit bounds each wait of the MyRocks cleanup for its flushes and compactions: a
// server whose compactions never stop fails the cleanup instead of holding it forever.
const rocksSettleLimit = time.Hour

// Cleanup reduces the engine's debt before the read steps as the reference does
// (bench/ibench/iq.sh, vac_my; docs/servers.md): ANALYZE TABLE on every table of the database,
// all at once, each on its own connection, and while they run:
//
//   - innodb: innodb_max_dirty_pages_pct_lwm and innodb_max_dirty_pages_pct are set to 1 (and
//     innodb_idle_flush_pct to 100 where the server has it; MariaDB has not), so that the page
//     cleaner writes the dirty pages; then h.Wait; the settings are restored once the
//     ANALYZEs have ended, also when ctx is done.
//   - myrocks: it waits until no compaction runs or is pending, flushes the memtables
//     (rocksdb_force_flush_memtable_now), waits for that flush, compacts L0
//     (rocksdb_force_flush_memtable_and_lzero_now: MariaDB has no rocksdb_compact_lzero_now;
//     when it fails, a note says so and the cleanup goes on, as the reference's does) and
//     waits for the compactions to settle; then h.Wait.
//
// Then it waits for the ANALYZEs. It needs the SUPER privilege on an external server, and
// stops when ctx is done.
func (e *mysqlDB) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: cleanup: %w", e.name, err)
	}
	tables, err := e.tableNames(ctx)
	if err != nil {
		return e.redact(fmt.Errorf("%s: cleanup: list the tables: %w", e.name, err))
	}
	analyze := startPerTable(ctx, e.db, "ANALYZE TABLE", tables, analyzeTable)
	var restore func() error
	if e.rocks {
		err = e.rocksCleanup(ctx, h)
	} else {
		restore, err = e.innodbFlushHarder(ctx, h)
	}
	if err == nil {
		err = h.WaitNow(ctx)
	}
	err = errors.Join(err, analyze.wait(h))
	if restore != nil {
		err = errors.Join(err, restore())
	}
	if err != nil {
		return e.redact(fmt.Errorf("%s: cleanup: %w", e.name, err))
	}
	return nil
}

// tableNames lists the base tables of the connection's database (the benchmark's tables: the
// engine creates nothing else).
func (e *mysqlDB) tableNames(ctx context.Context) ([]string, error) {
	return queryStrings(ctx, e.db, `SELECT TABLE_NAME FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`)
}

// analyzeTable runs ANALYZE TABLE on conn and fails when one of its messages is an error.
func analyzeTable(ctx context.Context, conn *sql.Conn, table string) error {
	rows, err := conn.QueryContext(ctx, "ANALYZE TABLE `"+strings.ReplaceAll(table, "`", "``")+"`")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var tbl, op, typ, text sql.NullString
		if err := rows.Scan(&tbl, &op, &typ, &text); err != nil {
			return err
		}
		if strings.EqualFold(typ.String, "error") {
			return errors.New(text.String)
		}
	}
	return rows.Err()
}

// flushVar is an InnoDB variable that the cleanup sets while it runs, then restores.
type flushVar struct {
	name, during, was string
}

// innodbFlushHarder sets the InnoDB variables that make the page cleaner write every dirty
// page, as the reference does, and returns the function that restores them (in the reverse
// order: the maximum before its low-water mark). restore is set, and must be called, also
// when err is not nil.
func (e *mysqlDB) innodbFlushHarder(ctx context.Context, h engine.CleanupHooks) (restore func() error, err error) {
	vars := []*flushVar{
		{name: "innodb_max_dirty_pages_pct_lwm", during: "1"},
		{name: "innodb_max_dirty_pages_pct", during: "1"},
		{name: "innodb_idle_flush_pct", during: "100"}, // MySQL 8.0.18 and later only
	}
	if err := e.readVars(ctx, vars); err != nil {
		return nil, err
	}
	var set []*flushVar
	restore = func() error {
		// Restored even when ctx is done.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		var errs []error
		for i := len(set) - 1; i >= 0; i-- {
			v := set[i]
			if _, err := e.db.ExecContext(rctx, "SET GLOBAL "+v.name+" = "+v.was); err != nil {
				errs = append(errs, fmt.Errorf("restore %s = %s: %w", v.name, v.was, err))
			}
		}
		return errors.Join(errs...)
	}
	var during, was []string
	for _, v := range vars {
		if v.was == "" {
			h.Notef("%s: the server has no such variable; left out", v.name)
			continue
		}
		if _, err := e.db.ExecContext(ctx, "SET GLOBAL "+v.name+" = "+v.during); err != nil {
			return restore, err
		}
		set = append(set, v)
		during = append(during, v.name+" = "+v.during)
		f, _ := strconv.ParseFloat(v.was, 64) // a number: readVars checked it
		was = append(was, strconv.FormatFloat(f, 'f', -1, 64))
	}
	h.Notef("SET GLOBAL %s until the wait and the ANALYZEs end, then restored to %s",
		strings.Join(during, ", "), strings.Join(was, ", "))
	return restore, nil
}

// readVars reads the global value of each variable into its was; a variable the server does
// not have keeps an empty was.
func (e *mysqlDB) readVars(ctx context.Context, vars []*flushVar) error {
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.name
	}
	// SHOW GLOBAL VARIABLES rather than information_schema.GLOBAL_VARIABLES, which MySQL 8.0 lacks.
	rows, err := e.db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		if _, err := strconv.ParseFloat(value, 64); err != nil {
			return fmt.Errorf("%s = %q: not a number", name, value)
		}
		for _, v := range vars {
			if v.name == strings.ToLower(name) {
				v.was = value
			}
		}
	}
	return rows.Err()
}

// rocksCleanup brings MyRocks' LSM tree into a settled state: no compaction running, the
// memtables flushed and L0 compacted.
func (e *mysqlDB) rocksCleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := e.rocksSettle(ctx, h, "compactions to stop"); err != nil {
		return err
	}
	if err := timed(ctx, e.db, h, "SET GLOBAL rocksdb_force_flush_memtable_now = 1"); err != nil {
		return err
	}
	if err := e.rocksSettle(ctx, h, "the flush and the compactions it started"); err != nil {
		return err
	}
	// As in the reference, a failed L0 compaction (MyRocks gives up after three collisions with
	// automatic compactions) does not fail the cleanup: the notes say so.
	if err := timed(ctx, e.db, h, "SET GLOBAL rocksdb_force_flush_memtable_and_lzero_now = 1"); err != nil {
		if ctx.Err() != nil {
			return err
		}
		h.Notef("%v; L0 is left to the automatic compactions", e.redact(err))
	}
	return e.rocksSettle(ctx, h, "the compactions after L0's")
}

// rocksSettle waits until no flush or compaction is pending or running on rocksSettleChecks
// readings in a row, at most rocksSettleLimit, and notes how long it waited for what.
func (e *mysqlDB) rocksSettle(ctx context.Context, h engine.CleanupHooks, what string) error {
	t0 := time.Now()
	for n := 0; n < rocksSettleChecks; {
		st, err := e.rocksState(ctx)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if st.settled() {
			n++
		} else {
			n = 0
		}
		if time.Since(t0) > rocksSettleLimit {
			return fmt.Errorf("wait for %s: still running after %v", what, rocksSettleLimit)
		}
		if err := sleepCtx(ctx, mysqlCleanupPoll); err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
	}
	h.Notef("waited for %s: %.1f s", what, time.Since(t0).Seconds())
	return nil
}
