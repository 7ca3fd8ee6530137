package linkbench

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// TestFidelityParams checks --partitions and --expunge: validated, recorded, and refused where
// they cannot run (--expunge in the reference variant, which never expunges; --partitions on
// an engine that cannot partition, before the run).
func TestFidelityParams(t *testing.T) {
	p, _ := DefaultParams("tiny")
	p.Partitions = 16
	w := mustNew(t, p)
	if w.Params()["partitions"] != 16 {
		t.Errorf("params %v", w.Params())
	}
	for _, d := range []engine.Driver{sqldb.InnoDBDriver(), sqldb.MyRocksDriver(), sqldb.PostgresDriver()} {
		if err := w.CheckEngine(d); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	for _, d := range []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver()} {
		if err := w.CheckEngine(d); err == nil || !strings.Contains(err.Error(), "--partitions") {
			t.Errorf("%s with partitions: %v", d.Name, err)
		}
	}
	p.Partitions = 0
	if w, _ = New(p); w.CheckEngine(sqldb.SQLiteDriver()) != nil {
		t.Error("sqlite refused without partitions")
	}
	for _, c := range []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.Partitions = -1 }, "--partitions must be 0 (none) to 1024"},
		{func(p *Params) { p.Partitions = 1025 }, "--partitions must be 0 (none) to 1024"},
		{func(p *Params) { p.Expunge = true }, "--expunge: the reference never expunges"},
	} {
		p, _ := DefaultParams("tiny")
		c.set(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	p, _ = DefaultParams("tiny")
	p.Expunge, p.Variant = true, workload.Corrected
	if err := p.Validate(); err != nil {
		t.Errorf("--expunge --variant corrected: %v", err)
	}
}

// writeRecorder is a key-value engine that keeps every key a batch writes to linktable.
type writeRecorder struct {
	kv.DB
	keys *[][]byte
}

func (w writeRecorder) NewBatch() kv.Batch { return recBatch{w.DB.NewBatch(), w.keys} }

// Discards says what the null engine says: it stores nothing, so nothing is verified.
func (writeRecorder) Discards() bool { return true }

type recBatch struct {
	kv.Batch
	keys *[][]byte
}

func (b recBatch) Set(k, v []byte) {
	if len(k) > 0 && k[0] == 'l' {
		*b.keys = append(*b.keys, slices.Clone(k))
	}
	b.Batch.Set(k, v)
}

// TestRequestDistributions runs 600,000 requests of one requester on the null engine and
// checks what the requests did against the profile: each operation's share within 0.2
// percentage points of the mix, and the share of the link writes (ADD_LINK and UPDATE_LINK
// write every time) that go to the 100 most written id1s within 10% of the same share drawn
// from the write access the model holds.
func TestRequestDistributions(t *testing.T) {
	const requests = 600_000
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var keys [][]byte
	p := tinyParams(t)
	p.Requesters, p.Requests, p.Intervals, p.IntervalSeconds = 1, requests, 1, 3600
	w := mustNew(t, p)
	steps, err := runOn(t, context.Background(), w, writeRecorder{eng.(kv.DB), &keys})
	if err != nil {
		t.Fatal(err)
	}
	run := steps[len(steps)-1]
	if n := run.Ops["requests"].Count; n != requests {
		t.Fatalf("%d requests, want %d", n, requests)
	}
	var links int64
	for op := profile.Op(0); op < profile.Op(profile.NumOps); op++ {
		got := 100 * float64(run.Ops[op.String()].Count) / requests
		if want := w.p.prof.Mix[op]; got < want-0.2 || got > want+0.2 {
			t.Errorf("%s: %.3f%% of the requests, want %.3f%% ± 0.2", op, got, want)
		}
		if op == profile.AddLink || op == profile.UpdateLink {
			links += run.Ops[op.String()].Count
		}
	}
	// The link writes: the keys of linktable written after the load ('l' link_type id1 id2).
	keys = keys[len(keys)-int(links):]
	written := map[int64]int{}
	for _, k := range keys {
		written[decodeKeyInt(k[9:17])]++
	}
	got := topShare(written, 100, len(keys))
	rng := rand.New(rand.NewPCG(1, 2))
	drawn := map[int64]int{}
	for range keys {
		drawn[w.m.linkWrite.Choose(rng)]++
	}
	want := topShare(drawn, 100, len(keys))
	t.Logf("%d link writes: the 100 most written id1s have %.1f%% (the write access: %.1f%%)", len(keys), 100*got, 100*want)
	if got < want*0.9 || got > want*1.1 {
		t.Errorf("the 100 most written id1s have %.1f%% of the link writes, want %.1f%% ± 10%%", 100*got, 100*want)
	}
}

// decodeKeyInt reads an order-preserving integer of a key (big-endian, sign bit flipped).
func decodeKeyInt(b []byte) int64 {
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return int64(u ^ 1<<63)
}

// topShare is the share of total that the n largest counts hold.
func topShare(counts map[int64]int, n, total int) float64 {
	vals := make([]int, 0, len(counts))
	for _, v := range counts {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	sum := 0
	for i := len(vals) - 1; i >= 0 && i >= len(vals)-n; i-- {
		sum += vals[i]
	}
	return float64(sum) / float64(total)
}
