package iibench

import (
	"encoding/json"
	"fmt"
)

// threadLedger is one insert thread's insertLog as the shards of a sharded run hand it to
// each other at the end barrier (Env.Share): its thread, the rows it committed and the runs
// of its rows' dateandtime.
type threadLedger struct {
	Thread int        `json:"thread"`
	Rows   int64      `json:"rows"`
	Times  [][2]int64 `json:"times"` // [from, unix]
}

// ledger returns the ledgers of this shard's insert threads as text.
func (r *run) ledger() string {
	var out []threadLedger
	for c := range r.logs {
		if !r.p.owns(c) {
			continue
		}
		l := threadLedger{Thread: c, Rows: r.logs[c].rows, Times: make([][2]int64, len(r.logs[c].times))}
		for i, t := range r.logs[c].times {
			l.Times[i] = [2]int64{t.from, t.unix}
		}
		out = append(out, l)
	}
	b, _ := json.Marshal(out) // ints only: it cannot fail
	return string(b)
}

// adopt takes the other shards' ledgers from all (every shard's ledger text, by shard) into
// r.logs; an error when one is unreadable, names a thread that is not its shard's, or a
// thread has none.
func (r *run) adopt(all []string) error {
	p := r.p
	have := make([]bool, p.InsertThreads)
	for shard, text := range all {
		var ls []threadLedger
		if err := json.Unmarshal([]byte(text), &ls); err != nil {
			return fmt.Errorf("the ledger of shard %d: %w", shard, err)
		}
		for _, l := range ls {
			if l.Thread < 0 || l.Thread >= p.InsertThreads || l.Thread%p.Shard.Count != shard || have[l.Thread] {
				return fmt.Errorf("the ledger of shard %d has insert thread %d, not one of its own (a shard run with other parameters?)", shard, l.Thread)
			}
			have[l.Thread] = true
			if shard == p.Shard.Index {
				continue
			}
			log := insertLog{rows: l.Rows, times: make([]timeRun, len(l.Times))}
			for i, t := range l.Times {
				log.times[i] = timeRun{from: t[0], unix: t[1]}
			}
			r.logs[l.Thread] = log
		}
	}
	for c, ok := range have {
		if !ok {
			return fmt.Errorf("no shard handed over the ledger of insert thread %d", c)
		}
	}
	return nil
}
