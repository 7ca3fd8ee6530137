package linkbench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// A sharded run (docs/scale-out.md, Shards): shard 0 creates the tables, and every shard meets
// the others before the load (where they take shard 0's load time, from which the loaded rows'
// times derive), before each request step and after every step, where they hand each other
// what their clients wrote (shardState), so that each verifies its part of the checked id1s
// against the whole run's writes. After the last verification they meet once more
// (doneStep), so that shard 0 drops the tables under nobody's verification.

// doneStep is the barrier after the last step's verification.
const doneStep = "verified"

// chunkOf returns the first id1 of chunk j of this shard: chunk k = j x N + I of the run.
func (r *run) chunkOf(j int64) int64 {
	s := r.p.Shard
	count, index := int64(1), int64(0)
	if s.Sharded() {
		count, index = int64(s.Count), int64(s.Index)
	}
	return r.p.StartID1 + (j*count+index)*int64(r.p.LoadChunk)
}

// ownsID1 reports whether id1's chunk is this shard's.
func (r *run) ownsID1(id1 int64) bool {
	k := (id1 - r.p.StartID1) / int64(r.p.LoadChunk)
	return r.p.Shard.Owns(int(k % int64(max(r.p.Shard.Count, 1))))
}

// ownRanges returns the parts of ranges (sorted, disjoint) in this shard's chunks.
func (r *run) ownRanges(ranges [][2]int64) [][2]int64 {
	if !r.p.Shard.Sharded() {
		return ranges
	}
	var out [][2]int64
	chunk := int64(r.p.LoadChunk)
	for _, rg := range ranges {
		for lo := rg[0]; lo < rg[1]; {
			hi := min(rg[1], r.p.StartID1+((lo-r.p.StartID1)/chunk+1)*chunk)
			if r.ownsID1(lo) {
				if n := len(out); n > 0 && out[n-1][1] == lo {
					out[n-1][1] = hi
				} else {
					out = append(out, [2]int64{lo, hi})
				}
			}
			lo = hi
		}
	}
	return out
}

// loadShare returns the fraction of the run's load this shard does: its chunks' share.
func (r *run) loadShare() float64 {
	p := r.p
	if !p.Shard.Sharded() {
		return 1
	}
	chunks := (p.Nodes() + int64(p.LoadChunk) - 1) / int64(p.LoadChunk)
	var own int64
	for k := int64(0); k < chunks; k++ {
		if p.Shard.Owns(int(k % int64(p.Shard.Count))) {
			own++
		}
	}
	return float64(own) / float64(max(chunks, 1))
}

// startLoad meets the other shards before the load (or waits for the run's start time) and
// sets the load's time: shard 0's in a sharded run, so that every shard writes the rows one
// process would.
func (r *run) startLoad(ctx context.Context) error {
	ms := time.Now().UnixMilli()
	if !r.p.Shard.Sharded() {
		if err := r.env.Meet(ctx, "load", 0); err != nil {
			return err
		}
		ms = time.Now().UnixMilli()
	} else {
		all, err := r.env.Share(ctx, "load", strconv.FormatInt(ms, 10), 0)
		if err != nil {
			return err
		}
		if ms, err = strconv.ParseInt(all[0], 10, 64); err != nil {
			return fmt.Errorf("shard 0's load time %q: %w", all[0], err)
		}
	}
	r.loadMs, r.loadSec = ms, int32(ms/1000)
	return nil
}

// shardState is what a shard's clients wrote up to the end of a step, as it hands it to the
// others: its tally and the checked id1s and nodes its requesters touched (the bits of
// linksTouched and nodesTouched).
type shardState struct {
	Tally [8]int64 `json:"tally"`
	Links []byte   `json:"links_touched"`
	Nodes []byte   `json:"nodes_touched"`
}

// state returns this shard's state as text.
func (r *run) state() string {
	t := &r.tally
	st := shardState{Tally: [8]int64{t.links, t.nodes, t.bytes, t.linksInserted, t.linksExpunged, t.nodesAdded, t.nodesDeleted, int64(t.addedSum)},
		Links: r.linksTouched.bytes(), Nodes: r.nodesTouched.bytes()}
	b, _ := json.Marshal(st) // ints and bytes: it cannot fail
	return string(b)
}

// settle is the end barrier of a step st of a sharded run: when the step ended ok the shard
// hands its state to the others and takes theirs into r.all and the touched sets; else it
// tells them it will not come. The others' step, which may end later (a load of other chunks),
// is given as long again as this shard's took beyond the shard timeout. A barrier that fails fails st. It reports whether every shard
// arrived (always true in a run of one process).
func (r *run) settle(st *result.Step) bool {
	if !r.p.Shard.Sharded() {
		return true
	}
	step := st.Name + ".end"
	if st.Status != result.StatusOK {
		r.env.Leave(step)
		return false
	}
	all, err := r.env.Share(r.opCtx, step, r.state(), time.Duration(st.Seconds*float64(time.Second)))
	if err == nil {
		err = r.adopt(all)
	}
	if err != nil {
		if r.opCtx.Err() != nil {
			st.Status, st.Error = result.StatusInterrupted, "interrupted at the end barrier"
		} else {
			st.Status, st.Error = result.StatusFailed, err.Error()
		}
		return false
	}
	return true
}

// want returns what every client of the run wrote, as verification expects it: this process's
// tally, in a sharded run the sum of every shard's at the last end barrier.
func (r *run) want() *tally {
	if r.p.Shard.Sharded() {
		return &r.all
	}
	return &r.tally
}

// adopt sums every shard's tally into r.all and adds the ids they touched to the touched sets.
func (r *run) adopt(all []string) error {
	r.all = tally{}
	for shard, text := range all {
		var st shardState
		if err := json.Unmarshal([]byte(text), &st); err != nil {
			return fmt.Errorf("the state of shard %d: %w", shard, err)
		}
		if err := r.linksTouched.or(st.Links); err != nil {
			return fmt.Errorf("the state of shard %d: links touched: %w", shard, err)
		}
		if err := r.nodesTouched.or(st.Nodes); err != nil {
			return fmt.Errorf("the state of shard %d: nodes touched: %w", shard, err)
		}
		t := st.Tally
		r.all.add(&tally{links: t[0], nodes: t[1], bytes: t[2], linksInserted: t[3], linksExpunged: t[4],
			nodesAdded: t[5], nodesDeleted: t[6], addedSum: uint64(t[7])})
	}
	return nil
}

// done is the last barrier of a sharded run, after the last step's verification, which took
// as long as took (another shard's is given as long again beyond the shard timeout); a barrier
// that fails fails st when it was ok.
func (r *run) done(st *result.Step, took time.Duration) {
	if r.opCtx.Err() != nil {
		r.env.Leave(doneStep)
		return
	}
	if err := r.env.Meet(r.opCtx, doneStep, took); err != nil && st.Status == result.StatusOK {
		st.Status, st.Error = result.StatusFailed, err.Error()
	}
}

// bytes returns the set's bits, little-endian.
func (s *idSet) bytes() []byte {
	b := make([]byte, 8*len(s.bits))
	for i := range s.bits {
		binary.LittleEndian.PutUint64(b[8*i:], s.bits[i].Load())
	}
	return b
}

// or adds the ids of b, the bits of a set over the same ranges (bytes), to the set.
func (s *idSet) or(b []byte) error {
	if len(b) != 8*len(s.bits) {
		return fmt.Errorf("%d bytes, want %d: a shard run with other parameters?", len(b), 8*len(s.bits))
	}
	for i := range s.bits {
		s.bits[i].Or(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return nil
}
