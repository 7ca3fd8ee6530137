// Package kvtest is the conformance suite of the ordered key-value engines: every engine's tests
// call Run with a function that opens the engine, and so check the behaviour that the kv.DB,
// kv.Batch and kv.Iter contracts promise and that the workloads rely on.
package kvtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/procfs"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// Opener opens an engine on dir. Run calls it once per subtest with a fresh directory, and again
// on the same directory after closing the engine to check that committed data survives a
// reopen. It fails t on error.
type Opener func(t *testing.T, dir string) kv.DB

// Run runs the conformance suite as parallel subtests of t. Each subtest opens its own engine in
// its own directory (t.TempDir()) and closes it before it returns.
func Run(t *testing.T, open func(t *testing.T, dir string) kv.DB) {
	run(t, open, atomicityBatches)
}

// atomicityBatches is how many batches BatchAtomicity commits under the readers.
const atomicityBatches = 2000

// RunDriver runs the conformance suite on the engine of d opened as the command opens it
// (enginetest.Open): with its default settings, and in parallel with them in each of configs (a
// name and the settings it overrides), each as a subtest. The other configurations check that their
// settings keep the contracts; they are not run under -short, and their BatchAtomicity commits
// a fifth of the batches (with fsync at every commit, the 2,000 of the default settings would
// take the better part of a minute).
func RunDriver(t *testing.T, d engine.Driver, configs map[string]map[string]string) {
	opener := func(settings map[string]string) Opener {
		return func(t *testing.T, dir string) kv.DB {
			return enginetest.Open(t, context.Background(), d, "", settings, dir).(kv.DB)
		}
	}
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		run(t, opener(nil), atomicityBatches)
	})
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("another configuration")
			}
			t.Parallel()
			run(t, opener(configs[name]), atomicityBatches/5)
		})
	}
}

// run runs the conformance suite, BatchAtomicity committing batches batches.
func run(t *testing.T, open Opener, batches int) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Get", testGet},
		{"BatchSetDeleteOverwrite", testBatchSetDeleteOverwrite},
		{"BatchCopiesArguments", testBatchCopiesArguments},
		{"BatchReuseAfterCommit", testBatchReuse},
		{"BatchReset", testBatchReset},
		{"BatchAtomicity", func(t *testing.T, open Opener) { testBatchAtomicity(t, open, batches) }},
		{"IterBounds", testIterBounds},
		{"Count", testCount},
		{"IterSeekGE", testIterSeekGE},
		{"IterDirectionChange", testIterDirectionChange},
		{"IterEmptyRange", testIterEmptyRange},
		{"IterSeesDeletesAndOverwrites", testIterDeletes},
		{"IterTupleOrder", testIterTupleOrder},
		{"Reopen", testReopen},
		{"ConcurrentWriters", testConcurrentWriters},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open)
		})
	}
}

