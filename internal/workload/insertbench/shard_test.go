package insertbench

import (
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/shard"
)

// TestShardTablesAndClients: a shard has the clients c with c % N == I and their tables
// pi<c+1>; the whole run (no shard, or 1 shard) has every table; a run's params are the same in
// every shard.
func TestShardTablesAndClients(t *testing.T) {
	p, err := DefaultParams("tiny")
	if err != nil {
		t.Fatal(err)
	}
	p.Clients = 5
	whole, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole.Tables(); !slices.Equal(got, []string{"pi1", "pi2", "pi3", "pi4", "pi5"}) {
		t.Errorf("whole run: %v", got)
	}
	for _, c := range []struct {
		shard   shard.Shard
		tables  []string
		clients []int
	}{
		{shard.Shard{Index: 0, Count: 1}, []string{"pi1", "pi2", "pi3", "pi4", "pi5"}, []int{0, 1, 2, 3, 4}},
		{shard.Shard{Index: 0, Count: 2}, []string{"pi1", "pi3", "pi5"}, []int{0, 2, 4}},
		{shard.Shard{Index: 1, Count: 3}, []string{"pi2", "pi5"}, []int{1, 4}},
	} {
		q := p
		q.Shard = c.shard
		w, err := New(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Tables(); !slices.Equal(got, c.tables) {
			t.Errorf("shard %d/%d: tables %v, want %v", c.shard.Index, c.shard.Count, got, c.tables)
		}
		if got := q.ownClients(); !slices.Equal(got, c.clients) {
			t.Errorf("shard %d/%d: clients %v, want %v", c.shard.Index, c.shard.Count, got, c.clients)
		}
		if got, want := w.Params()["clients"], whole.Params()["clients"]; got != want {
			t.Errorf("shard %d/%d: params' clients %v, want the run's %v", c.shard.Index, c.shard.Count, got, want)
		}
	}
}
