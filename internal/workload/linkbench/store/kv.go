package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/runner"
)

// The KV layout: one key range per table and index, each under a one-byte tag, with
// order-preserving integers (kv.AppendInt64: 8 bytes, big-endian, sign bit flipped) in the keys
// and plain big-endian integers in the values:
//
//	linktable  'l' link_type id1 id2                   -> visibility(1) time(8) version(8) data
//	id1_type   'i' id1 link_type visibility(1) time id2 -> version(8) data
//	counttable 'c' id1 link_type                        -> count(8) time(8) version(8)
//	nodetable  'n' id                                   -> type(4) version(8) time(4) data
//
// id1_type holds every link, hidden or visible, as the SQL index does, and covers
// GET_LINKS_LIST, which never reads the linktable range. AddLink and DeleteLink take a lock on
// (id1, link_type), read the link and its count, and write the link, its index entries and the
// count in one batch.

// Table tags: the first byte of every key of a table or index.
const (
	tagLink  byte = 'l'
	tagIndex byte = 'i'
	tagCount byte = 'c'
	tagNode  byte = 'n'
)

// Sizes of the fixed parts of keys and values.
const (
	linkKeyLen   = 1 + 3*8
	linkValFixed = 1 + 8 + 8
	indexKeyLen  = 1 + 8 + 8 + 1 + 8 + 8
	indexPrefix  = 1 + 8 + 8 + 1 // tag id1 link_type visibility
	countKeyLen  = 1 + 2*8
	countValLen  = 3 * 8
	nodeKeyLen   = 1 + 8
	nodeValFixed = 4 + 8 + 4
)

// lockStripes is the number of mutexes that serialize writes to one (id1, link_type) (and to
// one node): a power of two.
const lockStripes = 4096

// createIndexBatch is how many index entries CreateIndex commits at once.
const createIndexBatch = 1000

// kvStore is the Store of a key-value engine.
type kvStore struct {
	db       kv.DB
	opt      Options
	indexed  atomic.Bool  // the id1_type range is maintained
	nextNode atomic.Int64 // the id AddNode assigns next
	locks    [lockStripes]sync.Mutex
}

func newKVStore(db kv.DB, opt Options) *kvStore {
	s := &kvStore{db: db, opt: opt}
	s.indexed.Store(!opt.DeferIndex)
	s.nextNode.Store(1)
	return s
}

// lock returns the mutex of (a, b).
func (s *kvStore) lock(a, b int64) *sync.Mutex { return &s.locks[stripe(a, b)] }

// stripe is the lock stripe of (a, b): a mix of both, below lockStripes.
func stripe(a, b int64) uint64 {
	h := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	return h & (lockStripes - 1)
}

// Create declares the key ranges of the tables and the index: an engine that keeps ranges apart
// makes each a table or an index of its own (kv.Ranger).
func (s *kvStore) Create(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := kv.DeclareRanges(s.db, []kv.Range{
		{Name: "linktable", Prefix: []byte{tagLink}},
		{Name: indexName, Prefix: []byte{tagIndex}, Secondary: true},
		{Name: "counttable", Prefix: []byte{tagCount}},
		{Name: "nodetable", Prefix: []byte{tagNode}},
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
}

// CreateIndex reads the linktable range in order and writes an id1_type entry per link,
// committing every createIndexBatch entries. It reads through a new iterator after each commit
// (kv.ScanChunks): a copy-on-write B-tree cannot reuse the pages of its commits while one
// snapshot of the whole linktable is open.
func (s *kvStore) CreateIndex(ctx context.Context) error {
	if s.indexed.Load() {
		return fmt.Errorf("create index %s: it exists (Options.DeferIndex was not set)", indexName)
	}
	b := s.db.NewBatch()
	defer b.Close()
	var key, val []byte
	var l Link
	_, err := kv.ScanChunks(ctx, s.db, []byte{tagLink}, []byte{tagLink + 1}, createIndexBatch, func(k, v []byte) error {
		if err := decodeLink(k, v, &l); err != nil {
			return err
		}
		key = appendIndexKey(key[:0], l.ID1, l.LinkType, l.Visibility, l.Time, l.ID2)
		val = appendIndexValue(val[:0], l.Version, l.Data)
		b.Set(key, val)
		return nil
	}, b.Commit)
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		return fmt.Errorf("create index %s: %w", indexName, err)
	}
	s.indexed.Store(true)
	return nil
}

// FinishLoad makes AddNode assign ids from nextNodeID on (or after the largest id loaded, if
// that is larger).
func (s *kvStore) FinishLoad(ctx context.Context, nextNodeID int64) error {
	s.advanceNode(nextNodeID)
	return ctx.Err()
}

// advanceNode raises the next node id to at least next.
func (s *kvStore) advanceNode(next int64) {
	for {
		cur := s.nextNode.Load()
		if cur >= next || s.nextNode.CompareAndSwap(cur, next) {
			return
		}
	}
}

// Client returns a client with its own batch and buffers.
func (s *kvStore) Client(ctx context.Context) (Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("linkbench client: %w", err)
	}
	return &kvClient{s: s, b: s.db.NewBatch(), retryState: newRetryState(&s.opt)}, nil
}