// openDB opens a fresh engine and closes it when the test ends.
func openDB(t *testing.T, open Opener) kv.DB {
	t.Helper()
	db := open(t, t.TempDir())
	if db == nil {
		t.Fatal("open returned a nil DB")
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

// kvPair is one key and value, as strings for readable failures.
type kvPair struct{ k, v string }

// write commits pairs in one batch; a pair with v == "<del>" is a Delete.
func write(t *testing.T, db kv.DB, pairs ...kvPair) {
	t.Helper()
	b := db.NewBatch()
	defer closeBatch(t, b)
	for _, p := range pairs {
		if p.v == "<del>" {
			b.Delete([]byte(p.k))
		} else {
			b.Set([]byte(p.k), []byte(p.v))
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

func closeBatch(t *testing.T, b kv.Batch) {
	t.Helper()
	if err := b.Close(); err != nil {
		t.Errorf("batch close: %v", err)
	}
}

// get returns the value of key; ok is false when it does not exist.
func get(t *testing.T, db kv.DB, key string) (string, bool) {
	t.Helper()
	v, ok, err := db.Get([]byte(key), nil)
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	if !ok && len(v) != 0 {
		t.Fatalf("get %q: not found but returned %q", key, v)
	}
	return string(v), ok
}

// expectGet checks the value of key, or that it is missing when want is "<missing>".
func expectGet(t *testing.T, db kv.DB, key, want string) {
	t.Helper()
	v, ok := get(t, db, key)
	switch {
	case want == "<missing>" && ok:
		t.Errorf("get %q = %q, want missing", key, v)
	case want != "<missing>" && !ok:
		t.Errorf("get %q: missing, want %q", key, want)
	case want != "<missing>" && v != want:
		t.Errorf("get %q = %q, want %q", key, v, want)
	}
}

// newIter opens an iterator on [lower, upper); "" is a nil bound.
func newIter(t *testing.T, db kv.DB, lower, upper string) kv.Iter {
	t.Helper()
	it, err := db.NewIter(bound(lower), bound(upper))
	if err != nil {
		t.Fatalf("new iter [%q, %q): %v", lower, upper, err)
	}
	return it
}

func bound(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func closeIter(t *testing.T, it kv.Iter) {
	t.Helper()
	if err := it.Err(); err != nil {
		t.Errorf("iter error: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Errorf("iter close: %v", err)
	}
}

// scan returns the keys of [lower, upper) forwards (First, Next) and checks that the backward
// scan (Last, Prev) returns the same keys in reverse.
func scan(t *testing.T, db kv.DB, lower, upper string) []string {
	t.Helper()
	it := newIter(t, db, lower, upper)
	defer closeIter(t, it)
	var fwd []string
	for ok := it.First(); ok; ok = it.Next() {
		if !it.Valid() {
			t.Fatalf("[%q, %q): positioning returned true but Valid is false", lower, upper)
		}
		fwd = append(fwd, string(it.Key()))
	}
	if it.Valid() {
		t.Errorf("[%q, %q): Valid after the forward scan ended", lower, upper)
	}
	var bwd []string
	for ok := it.Last(); ok; ok = it.Prev() {
		bwd = append(bwd, string(it.Key()))
	}
	if len(bwd) != len(fwd) {
		t.Fatalf("[%q, %q): forward scan %q, backward scan %q", lower, upper, fwd, bwd)
	}
	for i := range bwd {
		if bwd[i] != fwd[len(fwd)-1-i] {
			t.Fatalf("[%q, %q): forward scan %q, backward scan %q", lower, upper, fwd, bwd)
		}
	}
	return fwd
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testGet(t *testing.T, open Opener) {
	db := openDB(t, open)
	dst := []byte("prefix:")
	v, ok, err := db.Get([]byte("missing"), dst)
	if err != nil || ok {
		t.Fatalf("get missing: ok %v err %v", ok, err)
	}
	if string(v) != "prefix:" {
		t.Errorf("get missing returned %q, want dst unchanged (%q)", v, "prefix:")
	}
	write(t, db, kvPair{"a", "apple"}, kvPair{"b", ""}, kvPair{"c\x00d", "with\x00zero"})

	// Get appends to dst and keeps what dst held.
	buf := make([]byte, 0, 64)
	buf = append(buf, "prefix:"...)
	v, ok, err = db.Get([]byte("a"), buf)
	if err != nil || !ok || string(v) != "prefix:apple" {
		t.Fatalf("get a with dst %q: %q ok %v err %v", buf, v, ok, err)
	}
	if string(buf) != "prefix:" {
		t.Errorf("get changed dst's contents to %q", buf)
	}
	// A nil dst, a dst without room.
	v, ok, err = db.Get([]byte("a"), nil)
	if err != nil || !ok || string(v) != "apple" {
		t.Fatalf("get a with nil dst: %q ok %v err %v", v, ok, err)
	}
	v, ok, err = db.Get([]byte("a"), []byte("x")[:1:1])
	if err != nil || !ok || string(v) != "xapple" {
		t.Fatalf("get a with full dst: %q ok %v err %v", v, ok, err)
	}
	// The returned slice belongs to the caller: changing it changes nothing stored.
	copy(v, "XXXXXX")
	expectGet(t, db, "a", "apple")
	// An empty value exists; keys and values may hold 0x00.
	v, ok, err = db.Get([]byte("b"), nil)
	if err != nil || !ok || len(v) != 0 {
		t.Fatalf("get b (empty value): %q ok %v err %v", v, ok, err)
	}
	expectGet(t, db, "c\x00d", "with\x00zero")
	expectGet(t, db, "c", "<missing>")
	expectGet(t, db, "a\x00", "<missing>")
}

func testBatchSetDeleteOverwrite(t *testing.T, open Opener) {
	db := openDB(t, open)
	write(t, db, kvPair{"keep", "1"}, kvPair{"gone", "1"}, kvPair{"over", "1"})
	b := db.NewBatch()
	defer closeBatch(t, b)
	if b.Len() != 0 {
		t.Fatalf("new batch Len %d", b.Len())
	}
	b.Set([]byte("a"), []byte("1"))
	b.Set([]byte("b"), []byte("2"))
	b.Delete([]byte("b"))
	b.Set([]byte("c"), []byte("3"))
	b.Set([]byte("c"), []byte("33"))
	b.Delete([]byte("gone"))
	b.Set([]byte("over"), []byte("2"))
	b.Delete([]byte("never-existed"))
	if b.Len() != 8 {
		t.Errorf("Len %d, want 8", b.Len())
	}
	// Nothing is visible before Commit.
	expectGet(t, db, "a", "<missing>")
	expectGet(t, db, "gone", "1")
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("Len after Commit %d, want 0", b.Len())
	}
	for _, c := range []kvPair{{"a", "1"}, {"b", "<missing>"}, {"c", "33"}, {"keep", "1"},
		{"gone", "<missing>"}, {"over", "2"}, {"never-existed", "<missing>"}} {
		expectGet(t, db, c.k, c.v)
	}
	if got, want := scan(t, db, "", ""), []string{"a", "c", "keep", "over"}; !equalStrings(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	// An empty batch commits.
	if err := b.Commit(); err != nil {
		t.Errorf("commit of an empty batch: %v", err)
	}
}

func testBatchCopiesArguments(t *testing.T, open Opener) {
	db := openDB(t, open)
	b := db.NewBatch()
	defer closeBatch(t, b)
	key, val := []byte("k1"), []byte("v1")
	b.Set(key, val)
	copy(key, "k2")
	copy(val, "XX")
	b.Set(key, val)
	del := []byte("k3")
	b.Set(del, []byte("v3"))
	b.Delete(del)
	copy(del, "k2")
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	expectGet(t, db, "k1", "v1")
	expectGet(t, db, "k2", "XX")
	expectGet(t, db, "k3", "<missing>")
}

func testBatchReuse(t *testing.T, open Opener) {
	db := openDB(t, open)
	b := db.NewBatch()
	defer closeBatch(t, b)
	key := make([]byte, 0, 16)
	for round := 0; round < 50; round++ {
		for i := 0; i < 20; i++ {
			key = fmt.Appendf(key[:0], "r%02d/k%02d", round, i)
			b.Set(key, fmt.Appendf(nil, "%d.%d", round, i))
		}
		if round > 0 {
			key = fmt.Appendf(key[:0], "r%02d/k%02d", round-1, 0)
			b.Delete(key)
		}
		if err := b.Commit(); err != nil {
			t.Fatalf("round %d: commit: %v", round, err)
		}
		if b.Len() != 0 {
			t.Fatalf("round %d: Len after Commit %d", round, b.Len())
		}
	}
	for round := 0; round < 50; round++ {
		for i := 0; i < 20; i++ {
			want := fmt.Sprintf("%d.%d", round, i)
			if i == 0 && round < 49 {
				want = "<missing>"
			}
			expectGet(t, db, fmt.Sprintf("r%02d/k%02d", round, i), want)
		}
	}
	if n := len(scan(t, db, "", "")); n != 50*20-49 {
		t.Errorf("%d keys, want %d", n, 50*20-49)
	}
}

func testBatchReset(t *testing.T, open Opener) {
	db := openDB(t, open)
	write(t, db, kvPair{"x", "1"})
	b := db.NewBatch()
	defer closeBatch(t, b)
	b.Set([]byte("a"), []byte("1"))
	b.Delete([]byte("x"))
	b.Reset()
	if b.Len() != 0 {
		t.Errorf("Len after Reset %d", b.Len())
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("commit after reset: %v", err)
	}
	expectGet(t, db, "a", "<missing>")
	expectGet(t, db, "x", "1")
	// The batch still works after Reset.
	b.Set([]byte("b"), []byte("2"))
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	expectGet(t, db, "b", "2")
	expectGet(t, db, "a", "<missing>")
	// Close without Commit applies nothing.
	b2 := db.NewBatch()
	b2.Set([]byte("c"), []byte("3"))
	closeBatch(t, b2)
	expectGet(t, db, "c", "<missing>")
}

// The accounts of testBatchAtomicity: their count, each one's initial balance, the readers.
const (
	bankAccounts = 8
	bankInitial  = 1000
	bankReaders  = 2
)

func bankAccount(i int) []byte { return fmt.Appendf(nil, "acct/%02d", i) }
func bankMarker(i int) []byte  { return kv.AppendUint64([]byte("mark/"), uint64(i)) }

// testBatchAtomicity runs a writer whose batches move amounts between accounts (the sum is
// invariant) and move a single marker key to a new key (Delete plus Set: exactly one marker
// exists), while readers scan both key ranges with iterators and must never see a partially
// applied batch.
func testBatchAtomicity(t *testing.T, open Opener, batches int) {
	db := openDB(t, open)
	b := db.NewBatch()
	defer closeBatch(t, b)
	bal := make([]uint64, bankAccounts)
	for i := range bal {
		bal[i] = bankInitial
		b.Set(bankAccount(i), kv.AppendUint64(nil, bankInitial))
	}
	b.Set(bankMarker(0), nil)
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	done := make(chan struct{})
	wait, reads := startBankReaders(db, done)
	werr := transfer(b, bal, batches)
	close(done)
	for err := range wait() {
		t.Error(err)
	}
	if werr != nil {
		t.Fatal(werr)
	}
	if err := checkInvariant(db, bankAccounts*bankInitial, bankAccounts); err != nil {
		t.Errorf("after the writer: %v", err)
	}
	t.Logf("%d batches; reads per reader %v", batches, reads)
}

// startBankReaders starts the readers, which check the invariant until done is closed (and
// at least once each). wait waits for them and returns their errors; reads counts each one's
// checks.
func startBankReaders(db kv.DB, done <-chan struct{}) (wait func() <-chan error, reads []int) {
	var wg sync.WaitGroup
	errs := make(chan error, bankReaders)
	reads = make([]int, bankReaders)
	for r := range bankReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					if reads[r] > 0 {
						return
					}
				default:
				}
				if err := checkInvariant(db, bankAccounts*bankInitial, bankAccounts); err != nil {
					errs <- fmt.Errorf("read %d: %w", reads[r], err)
					return
				}
				reads[r]++
			}
		}()
	}
	return func() <-chan error { wg.Wait(); close(errs); return errs }, reads
}

// transfer commits batches batches through b, each moving a random amount between two
// accounts of bal (rewriting every account) and the marker to the next key.
func transfer(b kv.Batch, bal []uint64, batches int) error {
	rng := rand.New(rand.NewSource(1))
	for n := 1; n <= batches; n++ {
		from, to := rng.Intn(bankAccounts), rng.Intn(bankAccounts-1)
		if to >= from {
			to++
		}
		amount := uint64(rng.Int63n(int64(bal[from]) + 1))
		bal[from] -= amount
		bal[to] += amount
		// Touch every account: the new values of from and to, the others unchanged.
		for i := range bankAccounts {
			b.Set(bankAccount(i), kv.AppendUint64(nil, bal[i]))
		}
		b.Delete(bankMarker(n - 1))
		b.Set(bankMarker(n), nil)
		if err := b.Commit(); err != nil {
			return fmt.Errorf("batch %d: commit: %w", n, err)
		}
	}
	return nil
}

// checkInvariant scans the accounts and the markers with one iterator each and checks the sum
// and the number of accounts, and that exactly one marker exists.
func checkInvariant(db kv.DB, sum uint64, accounts int) error {
	it, err := db.NewIter([]byte("acct/"), []byte("acct0"))
	if err != nil {
		return fmt.Errorf("new iter: %w", err)
	}
	var got uint64
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		v, _, err := kv.DecodeUint64(it.Value())
		if err != nil {
			err = fmt.Errorf("account %q: %w", it.Key(), err)
			it.Close()
			return err
		}
		got += v
		n++
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		return err
	}
	if got != sum || n != accounts {
		return fmt.Errorf("saw a partial batch: %d accounts summing to %d, want %d summing to %d", n, got, accounts, sum)
	}
	it, err = db.NewIter([]byte("mark/"), kv.PrefixEnd([]byte("mark/")))
	if err != nil {
		return fmt.Errorf("new iter: %w", err)
	}
	markers := 0
	for ok := it.First(); ok; ok = it.Next() {
		markers++
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		return err
	}
	if markers != 1 {
		return fmt.Errorf("saw a partial batch: %d marker keys, want 1", markers)
	}
	return nil
}

// tenKeys writes k0 .. k9 with values v0 .. v9.
func tenKeys(t *testing.T, db kv.DB) {
	t.Helper()
	var pairs []kvPair
	for i := 0; i < 10; i++ {
		pairs = append(pairs, kvPair{fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)})
	}
	write(t, db, pairs...)
}

func keyRange(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("k%d", i))
	}
	return out
}

