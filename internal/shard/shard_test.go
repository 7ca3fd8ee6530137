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

// ParseFlag takes auto/N's index from JOB_COMPLETION_INDEX, refuses a missing, bad or
// out-of-range one and a bad N, and parses I/N as Parse does.
func TestParseShardAuto(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == JobIndexEnv {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		v, env string
		i, n   int
		bad    bool
	}{
		{v: "auto/4", env: "3", i: 3, n: 4},
		{v: " auto/4", env: "0", i: 0, n: 4},
		{v: "auto/1", env: "0", i: 0, n: 1},
		{v: "1/2", env: "0", i: 1, n: 2}, // the variable is not read without auto
		{v: "auto/4", env: "", bad: true},
		{v: "auto/4", env: "4", bad: true},
		{v: "auto/4", env: "-1", bad: true},
		{v: "auto/4", env: "x", bad: true},
		{v: "auto/0", env: "0", bad: true},
		{v: "auto/x", env: "0", bad: true},
		{v: "auto", env: "0", bad: true},
	} {
		i, n, err := ParseFlag(c.v, env(c.env))
		if (err != nil) != c.bad || !c.bad && (i != c.i || n != c.n) {
			t.Errorf("ParseFlag(%q) with %s=%q: %d/%d, %v; want %d/%d, bad %v", c.v, JobIndexEnv, c.env, i, n, err, c.i, c.n, c.bad)
		}
	}
}
