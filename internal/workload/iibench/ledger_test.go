package iibench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestShardsVerifyWithEveryLedger: the two shards of a run, each with its own insert thread's
// ledger and the other's handed over (ledger, adopt), verify the whole table as one process
// does, word for word; a row of shard 0's thread deleted is missing for shard 1 too; a ledger
// of another shard's thread, or none for a thread, is refused.
func TestShardsVerifyWithEveryLedger(t *testing.T) {
	ctx := context.Background()
	var eng sqldb.DB
	for _, c := range engineCases {
		if c.label() == "sqlite" {
			eng = c.open(t, ctx).(sqldb.DB)
		}
	}
	p := damageParams()
	whole, st := runFor(t, ctx, p, eng, nil, nil)
	shards := make([]*run, 2)
	ledgers := make([]string, 2)
	for i := range shards {
		sp := p
		sp.Shard = shard.Shard{Index: i, Count: 2, Run: "r"}
		r, err := mustNew(t, sp).newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}, eng)
		if err != nil {
			t.Fatal(err)
		}
		r.logs[i] = whole.logs[i] // what its own thread wrote
		shards[i], ledgers[i] = r, r.ledger()
	}
	for i, r := range shards {
		if err := r.adopt(ledgers); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		v, err := r.verify(ctx)
		if err != nil || v.Detail != st.Verify.Detail {
			t.Errorf("shard %d verified %+v (%v); one process %q", i, v, err, st.Verify.Detail)
		}
	}
	first := NewGen(&p, p.Seed, 0).Row(0, 0) // thread 0's first row
	if _, err := eng.SQL().Exec(fmt.Sprintf("DELETE FROM purchases_index WHERE cashregisterid = %d AND customerid = %d AND productid = %d",
		first.CashRegisterID, first.CustomerID, first.ProductID)); err != nil {
		t.Fatal(err)
	}
	v, err := shards[1].verify(ctx)
	if want := "row 1 of insert thread 0: its row 0 before it is missing"; err != nil || v.OK || !strings.Contains(v.Detail, want) {
		t.Errorf("shard 1 after a row of shard 0's thread was deleted: %+v (%v), want a failure naming %q", v, err, want)
	}
	for _, c := range []struct {
		ledgers []string
		want    string
	}{
		{[]string{ledgers[1], ledgers[0]}, "the ledger of shard 0 has insert thread 1, not one of its own"},
		{[]string{"null", ledgers[1]}, "no shard handed over the ledger of insert thread 0"},
		{[]string{"{", ledgers[1]}, "the ledger of shard 0:"},
	} {
		if err := shards[1].adopt(c.ledgers); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("adopt %q: %v, want %q", c.ledgers, err, c.want)
		}
	}
}