func testIterBounds(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"a", "before"}, kvPair{"z", "after"})
	cases := []struct {
		lower, upper string
		want         []string
	}{
		{"k2", "k5", keyRange(2, 5)},         // inclusive lower, exclusive upper
		{"k2", "k2\x00", keyRange(2, 3)},     // the smallest range holding one key
		{"k1\x00", "k4\x00", keyRange(2, 5)}, // bounds between keys
		{"k", "l", keyRange(0, 10)},
		{"", "k3", append([]string{"a"}, keyRange(0, 3)...)},
		{"k7", "", append(keyRange(7, 10), "z")},
		{"", "", append(append([]string{"a"}, keyRange(0, 10)...), "z")},
		{"k9", "z", keyRange(9, 10)},
	}
	for _, c := range cases {
		if got := scan(t, db, c.lower, c.upper); !equalStrings(got, c.want) {
			t.Errorf("[%q, %q): %q, want %q", c.lower, c.upper, got, c.want)
		}
	}
	// Key and Value of each position.
	it := newIter(t, db, "k2", "k5")
	defer closeIter(t, it)
	if !it.First() || string(it.Key()) != "k2" || string(it.Value()) != "v2" {
		t.Fatalf("First: valid %v key %q value %q", it.Valid(), it.Key(), it.Value())
	}
	if !it.Last() || string(it.Key()) != "k4" || string(it.Value()) != "v4" {
		t.Fatalf("Last: valid %v key %q value %q", it.Valid(), it.Key(), it.Value())
	}
	if !it.Prev() || string(it.Key()) != "k3" || string(it.Value()) != "v3" {
		t.Fatalf("Prev: valid %v key %q value %q", it.Valid(), it.Key(), it.Value())
	}
}