// Rows counts the keys of each range.
func (s *kvStore) Rows(ctx context.Context) (Rows, error) {
	r := Rows{LinksByIndex: -1}
	var err error
	if r.LinksByPK, err = s.countRange(ctx, tagLink); err != nil {
		return r, err
	}
	if s.indexed.Load() {
		if r.LinksByIndex, err = s.countRange(ctx, tagIndex); err != nil {
			return r, err
		}
	}
	if r.Counts, err = s.countRange(ctx, tagCount); err != nil {
		return r, err
	}
	if r.Nodes, err = s.countRange(ctx, tagNode); err != nil {
		return r, err
	}
	return r, nil
}

func (s *kvStore) countRange(ctx context.Context, tag byte) (int64, error) {
	n, err := kv.Count(ctx, s.db, []byte{tag}, []byte{tag + 1})
	if err != nil {
		return n, fmt.Errorf("count range %q: %w", tag, err)
	}
	return n, nil
}

// Key and value encoding.

func appendIDKey(dst []byte, tag byte, id int64) []byte {
	return kv.AppendInt64(append(dst, tag), id)
}

func appendLinkKey(dst []byte, linkType, id1, id2 int64) []byte {
	return kv.AppendInt64(kv.AppendInt64(kv.AppendInt64(append(dst, tagLink), linkType), id1), id2)
}

func appendLinkValue(dst []byte, vis int8, tm, version int64, data []byte) []byte {
	dst = append(dst, byte(vis))
	dst = binary.BigEndian.AppendUint64(dst, uint64(tm))
	dst = binary.BigEndian.AppendUint64(dst, uint64(version))
	return append(dst, data...)
}

// appendIndexPrefix appends the prefix of the id1_type entries of (id1, linkType, vis).
func appendIndexPrefix(dst []byte, id1, linkType int64, vis int8) []byte {
	return append(kv.AppendInt64(kv.AppendInt64(append(dst, tagIndex), id1), linkType), byte(vis))
}

func appendIndexKey(dst []byte, id1, linkType int64, vis int8, tm, id2 int64) []byte {
	return kv.AppendInt64(kv.AppendInt64(appendIndexPrefix(dst, id1, linkType, vis), tm), id2)
}

func appendIndexValue(dst []byte, version int64, data []byte) []byte {
	return append(binary.BigEndian.AppendUint64(dst, uint64(version)), data...)
}

func appendCountKey(dst []byte, id1, linkType int64) []byte {
	return kv.AppendInt64(kv.AppendInt64(append(dst, tagCount), id1), linkType)
}

func appendCountValue(dst []byte, count, tm, version int64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(count))
	dst = binary.BigEndian.AppendUint64(dst, uint64(tm))
	return binary.BigEndian.AppendUint64(dst, uint64(version))
}

func appendNodeValue(dst []byte, typ int32, version int64, tm int32, data []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(typ))
	dst = binary.BigEndian.AppendUint64(dst, uint64(version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(tm))
	return append(dst, data...)
}

