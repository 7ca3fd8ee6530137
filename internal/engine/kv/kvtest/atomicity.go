package kvtest

import (
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

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
