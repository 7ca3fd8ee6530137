package merge

import (
	"reflect"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// TestMergeHTAP: the shards' holders are summed, and each engine counter read while a
// snapshot was open is the largest any shard read; a step no shard held anything in has none.
func TestMergeHTAP(t *testing.T) {
	a := &result.Step{HTAP: &result.HTAP{TransactionSeconds: 30, Connections: 2, Snapshots: 3, HeldSeconds: 70, Errors: 1,
		EngineStatsHeld: map[string]float64{"history_list_length": 900, "dirty_pages": 5}}}
	b := &result.Step{HTAP: &result.HTAP{TransactionSeconds: 30, Connections: 1, Snapshots: 2, HeldSeconds: 40,
		EngineStatsHeld: map[string]float64{"history_list_length": 1200, "dirty_pages": 2}}}
	got := htap([]part{{shard: 0, st: a}, {shard: 1, st: b}})
	want := &result.HTAP{TransactionSeconds: 30, Connections: 3, Snapshots: 5, HeldSeconds: 110, Errors: 1,
		EngineStatsHeld: map[string]float64{"history_list_length": 1200, "dirty_pages": 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v, want %+v", got, want)
	}
	if got := htap([]part{{st: &result.Step{}}, {st: &result.Step{}}}); got != nil {
		t.Errorf("no holders: %+v, want nil", got)
	}
}