// decodeInt decodes the order-preserving int64 at the front of b (8 bytes or more).
func decodeInt(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

// decodeLink fills l from a linktable entry; l.Data aliases val.
func decodeLink(key, val []byte, l *Link) error {
	if len(key) != linkKeyLen || len(val) < linkValFixed {
		return fmt.Errorf("corrupt linktable entry (key %d bytes, value %d bytes)", len(key), len(val))
	}
	l.LinkType, l.ID1, l.ID2 = decodeInt(key[1:]), decodeInt(key[9:]), decodeInt(key[17:])
	l.Visibility = int8(val[0])
	l.Time = int64(binary.BigEndian.Uint64(val[1:]))
	l.Version = int64(binary.BigEndian.Uint64(val[9:]))
	l.Data = val[linkValFixed:]
	return nil
}

// kvClient reuses one batch and its buffers for every operation.
type kvClient struct {
	retryState
	s *kvStore
	b kv.Batch
	// key and val are the operation's link (or node) entry; key2 and val2 hold index and count
	// entries; lo and hi are iterator bounds.
	key, val, key2, val2, lo, hi []byte
	link                         Link
	node                         Node

	// onLink and onNode, when set (by tests), see every link and node a read returns.
	onLink func(*Link)
	onNode func(*Node)
}

// Close releases the batch.
func (c *kvClient) Close() error {
	if err := c.b.Close(); err != nil {
		return fmt.Errorf("close linkbench client: %w", err)
	}
	return nil
}

// commit commits the batch, or empties it when the commit fails.
func (c *kvClient) commit(op string) error {
	if err := c.b.Commit(); err != nil {
		c.b.Reset()
		return runner.OpError(op, err)
	}
	return nil
}

// InsertLinks writes the links (and their id1_type entries unless deferred) in one batch.
func (c *kvClient) InsertLinks(_ context.Context, links []Link) error {
	indexed := c.s.indexed.Load()
	for i := range links {
		l := &links[i]
		c.key = appendLinkKey(c.key[:0], l.LinkType, l.ID1, l.ID2)
		c.val = appendLinkValue(c.val[:0], l.Visibility, l.Time, l.Version, l.Data)
		c.b.Set(c.key, c.val)
		if indexed {
			c.key = appendIndexKey(c.key[:0], l.ID1, l.LinkType, l.Visibility, l.Time, l.ID2)
			c.val = appendIndexValue(c.val[:0], l.Version, l.Data)
			c.b.Set(c.key, c.val)
		}
	}
	return c.commit("insert links")
}

// InsertCounts writes the counttable entries in one batch.
func (c *kvClient) InsertCounts(_ context.Context, counts []Count) error {
	for i := range counts {
		n := &counts[i]
		c.key = appendCountKey(c.key[:0], n.ID1, n.LinkType)
		c.val = appendCountValue(c.val[:0], n.Count, n.Time, n.Version)
		c.b.Set(c.key, c.val)
	}
	return c.commit("insert counts")
}

// InsertNodes writes the nodes in one batch; AddNode assigns ids after the largest.
func (c *kvClient) InsertNodes(_ context.Context, nodes []Node) error {
	largest := int64(math.MinInt64)
	for i := range nodes {
		n := &nodes[i]
		c.key = appendIDKey(c.key[:0], tagNode, n.ID)
		c.val = appendNodeValue(c.val[:0], n.Type, n.Version, n.Time, n.Data)
		c.b.Set(c.key, c.val)
		largest = max(largest, n.ID)
	}
	if err := c.commit("insert nodes"); err != nil {
		return err
	}
	if len(nodes) > 0 && largest < math.MaxInt64 {
		c.s.advanceNode(largest + 1)
	}
	return nil
}

// UpdateLink is AddLink: one batch decides insert or update either way.
func (c *kvClient) UpdateLink(ctx context.Context, l *Link) (WriteResult, error) {
	return c.AddLink(ctx, l)
}

// ResetNodes does nothing: the nodes are written with their ids.
func (c *kvClient) ResetNodes(ctx context.Context, _ int64) error { return ctx.Err() }

// AddLink reads the link and its count and writes both (and the index entries) in one batch,
// under the lock of (id1, link_type).
func (c *kvClient) AddLink(_ context.Context, l *Link) (WriteResult, error) {
	mu := c.s.lock(l.ID1, l.LinkType)
	mu.Lock()
	defer mu.Unlock()
	c.key = appendLinkKey(c.key[:0], l.LinkType, l.ID1, l.ID2)
	old, found, err := c.s.db.Get(c.key, c.val[:0])
	if err != nil {
		return 0, fmt.Errorf("add link: read the link: %w", err)
	}
	c.val = old
	res := Inserted
	var oldVis int8
	var oldTime int64
	if found {
		if len(old) < linkValFixed {
			return 0, fmt.Errorf("add link: corrupt linktable entry (value %d bytes)", len(old))
		}
		oldVis, oldTime = int8(old[0]), int64(binary.BigEndian.Uint64(old[1:]))
		res = Revealed
		if oldVis == Visible {
			res = Updated
		}
	}
	c.val2 = appendLinkValue(c.val2[:0], Visible, l.Time, l.Version, l.Data)
	c.b.Set(c.key, c.val2)
	if c.s.indexed.Load() {
		if found && (oldVis != Visible || oldTime != l.Time) {
			c.key2 = appendIndexKey(c.key2[:0], l.ID1, l.LinkType, oldVis, oldTime, l.ID2)
			c.b.Delete(c.key2)
		}
		c.key2 = appendIndexKey(c.key2[:0], l.ID1, l.LinkType, Visible, l.Time, l.ID2)
		c.val2 = appendIndexValue(c.val2[:0], l.Version, l.Data)
		c.b.Set(c.key2, c.val2)
	}
	if res != Updated {
		if err := c.changeCount(l.ID1, l.LinkType, 1); err != nil {
			c.b.Reset()
			return 0, fmt.Errorf("add link: %w", err)
		}
	}
	return res, c.commit("add link")
}

// changeCount adds to the batch the count of (id1, linkType) plus delta, never below 0.
func (c *kvClient) changeCount(id1, linkType, delta int64) error {
	c.key2 = appendCountKey(c.key2[:0], id1, linkType)
	v, found, err := c.s.db.Get(c.key2, c.val2[:0])
	if err != nil {
		return fmt.Errorf("read the count: %w", err)
	}
	c.val2 = v
	var count, version int64
	if found {
		if len(v) != countValLen {
			return fmt.Errorf("corrupt counttable entry (value %d bytes)", len(v))
		}
		count, version = int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[16:]))+1
	}
	count = max(count+delta, 0)
	c.val2 = appendCountValue(c.val2[:0], count, time.Now().UnixMilli(), version)
	c.b.Set(c.key2, c.val2)
	return nil
}

