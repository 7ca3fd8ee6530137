package shard

import "testing"

// TestShardOwnsPartitionsClients: the shards of a run own every client exactly once, by its
// index (client c is shard c % N's), and the whole run (the zero Shard, 1 shard) owns all.
func TestShardOwnsPartitionsClients(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		for c := range 20 {
			owners := 0
			for i := range n {
				if (Shard{Index: i, Count: n}).Owns(c) {
					owners++
					if c%n != i {
						t.Errorf("client %d is shard %d of %d's, want shard %d's", c, i, n, c%n)
					}
				}
			}
			if owners != 1 {
				t.Errorf("client %d has %d owners among %d shards", c, owners, n)
			}
		}
	}
	if !(Shard{}).Owns(5) || (Shard{}).Sharded() || (Shard{Count: 1}).Sharded() {
		t.Error("the zero Shard is not the whole run")
	}
}

// TestParse: I/N with 0 <= I < N; anything else is refused.
func TestParse(t *testing.T) {
	for _, v := range []string{"0/1", "1/2", " 3/4 "} {
		if _, _, err := Parse(v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	if i, n, _ := Parse("2/5"); i != 2 || n != 5 {
		t.Errorf("2/5: %d/%d", i, n)
	}
	for _, v := range []string{"", "0/0", "2/2", "-1/2", "x", "1", "1/x", "1/2/3", "/2"} {
		if _, _, err := Parse(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}
