package bbolt

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

// cursor is a bbolt cursor in a read transaction that lasts until Close: the iterator sees one
// snapshot, as the kv contract asks.
//
// bbolt's writer remaps the file when it outgrows the map and waits for every open read
// transaction: a client that commits while it holds an iterator (index creation does) would
// wait for itself. The map is made large at open (initial_mmap_mb, 1 TiB of address space by
// default), so that no remap happens below that size.
type cursor struct {
	tx *bolt.Tx
	c  *bolt.Cursor
}

// NewIter returns an iterator over [lower, upper). It copies the bounds and begins a read
// transaction that Close ends.
func (d *db) NewIter(lower, upper []byte) (kv.Iter, error) {
	if err := d.CheckOpen("new iterator"); err != nil {
		return nil, err
	}
	tx, err := d.bdb.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("bbolt: new iterator: %w", err)
	}
	return kv.NewBoundedIter(&cursor{tx: tx, c: tx.Bucket(bucketName).Cursor()}, lower, upper), nil
}

func entry(k, v []byte) ([]byte, []byte, bool, error) { return k, v, k != nil, nil }

func (c *cursor) First() ([]byte, []byte, bool, error)            { return entry(c.c.First()) }
func (c *cursor) Last() ([]byte, []byte, bool, error)             { return entry(c.c.Last()) }
func (c *cursor) SeekGE(key []byte) ([]byte, []byte, bool, error) { return entry(c.c.Seek(key)) }
func (c *cursor) Next() ([]byte, []byte, bool, error)             { return entry(c.c.Next()) }
func (c *cursor) Prev() ([]byte, []byte, bool, error)             { return entry(c.c.Prev()) }

// Close ends the read transaction.
func (c *cursor) Close() error {
	if err := c.tx.Rollback(); err != nil {
		return fmt.Errorf("bbolt: close iterator: %w", err)
	}
	return nil
}