// DeleteLink hides or deletes the link and lowers its count in one batch, under the lock of
// (id1, link_type).
func (c *kvClient) DeleteLink(_ context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	mu := c.s.lock(id1, linkType)
	mu.Lock()
	defer mu.Unlock()
	c.key = appendLinkKey(c.key[:0], linkType, id1, id2)
	old, found, err := c.s.db.Get(c.key, c.val[:0])
	if err != nil {
		return false, fmt.Errorf("delete link: read the link: %w", err)
	}
	c.val = old
	if !found {
		return false, nil
	}
	if len(old) < linkValFixed {
		return false, fmt.Errorf("delete link: corrupt linktable entry (value %d bytes)", len(old))
	}
	vis, tm := int8(old[0]), int64(binary.BigEndian.Uint64(old[1:]))
	if vis != Visible && !expunge {
		return true, nil
	}
	indexed := c.s.indexed.Load()
	if indexed {
		c.key2 = appendIndexKey(c.key2[:0], id1, linkType, vis, tm, id2)
		c.b.Delete(c.key2)
	}
	if expunge {
		c.b.Delete(c.key)
	} else {
		old[0] = byte(Hidden)
		c.b.Set(c.key, old)
		if indexed {
			c.key2 = appendIndexKey(c.key2[:0], id1, linkType, Hidden, tm, id2)
			c.b.Set(c.key2, old[1+8:]) // version, data
		}
	}
	if vis == Visible {
		if err := c.changeCount(id1, linkType, -1); err != nil {
			c.b.Reset()
			return false, fmt.Errorf("delete link: %w", err)
		}
	}
	return true, c.commit("delete link")
}

// GetLinkList walks the id1_type entries of (id1, linkType, visible) with time in
// [0, maxTime] backwards, from the newest.
func (c *kvClient) GetLinkList(_ context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	if maxTime < 0 || limit <= 0 {
		return 0, 0, nil
	}
	c.lo = kv.AppendInt64(appendIndexPrefix(c.lo[:0], id1, linkType, Visible), 0)
	if maxTime == math.MaxInt64 {
		c.hi = appendIndexPrefix(c.hi[:0], id1, linkType, Visible+1)
	} else {
		c.hi = kv.AppendInt64(appendIndexPrefix(c.hi[:0], id1, linkType, Visible), maxTime+1)
	}
	it, err := c.s.db.NewIter(c.lo, c.hi)
	if err != nil {
		return 0, 0, fmt.Errorf("get link list: %w", err)
	}
	n := 0
	var last int64
	for ok := it.Last(); ok && n < limit; ok = it.Prev() {
		if offset > 0 {
			offset--
			continue
		}
		k, v := it.Key(), it.Value()
		if len(k) != indexKeyLen || len(v) < 8 {
			it.Close()
			return n, last, fmt.Errorf("get link list: corrupt %s entry (key %d bytes, value %d bytes)", indexName, len(k), len(v))
		}
		last = decodeInt(k[indexPrefix:])
		n++
		if c.onLink != nil {
			c.link = Link{ID1: id1, LinkType: linkType, ID2: decodeInt(k[indexPrefix+8:]), Visibility: Visible,
				Time: last, Version: int64(binary.BigEndian.Uint64(v)), Data: v[8:]}
			c.onLink(&c.link)
		}
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		return n, last, fmt.Errorf("get link list: %w", err)
	}
	return n, last, nil
}