func testIterSeekGE(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"a", "before"}, kvPair{"z", "after"})
	it := newIter(t, db, "k2", "k7")
	defer closeIter(t, it)
	cases := []struct {
		seek, want string // want "" means invalid
	}{
		{"k4", "k4"},     // exact
		{"k4\x00", "k5"}, // between keys
		{"k2", "k2"},     // the lower bound
		{"k", "k2"},      // before the range: clamped to the lower bound
		{"a", "k2"},      // a key that exists, below the range
		{"k6", "k6"},     // the last key in range
		{"k6\x00", ""},   // after the last key in range
		{"k7", ""},       // the upper bound
		{"z", ""},        // after the range, a key that exists
	}
	for _, c := range cases {
		ok := it.SeekGE([]byte(c.seek))
		if ok != it.Valid() {
			t.Errorf("SeekGE(%q) returned %v but Valid is %v", c.seek, ok, it.Valid())
		}
		switch {
		case c.want == "" && ok:
			t.Errorf("SeekGE(%q) = %q, want invalid", c.seek, it.Key())
		case c.want != "" && !ok:
			t.Errorf("SeekGE(%q) invalid, want %q", c.seek, c.want)
		case c.want != "" && string(it.Key()) != c.want:
			t.Errorf("SeekGE(%q) = %q, want %q", c.seek, it.Key(), c.want)
		}
	}
	// Iteration continues from a seek.
	if !it.SeekGE([]byte("k5")) || !it.Next() || string(it.Key()) != "k6" || it.Next() {
		t.Errorf("SeekGE(k5), Next, Next: not k6 then the end")
	}
	// Unbounded iterator.
	it2 := newIter(t, db, "", "")
	defer closeIter(t, it2)
	if !it2.SeekGE([]byte("k95")) || string(it2.Key()) != "z" {
		t.Errorf("unbounded SeekGE(k95): valid %v, want z", it2.Valid())
	}
	if it2.SeekGE([]byte("zz")) {
		t.Errorf("unbounded SeekGE(zz) = %q, want invalid", it2.Key())
	}
	if !it2.SeekGE(nil) || string(it2.Key()) != "a" {
		t.Errorf("unbounded SeekGE(nil): want a")
	}
}

