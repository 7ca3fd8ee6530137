package insertbench

import "sort"

// The ledger of a table is what verification needs to know, beyond the seed, to compute every
// row the table must hold: for each step that inserted into it, a segment of keys and, for
// each of its writers, how many batches it inserted and in which second it made each one. Its
// size grows with the steps, the writers and the seconds of the run, never with its rows.
//
// Keys are handed out by segment: the rows a step inserts into a table take the keys from the
// table's next key on, striped over its writers by batch: writer c's j-th batch holds the keys
// base + (j*W + c)*batch onward (W writers). With one writer per table (the default) the keys
// are the insert order; with a shared table the batches a writer did not insert are gaps.

// segment is the keys one step gave the writers of a table.
type segment struct {
	step    string
	base    int64 // the key of writer 0's first row
	batch   int
	writers []*writerLog
}

// writerLog is one writer's part of a segment. The writer's maker writes made and secs, its
// inserter inserted; they are read once the step has ended.
type writerLog struct {
	made     int64    // batches made (their keys are claimed)
	inserted int64    // batches inserted: the first inserted of those made, in order
	secs     []secRun // the unix second at which each batch made was generated
}

// secRun is a run of consecutive batches generated in the same second; end is the number of
// batches up to and including the run.
type secRun struct{ sec, end int64 }

// newSegment opens a segment of w writers of batch rows on t, from t's next key.
func (t *table) newSegment(step string, w, batch int) *segment {
	s := &segment{step: step, base: t.nextKey, batch: batch, writers: make([]*writerLog, w)}
	for i := range s.writers {
		s.writers[i] = &writerLog{}
	}
	t.log = append(t.log, s)
	return s
}

// closeSegments moves t's next key past every key its latest segment handed to a batch that
// was inserted; keys of batches made but not inserted are given out again.
func (t *table) closeSegments() {
	if len(t.log) == 0 {
		return
	}
	s := t.log[len(t.log)-1]
	var j int64
	for _, w := range s.writers {
		j = max(j, w.inserted)
	}
	t.nextKey = max(t.nextKey, s.base+j*int64(len(s.writers))*int64(s.batch))
}

// key returns the key of row i of writer c's j-th batch.
func (s *segment) key(c int, j int64, i int) int64 {
	return s.base + (j*int64(len(s.writers))+int64(c))*int64(s.batch) + int64(i)
}

// rows returns how many rows the segment's writers inserted.
func (s *segment) rows() int64 {
	var n int64
	for _, w := range s.writers {
		n += w.inserted * int64(s.batch)
	}
	return n
}

// made records that the writer made its next batch at unix second sec.
func (w *writerLog) made1(sec int64) {
	w.made++
	if n := len(w.secs); n > 0 && w.secs[n-1].sec == sec {
		w.secs[n-1].end = w.made
		return
	}
	w.secs = append(w.secs, secRun{sec: sec, end: w.made})
}

// secOf returns the second at which batch j was made.
func (w *writerLog) secOf(j int64) int64 {
	i := sort.Search(len(w.secs), func(i int) bool { return w.secs[i].end > j })
	if i == len(w.secs) {
		return 0
	}
	return w.secs[i].sec
}