// MultigetLinks reads each link's linktable entry.
func (c *kvClient) MultigetLinks(_ context.Context, id1, linkType int64, id2s []int64) (int, error) {
	found := 0
	for _, id2 := range id2s {
		c.key = appendLinkKey(c.key[:0], linkType, id1, id2)
		v, ok, err := c.s.db.Get(c.key, c.val[:0])
		if err != nil {
			return found, fmt.Errorf("multiget links: %w", err)
		}
		c.val = v
		if !ok {
			continue
		}
		found++
		if c.onLink != nil {
			if err := decodeLink(c.key, v, &c.link); err != nil {
				return found, fmt.Errorf("multiget links: %w", err)
			}
			c.onLink(&c.link)
		}
	}
	return found, nil
}

// CountLinks reads the counttable entry.
func (c *kvClient) CountLinks(_ context.Context, id1, linkType int64) (int64, error) {
	c.key = appendCountKey(c.key[:0], id1, linkType)
	v, ok, err := c.s.db.Get(c.key, c.val[:0])
	if err != nil {
		return 0, fmt.Errorf("count links: %w", err)
	}
	c.val = v
	if !ok {
		return 0, nil
	}
	if len(v) != countValLen {
		return 0, fmt.Errorf("count links: corrupt counttable entry (value %d bytes)", len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// AddNode writes the node under the next id of the Store's counter.
func (c *kvClient) AddNode(_ context.Context, n *Node) (int64, error) {
	id := c.s.nextNode.Add(1) - 1
	c.key = appendIDKey(c.key[:0], tagNode, id)
	c.val = appendNodeValue(c.val[:0], n.Type, n.Version, n.Time, n.Data)
	c.b.Set(c.key, c.val)
	if err := c.commit("add node"); err != nil {
		return 0, err
	}
	return id, nil
}

// UpdateNode rewrites an existing node (keeping its type) under the node's lock.
func (c *kvClient) UpdateNode(_ context.Context, n *Node) (bool, error) {
	mu := c.s.lock(n.ID, math.MinInt64)
	mu.Lock()
	defer mu.Unlock()
	c.key = appendIDKey(c.key[:0], tagNode, n.ID)
	v, ok, err := c.s.db.Get(c.key, c.val[:0])
	if err != nil {
		return false, fmt.Errorf("update node: %w", err)
	}
	c.val = v
	if !ok {
		return false, nil
	}
	if len(v) < nodeValFixed {
		return false, fmt.Errorf("update node: corrupt nodetable entry (value %d bytes)", len(v))
	}
	c.val = appendNodeValue(c.val[:0], int32(binary.BigEndian.Uint32(v)), n.Version, n.Time, n.Data)
	c.b.Set(c.key, c.val)
	return true, c.commit("update node")
}

// DeleteNode deletes an existing node under the node's lock.
func (c *kvClient) DeleteNode(_ context.Context, id int64) (bool, error) {
	mu := c.s.lock(id, math.MinInt64)
	mu.Lock()
	defer mu.Unlock()
	c.key = appendIDKey(c.key[:0], tagNode, id)
	v, ok, err := c.s.db.Get(c.key, c.val[:0])
	if err != nil {
		return false, fmt.Errorf("delete node: %w", err)
	}
	c.val = v
	if !ok {
		return false, nil
	}
	c.b.Delete(c.key)
	return true, c.commit("delete node")
}

// GetNode reads the node.
func (c *kvClient) GetNode(_ context.Context, id int64) (bool, error) {
	c.key = appendIDKey(c.key[:0], tagNode, id)
	v, ok, err := c.s.db.Get(c.key, c.val[:0])
	if err != nil {
		return false, fmt.Errorf("get node: %w", err)
	}
	c.val = v
	if !ok {
		return false, nil
	}
	if len(v) < nodeValFixed {
		return false, fmt.Errorf("get node: corrupt nodetable entry (value %d bytes)", len(v))
	}
	if c.onNode != nil {
		c.node = Node{ID: id, Type: int32(binary.BigEndian.Uint32(v)), Version: int64(binary.BigEndian.Uint64(v[4:])),
			Time: int32(binary.BigEndian.Uint32(v[12:])), Data: v[nodeValFixed:]}
		c.onNode(&c.node)
	}
	return true, nil
}