func testIterDirectionChange(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	it := newIter(t, db, "k1", "k9")
	defer closeIter(t, it)
	step := func(name string, ok bool, want string) {
		t.Helper()
		switch {
		case want == "" && ok:
			t.Fatalf("%s: at %q, want invalid", name, it.Key())
		case want != "" && (!ok || string(it.Key()) != want):
			t.Fatalf("%s: valid %v at %q, want %q", name, ok, it.Key(), want)
		}
	}
	step("First", it.First(), "k1")
	step("Prev", it.Prev(), "")
	step("First", it.First(), "k1")
	step("Next", it.Next(), "k2")
	step("Next", it.Next(), "k3")
	step("Prev", it.Prev(), "k2")
	step("Next", it.Next(), "k3")
	step("Last", it.Last(), "k8")
	step("Next", it.Next(), "")
	step("Last", it.Last(), "k8")
	step("Prev", it.Prev(), "k7")
	step("Next", it.Next(), "k8")
	step("SeekGE", it.SeekGE([]byte("k5")), "k5")
	step("Prev", it.Prev(), "k4")
}

func testIterEmptyRange(t *testing.T, open Opener) {
	db := openDB(t, open)
	// An empty database.
	for _, r := range [][2]string{{"", ""}, {"a", "b"}} {
		it := newIter(t, db, r[0], r[1])
		if it.First() || it.Last() || it.SeekGE([]byte("a")) || it.Valid() {
			t.Errorf("empty database [%q, %q): iterator positioned", r[0], r[1])
		}
		closeIter(t, it)
	}
	tenKeys(t, db)
	for _, r := range [][2]string{{"k5", "k5"}, {"k5\x00", "k6"}, {"a", "b"}, {"l", ""}, {"", "k0"}} {
		it := newIter(t, db, r[0], r[1])
		if it.First() {
			t.Errorf("[%q, %q): First at %q", r[0], r[1], it.Key())
		}
		if it.Last() {
			t.Errorf("[%q, %q): Last at %q", r[0], r[1], it.Key())
		}
		if it.SeekGE([]byte(r[0])) {
			t.Errorf("[%q, %q): SeekGE(lower) at %q", r[0], r[1], it.Key())
		}
		if it.Valid() {
			t.Errorf("[%q, %q): Valid", r[0], r[1])
		}
		closeIter(t, it)
	}
}

