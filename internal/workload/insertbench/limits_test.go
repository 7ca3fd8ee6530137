package insertbench

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestCheckEngineBatchLimits checks that the batch sizes are held against each engine's limit of
// bind parameters (prepared inserts: SQLite always, the servers in the corrected variant) or of
// statement length (the reference's text inserts on the servers) before a run, with the largest
// batch that fits in the error.
func TestCheckEngineBatchLimits(t *testing.T) {
	for _, c := range []struct {
		driver  engine.Driver
		variant workload.Variant
		mod     func(*Params)
		want    string // "" for accepted
	}{
		{sqldb.SQLiteDriver(), workload.Reference, func(p *Params) { p.BatchI0 = 6000 },
			"--batch-l.i0 6000: an insert of that many rows has 36000 bind parameters, more than sqlite takes (32766; at most 5461 rows)"},
		{sqldb.SQLiteDriver(), workload.Reference, func(p *Params) { p.BatchI0 = 5461 }, ""},
		{sqldb.SQLiteDriver(), workload.Reference, func(p *Params) { p.BatchQ = 5462 }, "--batch-q 5462"},
		{sqldb.PostgresDriver(), workload.Corrected, func(p *Params) { p.BatchI2 = 10923 }, "--batch-l.i2 10923: an insert of that many rows has 65538 bind parameters, more than postgres takes (65535"},
		{sqldb.PostgresDriver(), workload.Reference, func(p *Params) { p.BatchI2 = 10923 }, ""}, // text: 1 GiB
		{sqldb.InnoDBDriver(), workload.Reference, func(p *Params) { p.BatchI1, p.DataMax = 5000, 4000 },
			"--batch-l.i1 5000: an insert of that many rows takes up to"},
		{sqldb.MyRocksDriver(), workload.Reference, func(p *Params) { p.BatchI1, p.DataMax = 4000, 4000 }, ""},
		{sqldb.InnoDBDriver(), workload.Reference, func(p *Params) { p.PointIDs = 70000 }, "--point-ids 70000"},
		{pebble.Driver(), workload.Reference, func(p *Params) { p.BatchI0 = 100000 }, ""},
	} {
		p, _ := DefaultParams("tiny")
		p.Variant = c.variant
		c.mod(&p)
		w, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		err = w.CheckEngine(c.driver)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v, want accepted", c.driver.Name, c.variant, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s: %v, want %q", c.driver.Name, c.variant, err, c.want)
		}
	}
}

// TestTextBatchLimitIsTight checks the bound of the text insert's length against the texts the
// session makes: the largest batch said to fit does, at the widest values.
func TestTextBatchLimitIsTight(t *testing.T) {
	p, _ := DefaultParams("tiny")
	p.DataMin, p.DataMax = 4000, 4000
	n := p.maxTextBatch(1 << 20)
	rows := make([]Row, n)
	data := []byte(strings.Repeat("a", 4000))
	for i := range rows {
		rows[i] = Row{DateAndTime: 1700000000, CashRegisterID: int64(p.CashRegs - 1), CustomerID: int64(p.Customers - 1),
			ProductID: int64(p.Products - 1), Price: int64(p.MaxPrice - 1), Data: data}
	}
	s := &sqlSession{b: &sqlBackend{p: &p}}
	text := s.insertText(&table{name: "pi1"}, rows)
	if int64(len(text)) > 1<<20 || int64(len(text)) > p.insertTextBytes(int(n)) {
		t.Errorf("an insert of %d rows is %d bytes, bound %d, limit %d", n, len(text), p.insertTextBytes(int(n)), 1<<20)
	}
	if p.insertTextBytes(int(n)+1) <= 1<<20 {
		t.Errorf("%d rows said to be the most, but %d fit", n, n+1)
	}
}

// TestOversizedBatchErrorIsShort runs a batch past SQLite's limit of bind parameters (as a run
// that skipped CheckEngine would): the step fails with the operation and the driver's error,
// not the statement.
func TestOversizedBatchErrorIsShort(t *testing.T) {
	p, _ := DefaultParams("tiny")
	p.Rows, p.BatchI0 = 6000, 6000
	p.Steps = []string{"l.i0"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	eng := openDriver(sqldb.SQLiteDriver())(t)
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var st *result.Step
	err := (&Workload{p: p}).Run(context.Background(), env, eng, func(s *result.Step) { st = s })
	if err == nil || st == nil || st.Status != result.StatusFailed {
		t.Fatalf("run: %v, step %+v: want l.i0 failed", err, st)
	}
	if len(st.Error) > 300 || strings.Contains(st.Error, "?,?") || !strings.Contains(st.Error, "insert into pi1: prepare: too many SQL variables") {
		t.Errorf("step error of %d bytes: %.500s", len(st.Error), st.Error)
	}
}