func testIterDeletes(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"k3", "<del>"}, kvPair{"k4", "<del>"}, kvPair{"k5", "new5"}, kvPair{"k9", "<del>"})
	want := []string{"k0", "k1", "k2", "k5", "k6", "k7", "k8"}
	if got := scan(t, db, "", ""); !equalStrings(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	it := newIter(t, db, "k3", "")
	defer closeIter(t, it)
	if !it.First() || string(it.Key()) != "k5" || string(it.Value()) != "new5" {
		t.Errorf("First over deleted keys: %q=%q, want k5=new5", it.Key(), it.Value())
	}
	if !it.Last() || string(it.Key()) != "k8" {
		t.Errorf("Last over a deleted key: %q, want k8", it.Key())
	}
	// A commit while an iterator is open, from the same goroutine, must work (workloads do this:
	// building an index reads the primary key while committing index entries). The iterator
	// sees the state as of its creation or later.
	write(t, db, kvPair{"k4", "back"})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if n != 4 && n != 5 {
		t.Errorf("after a concurrent write: %d keys in [k3, ), want 4 or 5", n)
	}
}

// tuple is a key of the schema (bytes, int64, uint64).
type tuple struct {
	s string
	i int64
	u uint64
}

func (tu tuple) key(dst []byte) []byte {
	return kv.AppendUint64(kv.AppendInt64(kv.AppendString(dst, tu.s), tu.i), tu.u)
}

func (tu tuple) less(o tuple) bool {
	if tu.s != o.s {
		return tu.s < o.s
	}
	if tu.i != o.i {
		return tu.i < o.i
	}
	return tu.u < o.u
}

func decodeTuple(key []byte) (tuple, error) {
	s, rest, err := kv.DecodeBytes(key, nil)
	if err != nil {
		return tuple{}, err
	}
	i, rest, err := kv.DecodeInt64(rest)
	if err != nil {
		return tuple{}, err
	}
	u, rest, err := kv.DecodeUint64(rest)
	if err != nil {
		return tuple{}, err
	}
	if len(rest) != 0 {
		return tuple{}, fmt.Errorf("%d bytes after the tuple", len(rest))
	}
	return tuple{string(s), i, u}, nil
}

// testIterTupleOrder writes keys encoded with the kv key encoding in random order and checks
// that an iterator returns them in tuple order, and that a prefix range (the encoded first
// column to its PrefixEnd) holds exactly the tuples with that first column.
func testIterTupleOrder(t *testing.T, open Opener) {
	db := openDB(t, open)
	rng := rand.New(rand.NewSource(7))
	strs := []string{"", "a", "a\x00", "a\x00\x00", "a\x01", "a\xff", "ab", "b", "\x00", "\xff", "\xff\xff"}
	ints := []int64{-1 << 62, -1000, -1, 0, 1, 1000, 1 << 62}
	set := make(map[tuple]bool)
	b := db.NewBatch()
	defer closeBatch(t, b)
	var key []byte
	for n := 0; n < 3000; n++ {
		tu := tuple{strs[rng.Intn(len(strs))], ints[rng.Intn(len(ints))], uint64(rng.Intn(20)) << uint(rng.Intn(60))}
		set[tu] = true
		key = tu.key(key[:0])
		b.Set(key, []byte(fmt.Sprint(tu.i)))
		if b.Len() == 500 {
			if err := b.Commit(); err != nil {
				t.Fatalf("commit: %v", err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	want := make([]tuple, 0, len(set))
	for tu := range set {
		want = append(want, tu)
	}
	sort.Slice(want, func(i, j int) bool { return want[i].less(want[j]) })

	it := newIter(t, db, "", "")
	var got []tuple
	for ok := it.First(); ok; ok = it.Next() {
		tu, err := decodeTuple(it.Key())
		if err != nil {
			t.Fatalf("decode key %x: %v", it.Key(), err)
		}
		got = append(got, tu)
	}
	closeIter(t, it)
	if len(got) != len(want) {
		t.Fatalf("%d keys, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("position %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	// Prefix ranges on the first column, and on the first two.
	for _, s := range strs {
		lower := kv.AppendString(nil, s)
		checkPrefix(t, db, lower, want, func(tu tuple) bool { return tu.s == s })
		lower = kv.AppendInt64(lower, -1)
		checkPrefix(t, db, lower, want, func(tu tuple) bool { return tu.s == s && tu.i == -1 })
	}
}

func checkPrefix(t *testing.T, db kv.DB, prefix []byte, all []tuple, match func(tuple) bool) {
	t.Helper()
	var want []tuple
	for _, tu := range all {
		if match(tu) {
			want = append(want, tu)
		}
	}
	it, err := db.NewIter(prefix, kv.PrefixEnd(prefix))
	if err != nil {
		t.Fatalf("new iter: %v", err)
	}
	defer closeIter(t, it)
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if !bytes.HasPrefix(it.Key(), prefix) {
			t.Fatalf("prefix %x: key %x outside", prefix, it.Key())
		}
		tu, err := decodeTuple(it.Key())
		if err != nil {
			t.Fatalf("decode key %x: %v", it.Key(), err)
		}
		if n >= len(want) || tu != want[n] {
			t.Fatalf("prefix %x: key %d is %+v, want %d keys %+v", prefix, n, tu, len(want), want)
		}
		n++
	}
	if n != len(want) {
		t.Errorf("prefix %x: %d keys, want %d", prefix, n, len(want))
	}
}

func testReopen(t *testing.T, open Opener) {
	dir := t.TempDir()
	db := open(t, dir)
	var pairs []kvPair
	for i := 0; i < 1000; i++ {
		pairs = append(pairs, kvPair{fmt.Sprintf("key%04d", i), fmt.Sprintf("value%d", i)})
	}
	write(t, db, pairs...)
	write(t, db, kvPair{"key0001", "<del>"}, kvPair{"key0002", "changed"})
	b := db.NewBatch()
	b.Set([]byte("uncommitted"), []byte("x"))
	closeBatch(t, b)
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	db = open(t, dir)
	defer func() {
		if err := db.Close(); err != nil {
			t.Errorf("close after reopen: %v", err)
		}
	}()
	expectGet(t, db, "key0000", "value0")
	expectGet(t, db, "key0001", "<missing>")
	expectGet(t, db, "key0002", "changed")
	expectGet(t, db, "key0999", "value999")
	expectGet(t, db, "uncommitted", "<missing>")
	if n := len(scan(t, db, "", "")); n != 999 {
		t.Errorf("%d keys after reopen, want 999", n)
	}
	// The reopened engine takes writes.
	write(t, db, kvPair{"after", "reopen"})
	expectGet(t, db, "after", "reopen")
}

func testConcurrentWriters(t *testing.T, open Opener) {
	db := openDB(t, open)
	const (
		writers   = 4
		batches   = 50
		perBatch  = 20
		totalKeys = writers * batches * perBatch
	)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			b := db.NewBatch()
			defer b.Close()
			var key, val []byte
			for n := 0; n < batches; n++ {
				for i := 0; i < perBatch; i++ {
					key = fmt.Appendf(key[:0], "w%d/%05d", w, n*perBatch+i)
					val = fmt.Appendf(val[:0], "%d", w*1000000+n*perBatch+i)
					b.Set(key, val)
				}
				if err := b.Commit(); err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, n, err)
					return
				}
				// Readers run alongside the writers.
				if _, _, err := db.Get(key, nil); err != nil {
					errs <- fmt.Errorf("writer %d get: %w", w, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < batches*perBatch; i++ {
			v, ok := get(t, db, fmt.Sprintf("w%d/%05d", w, i))
			if want := fmt.Sprint(w*1000000 + i); !ok || v != want {
				t.Fatalf("writer %d key %d: %q (found %v), want %q", w, i, v, ok, want)
			}
		}
	}
	if n := len(scan(t, db, "", "")); n != totalKeys {
		t.Errorf("%d keys, want %d", n, totalKeys)
	}
}

func testCount(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"a", "before"}, kvPair{"z", "after"})
	ctx := context.Background()
	for _, c := range []struct {
		lower, upper string
		want         int64
	}{{"k2", "k5", 3}, {"k", "l", 10}, {"", "", 12}, {"m", "n", 0}} {
		if n, err := kv.Count(ctx, db, bound(c.lower), bound(c.upper)); err != nil || n != c.want {
			t.Errorf("Count [%q, %q) = %d, %v; want %d", c.lower, c.upper, n, err, c.want)
		}
	}
}

// RequireBuilt skips the test when the engine of d is not built into this test binary (an
// engine behind a build tag, such as lmdb without -tags lmdb), saying how to build it in.
// `make test` builds every engine whose library is installed, and CI installs them all.
func RequireBuilt(t testing.TB, d engine.Driver) {
	t.Helper()
	if d.Available == nil || d.Server {
		return
	}
	if err := d.Available(); err != nil {
		t.Skipf("%s: %v", d.Name, err)
	}
}

// ResidentMB returns the test process's resident memory in MiB after a garbage collection, for
// tests that check a binding frees what its C library allocates; it skips the test where /proc
// cannot tell.
func ResidentMB(t testing.TB) float64 {
	t.Helper()
	runtime.GC()
	p, err := procfs.Self()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	st, err := p.Stat()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return float64(st.ResidentMemory()) / (1 << 20)
}

// ResidentGrowth runs round warmup times, then rounds times, and returns by how many MiB the
// resident memory grew over the rounds (ResidentMB before and after), for the leak tests of the
// cgo engines; it logs the growth.
func ResidentGrowth(t testing.TB, warmup, rounds int, round func()) float64 {
	t.Helper()
	for range warmup {
		round()
	}
	base := ResidentMB(t)
	for range rounds {
		round()
	}
	grown := ResidentMB(t) - base
	t.Logf("resident memory grew by %.1f MiB over %d rounds", grown, rounds)
	return grown
}

// CheckNotBuilt checks that d, an engine behind build tag tag that the test binary was built
// without, is listed as not built with the command that builds it in, and refuses to open.
func CheckNotBuilt(t *testing.T, d engine.Driver, tag string) {
	t.Helper()
	if err := d.Available(); err == nil || !strings.Contains(err.Error(), "-tags "+tag) {
		t.Errorf("Available: %v", err)
	}
	if _, err := d.Open(context.Background(), engine.Config{DataDir: t.TempDir()}); err == nil {
		t.Error("opened an engine that is not built in")
	}
}

// Cleanup runs c's Cleanup with hooks that keep its notes and count its waits, fails t on
// error, and checks that it noted one thing that contains want and called Wait at most once.
func Cleanup(t testing.TB, c engine.Cleaner, want string) {
	t.Helper()
	var notes []string
	waits := 0
	h := engine.CleanupHooks{
		Wait: func(ctx context.Context) error { waits++; return ctx.Err() },
		Note: func(n string) { notes = append(notes, n) },
	}
	if err := c.Cleanup(context.Background(), h); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], want) || waits > 1 {
		t.Errorf("Cleanup noted %q and waited %d times, want one note with %q and at most one wait", notes, waits, want)
	}
}

// CheckClose checks how d closes: Close refuses while an iterator is open and closes once it is
// closed; afterwards Get and a second Close fail with kv.ErrClosed.
func CheckClose(t testing.TB, d kv.DB) {
	t.Helper()
	it, err := d.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err == nil || !strings.Contains(err.Error(), "iterators are still open") {
		t.Errorf("close under an iterator: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Get([]byte("k"), nil); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("get after close: %v", err)
	}
	if err := d.Close(); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}

// writeReadClose writes n keys (k000000 on) with value val in one batch, reads one back, counts
// them and closes d: one round of the cgo engines' leak tests (ResidentGrowth), which must free
// what each of these steps takes from the C library.
func writeReadClose(t testing.TB, d kv.DB, n int, val []byte) {
	t.Helper()
	b := d.NewBatch()
	for i := range n {
		b.Set(fmt.Appendf(nil, "k%06d", i), val)
	}
	if err := errors.Join(b.Commit(), b.Close()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Get([]byte("k000007"), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := kv.Count(context.Background(), d, nil, nil); err != nil || got != int64(n) {
		t.Fatalf("count %d, %v, want %d", got, err, n)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// Reopens is a leak test of an engine that binds a C library: after Warmup rounds, Rounds times,
// the engine is opened with Settings on one directory and given writeReadClose with Keys keys of
// ValueBytes bytes; over those rounds the resident memory may grow by LimitMB at the most.
type Reopens struct {
	Settings                         map[string]string
	Keys, ValueBytes, Warmup, Rounds int
	LimitMB                          float64
}

// CheckReopens runs the leak test r on the engine of d; it is skipped under -short.
func CheckReopens(t *testing.T, d engine.Driver, r Reopens) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%d reopens", r.Rounds)
	}
	dir := t.TempDir()
	val := make([]byte, r.ValueBytes)
	round := func() {
		writeReadClose(t, enginetest.Open(t, context.Background(), d, "", r.Settings, dir).(kv.DB), r.Keys, val)
	}
	if grown := ResidentGrowth(t, r.Warmup, r.Rounds, round); grown > r.LimitMB {
		t.Errorf("resident memory grew by %.1f MiB over %d reopens, more than %v MiB", grown, r.Rounds, r.LimitMB)
	}
}

// CheckCapDefaults checks d's CapDefaults at caps of 256 MiB, 1 GiB and 4 GiB: they pass the
// registry's check, and the memory mem computes from them (the engine's caches and buffers at
// their largest, or an error when they say something else is wrong) takes between a quarter
// and three quarters of the cap; the rest is the harness's and the page cache's.
func CheckCapDefaults(t *testing.T, d engine.Driver, mem func(settings map[string]string) (int64, error)) {
	t.Helper()
	reg, err := engine.NewRegistry(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, capBytes := range []int64{256 << 20, 1 << 30, 4 << 30} {
		cd := d.CapDefaults(capBytes)
		if err := reg.Check(engine.Config{Engine: d.Name, Settings: cd}); err != nil {
			t.Fatalf("cap of %d MiB: %v", capBytes>>20, err)
		}
		m, err := mem(cd)
		if err != nil {
			t.Errorf("cap of %d MiB: %v", capBytes>>20, err)
			continue
		}
		if m < capBytes/4 || m > capBytes*3/4 {
			t.Errorf("cap of %d MiB: caches and buffers of %d MiB", capBytes>>20, m>>20)
		}
	}
}
