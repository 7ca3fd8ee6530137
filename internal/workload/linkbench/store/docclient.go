package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/runner"
)

// docClient runs the requests of one goroutine with buffers it reuses for the commands'
// documents. The reference variant sends what LinkbenchX's LinkStoreMongoDBv2 sends (no
// transactions, no retries); the corrected variant what mdcallag's LinkStoreMongoDb2 sends,
// its units of work in doc.DB.Transact and retried as it retries them. docs/fidelity.md lists
// every difference.
type docClient struct {
	retryState
	s *docStore
	// f, u and x hold a command's filter, update and a second document.
	f, u, x bsonBuf
	// raw is the document FindOne read.
	raw  bson.Raw
	docs []bson.Raw // a batch of the load
	ends []int      // where each document of the batch ends
	link Link
	node Node

	// The state of the reads' callbacks, which are the methods below, bound once (newDocClient)
	// so that a read allocates no closure.
	list                            listState
	count                           int64
	seen, nodeFound                 bool
	listed, readLinkFn, readCountFn func(bson.Raw) error
	readNodeFn                      func(bson.Raw) error
	listUnit                        func(context.Context) error

	// onLink and onNode, when set (by tests), see every link and node a read returns.
	onLink func(*Link)
	onNode func(*Node)
}

// listState is GET_LINKS_LIST's: its filter and find, the documents to pass over, and what
// it read.
type listState struct {
	filter  bson.Raw
	find    doc.Find
	offset  int
	skip, n int
	last    int64
}

func newDocClient(s *docStore) *docClient {
	c := &docClient{s: s, retryState: newRetryState(&s.opt)}
	c.listed, c.readLinkFn, c.readCountFn, c.readNodeFn = c.listedLink, c.readLink, c.readCount, c.readNode
	c.listUnit = c.findList
	return c
}

// Errors of the corrected variant's link write, which switch it between its two updates.
var (
	// errLinkHidden: the upsert of a missing or visible link found the link hidden.
	errLinkHidden = errors.New("the link is hidden")
	// errLinkShown: the update of a hidden link found it visible or gone.
	errLinkShown = errors.New("the link is not hidden")
)

// Close does nothing: the client holds no connection of its own.
func (c *docClient) Close() error { return nil }

// retryDup reports whether the attempt i of an upsert that failed with err is to be sent
// again at once: it lost the race for its key to another upsert (MongoDB retries these on the
// server itself), and neither a transaction (which the error aborted) nor the bound forbids it.
func (c *docClient) retryDup(err error, i int) bool {
	return err != nil && i < maxDupRetries && doc.IsDuplicateKey(err) && !c.s.db.Concern().Transactions
}

// do runs unit as the corrected variant's makeRetryable (LinkStoreMongoDb2.java:1088-1138):
// again after a pause while it fails with a transient error, at most Options.MaxRetries times.
// In a transaction when tx is set (makeTransactional, :1041-1072).
func (c *docClient) do(ctx context.Context, op string, tx bool, unit func(ctx context.Context) error) error {
	var tries runner.Retry
	for {
		var err error
		if tx {
			err = c.s.db.Transact(ctx, unit)
		} else {
			err = unit(ctx)
		}
		if err == nil {
			return nil
		}
		if err = c.again(ctx, op, &tries, err, forkRetryable(err)); err != nil {
			return err
		}
	}
}

// now is the time the references put into a count: the client's clock, in milliseconds.
func now() int64 { return time.Now().UnixMilli() }

// AddLink is addLink.
func (c *docClient) AddLink(ctx context.Context, l *Link) (WriteResult, error) {
	if mu := c.s.lock(l.ID1, l.LinkType); mu != nil {
		defer mu.Unlock()
	}
	if c.s.fork {
		return c.forkWriteLink(ctx, "add link", l)
	}
	return c.refWriteLink(ctx, "add link", l)
}

// UpdateLink is updateLink: in both references the same commands as addLink
// (LinkStoreMongoDBv2.java:1027-1038, LinkStoreMongoDb2.java:322-326).
func (c *docClient) UpdateLink(ctx context.Context, l *Link) (WriteResult, error) {
	if mu := c.s.lock(l.ID1, l.LinkType); mu != nil {
		defer mu.Unlock()
	}
	if c.s.fork {
		return c.forkWriteLink(ctx, "update link", l)
	}
	return c.refWriteLink(ctx, "update link", l)
}

// refLinkKey builds the reference variant's filter of a link into c.f.
func (c *docClient) refLinkKey(linkType, id1, id2 int64) bson.Raw {
	return c.f.reset().i64(fType, linkType).i64(fID1, id1).i64(fID2, id2).done()
}

// refWriteLink is LinkbenchX's addLinkImpl (LinkStoreMongoDBv2.java:443-691): the upsert of
// the link's visibility, which inserts the other fields; then, where a link became visible,
// the count's upsert and increment; then, for a link that existed, the update of its fields.
func (c *docClient) refWriteLink(ctx context.Context, op string, l *Link) (WriteResult, error) {
	f := c.refLinkKey(l.LinkType, l.ID1, l.ID2)
	u := c.u.reset().doc("$setOnInsert").i64(fID1, l.ID1).i64(fID2, l.ID2).i64(fType, l.LinkType).
		bin(fData, l.Data).i64(fTime, l.Time).i32(fVersion, int32(l.Version)).end().
		doc("$set").i32(fVis, Visible).done()
	var r doc.Updated
	var err error
	for i := 0; ; i++ {
		if r, err = c.s.links.UpdateOne(ctx, f, u, true); !c.retryDup(err, i) {
			break
		}
	}
	if err != nil {
		return 0, runner.OpError(op, err)
	}
	// The reference reads the reply's n and updatedExisting (an existing link is always its
	// case 2, "visibility changed"); nModified tells whether the visibility changed.
	res := Updated
	switch {
	case r.Upserted > 0:
		res = Inserted
	case r.Matched == 0:
		return 0, runner.OpError(op, errors.New("the link's upsert neither matched nor inserted"))
	case r.Modified > 0:
		res = Revealed
	}
	if res != Updated {
		if err := c.refChangeCount(ctx, l.ID1, l.LinkType, 1); err != nil {
			return 0, runner.OpError(op, err)
		}
	}
	if res == Inserted {
		return res, nil
	}
	f = c.refLinkKey(l.LinkType, l.ID1, l.ID2)
	u = c.u.reset().doc("$set").i32(fVis, Visible).bin(fData, l.Data).i64(fTime, l.Time).i32(fVersion, int32(l.Version)).done()
	if _, err := c.s.links.UpdateOne(ctx, f, u, false); err != nil {
		return 0, runner.OpError(op, fmt.Errorf("update the link: %w", err))
	}
	return res, nil
}

// refChangeCount adds delta (1 or -1) to the count of (id1, linkType) as LinkbenchX does
// (LinkStoreMongoDBv2.java:541-594, :917-970): an upsert of the count's key and time, then an
// increment of count and version (of count alone for a new count), then for a decrement the
// reset of a negative count to 0. Its upsert sets the fields with $set where the reference's
// replaces the document, and one $inc carries both fields where the reference's second one
// replaces its first (docs/fidelity.md).
func (c *docClient) refChangeCount(ctx context.Context, id1, linkType, delta int64) error {
	key := c.x.reset().i64(fCountID, id1).i64(fType, linkType).done()
	u := c.u.reset().doc("$set").i64(fCountID, id1).i64(fType, linkType).i64(fTime, now()).done()
	var r doc.Updated
	var err error
	for i := 0; ; i++ {
		if r, err = c.s.counts.UpdateOne(ctx, key, u, true); !c.retryDup(err, i) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("upsert the count: %w", err)
	}
	existed := r.Matched > 0
	switch {
	case existed:
		u = c.u.reset().doc("$inc").i32(fCount, int32(delta)).i32(fVersion, 1).done()
	case delta > 0:
		u = c.u.reset().doc("$inc").i64(fCount, 1).done() // base_count, a long
	default:
		u = c.u.reset().doc("$inc").i32(fCount, 0).i32(fVersion, 0).done()
	}
	if _, err := c.s.counts.UpdateOne(ctx, key, u, false); err != nil {
		return fmt.Errorf("change the count: %w", err)
	}
	if !existed || delta > 0 {
		return nil
	}
	neg := c.f.reset().i64(fCountID, id1).i64(fType, linkType).doc(fCount).i32("$lt", 0).done()
	u = c.u.reset().doc("$set").i32(fCount, 0).done()
	if _, err := c.s.counts.UpdateOne(ctx, neg, u, false); err != nil {
		return fmt.Errorf("reset a negative count: %w", err)
	}
	return nil
}

// forkWriteLink is mdcallag's newLink (LinkStoreMongoDb2.java:328-424): in a transaction, the
// link's findOneAndUpdate upsert, whose old visibility decides whether the count's upsert
// follows. doc.Collection has no findOneAndUpdate: the link is written by one of two
// conditional updates that say what the old visibility was, the upsert of a missing or
// visible link and the update of a hidden one; a duplicate key of the first (the link is
// hidden) switches to the second, and a miss of the second back, each path's first attempt
// without a pause, as the SQL store switches between its insert and update.
func (c *docClient) forkWriteLink(ctx context.Context, op string, l *Link) (WriteResult, error) {
	var tries [2]runner.Retry
	var tried [2]bool
	var last error
	hidden := false
	for {
		path := 0
		if hidden {
			path = 1
		}
		if tried[path] {
			if err := c.retry(ctx, op, &tries[path], last); err != nil {
				return 0, err
			}
		}
		tried[path] = true
		var res WriteResult
		err := c.s.db.Transact(ctx, func(ctx context.Context) error {
			var err error
			res, err = c.forkNewLink(ctx, l, hidden)
			return err
		})
		switch {
		case err == nil:
			return res, nil
		case errors.Is(err, errLinkHidden):
			hidden = true
		case errors.Is(err, errLinkShown):
			hidden = false
		case !forkRetryable(err) && !doc.IsDuplicateKey(err):
			return 0, runner.OpError(op, err)
		}
		last = err
	}
}

// forkNewLink writes the link, and its count where it became visible: with hidden, by the
// update of a hidden link, else by the upsert of a missing or visible one.
func (c *docClient) forkNewLink(ctx context.Context, l *Link, hidden bool) (WriteResult, error) {
	f := c.f.reset().linkID(fID, l.LinkType, l.ID1, l.ID2)
	if hidden {
		f.doc(fVis).i32("$ne", Visible).end()
	} else {
		f.i32(fVis, Visible)
	}
	filter := f.done()
	u := c.u.reset().doc("$setOnInsert").linkID(fID, l.LinkType, l.ID1, l.ID2).i64(fID1, l.ID1).
		i64(fType, l.LinkType).i64(fID2, l.ID2).end().
		doc("$set").i32(fVis, Visible).i32(fVersion, int32(l.Version)).i64(fTime, l.Time).bin(fData, l.Data).done()
	r, err := c.s.links.UpdateOne(ctx, filter, u, !hidden)
	switch {
	case err != nil && !hidden && doc.IsDuplicateKey(err):
		return 0, fmt.Errorf("%w: %w", errLinkHidden, err)
	case err != nil:
		return 0, fmt.Errorf("write the link: %w", err)
	case hidden && r.Matched == 0:
		return 0, errLinkShown
	case !hidden && r.Upserted == 0:
		return Updated, nil // it was visible
	}
	if err := c.forkChangeCount(ctx, l.ID1, l.LinkType, 1); err != nil {
		return 0, err
	}
	if hidden {
		return Revealed, nil
	}
	return Inserted, nil
}

// forkChangeCount is the count's upsert of newLink and deleteLink (LinkStoreMongoDb2.java:369-382,
// :469-489): the count plus delta, version plus 1, time now. deleteLink's is a
// findOneAndUpdate whose reply it checks (a count below -1 is an error); ours is an update,
// whose reply has no count.
func (c *docClient) forkChangeCount(ctx context.Context, id1, linkType, delta int64) error {
	key := c.x.reset().countID(fID, id1, linkType).done()
	u := c.u.reset().doc("$setOnInsert").countID(fID, id1, linkType).i64(fCountID, id1).i64(fType, linkType).end().
		doc("$inc").i64(fCount, delta)
	if delta > 0 {
		u.i32(fVersion, 1) // inc("version", 1): an Integer in newLink, a Long in deleteLink
	} else {
		u.i64(fVersion, 1)
	}
	upd := u.end().doc("$set").i64(fTime, now()).done()
	var err error
	for i := 0; ; i++ {
		if _, err = c.s.counts.UpdateOne(ctx, key, upd, true); !c.retryDup(err, i) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("change the count: %w", err)
	}
	return nil
}

// DeleteLink hides the link (deletes it when expunge) and lowers its count if it was visible.
func (c *docClient) DeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	if mu := c.s.lock(id1, linkType); mu != nil {
		defer mu.Unlock()
	}
	if c.s.fork {
		var found bool
		err := c.do(ctx, "delete link", true, func(ctx context.Context) error {
			var err error
			found, err = c.forkDeleteLink(ctx, id1, linkType, id2, expunge)
			return err
		})
		return found, err
	}
	found, err := c.refDeleteLink(ctx, id1, linkType, id2, expunge)
	if err != nil {
		return false, runner.OpError("delete link", err)
	}
	return found, nil
}

// refDeleteLink is LinkbenchX's deleteLinkImpl (LinkStoreMongoDBv2.java:793-1024): findOne of
// the link; for a visible one (or any, expunged) the update of its visibility (or its removal)
// by _id, the count's upsert and decrement, the reset of a negative count and findOne of the
// count. The count changes only where the update hid the link (its nModified) or the removal
// removed a visible one, which the removal's filter holds to the visibility read, so that a
// concurrent DELETE_LINK does not lower it twice.
func (c *docClient) refDeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	for i := 0; ; i++ {
		found, err := c.s.links.FindOne(ctx, c.refLinkKey(linkType, id1, id2), doc.Find{}, &c.raw)
		if err != nil || !found {
			return false, err
		}
		vis, id, err := linkVisibility(c.raw)
		if err != nil {
			return false, err
		}
		if vis != Visible && !expunge {
			return true, nil
		}
		changed := vis == Visible
		if expunge {
			f := c.f.reset().value(fID, id).i32(fVis, int32(vis)).done()
			n, err := c.s.links.DeleteOne(ctx, f)
			if err != nil {
				return false, fmt.Errorf("remove the link: %w", err)
			}
			if n == 0 && i < maxDupRetries {
				continue // its visibility changed since the read
			}
			if n == 0 {
				return false, errors.New("remove the link: it changed under every read")
			}
		} else {
			f := c.f.reset().value(fID, id).done()
			u := c.u.reset().doc("$set").i32(fVis, Hidden).done()
			r, err := c.s.links.UpdateOne(ctx, f, u, false)
			if err != nil {
				return false, fmt.Errorf("hide the link: %w", err)
			}
			changed = r.Modified > 0
		}
		if !changed {
			return true, nil
		}
		if err := c.refChangeCount(ctx, id1, linkType, -1); err != nil {
			return false, err
		}
		key := c.x.reset().i64(fCountID, id1).i64(fType, linkType).done()
		if _, err := c.s.counts.FindOne(ctx, key, doc.Find{}, &c.raw); err != nil {
			return false, fmt.Errorf("read the count: %w", err)
		}
		return true, nil
	}
}

// forkDeleteLink is mdcallag's deleteLink (LinkStoreMongoDb2.java:427-499): a
// findOneAndUpdate that hides the link (findOneAndDelete when expunged), whose old visibility
// decides whether the count's decrement follows. Ours: the update (or deletion) of the link if
// it is visible, else a count of it (the deletion of it, expunged), which tells whether it
// exists.
func (c *docClient) forkDeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	visible := c.f.reset().linkID(fID, linkType, id1, id2).i32(fVis, Visible).done()
	var n int64
	var err error
	if expunge {
		n, err = c.s.links.DeleteOne(ctx, visible)
	} else {
		var r doc.Updated
		r, err = c.s.links.UpdateOne(ctx, visible, c.u.reset().doc("$set").i32(fVis, Hidden).done(), false)
		n = r.Matched
	}
	if err != nil {
		return false, fmt.Errorf("hide or delete the link: %w", err)
	}
	if n > 0 {
		return true, c.forkChangeCount(ctx, id1, linkType, -1)
	}
	key := c.f.reset().linkID(fID, linkType, id1, id2).done()
	if expunge {
		n, err = c.s.links.DeleteOne(ctx, key)
	} else {
		n, err = c.s.links.Count(ctx, key, 1)
	}
	if err != nil {
		return false, fmt.Errorf("read the link: %w", err)
	}
	return n > 0, nil
}

// GetLinkList reads the visible links of (id1, linkType) with time in [0, maxTime], newest
// first: the reference variant as getLinkListImpl (LinkStoreMongoDBv2.java:1143-1195), the
// count of the cursor (DBCursor.size) and, unless it is 0, the find; the corrected variant as
// getLinkList (LinkStoreMongoDb2.java:586-651), the find projected to id1_type's fields in a
// transaction. doc.Find has no skip: the find's limit is offset + limit, and the first offset
// documents are read and passed over. A limit of 0 (no limit to MongoDB) reads nothing.
func (c *docClient) GetLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	if limit <= 0 {
		return 0, 0, nil
	}
	f := c.f.reset().i64(fID1, id1).i64(fType, linkType)
	if !c.s.fork {
		f.i32(fVis, Visible)
	}
	f.doc(fTime).i64("$gte", 0).i64("$lte", maxTime).end()
	if c.s.fork {
		f.i32(fVis, Visible)
	}
	c.list = listState{filter: f.done(), find: c.s.refList, offset: offset}
	if c.s.fork {
		c.list.find = c.s.forkList
	}
	c.list.find.Limit = int64(offset) + int64(limit)
	if c.s.fork {
		err := c.do(ctx, "get link list", true, c.listUnit)
		return c.list.n, c.list.last, err
	}
	size, err := c.s.links.Count(ctx, c.list.filter, c.list.find.Limit)
	if err != nil {
		return 0, 0, runner.OpError("get link list", err)
	}
	if size <= int64(offset) {
		return 0, 0, nil
	}
	if err := c.findList(ctx); err != nil {
		return c.list.n, c.list.last, runner.OpError("get link list", err)
	}
	return c.list.n, c.list.last, nil
}

// findList sends GET_LINKS_LIST's find.
func (c *docClient) findList(ctx context.Context) error {
	c.list.skip, c.list.n, c.list.last = c.list.offset, 0, 0
	_, err := c.s.links.Find(ctx, c.list.filter, c.list.find, c.listed)
	return err
}

// listedLink reads a document GET_LINKS_LIST returned.
func (c *docClient) listedLink(raw bson.Raw) error {
	if c.list.skip > 0 {
		c.list.skip--
		return nil
	}
	if err := decodeLinkDoc(raw, &c.link); err != nil {
		return err
	}
	c.list.n++
	c.list.last = c.link.Time
	if c.onLink != nil {
		c.onLink(&c.link)
	}
	return nil
}

// MultigetLinks reads the links (id1, linkType, id2) of id2s: the reference variant as
// multigetLinksImpl (LinkStoreMongoDBv2.java:1079-1116), the count of the cursor and the find
// of id2 $in the ids (a repeated id2 is one document); the corrected variant as LinkStore's
// default multigetLinks (mdcallag LinkStore.java:122-134), a getLink per id2, each a find of
// the _id (a repeated id2 is read each time). An empty list sends nothing.
func (c *docClient) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64) (int, error) {
	if len(id2s) == 0 {
		return 0, nil
	}
	if c.s.fork {
		return c.forkMultiget(ctx, id1, linkType, id2s)
	}
	f := c.f.reset().i64(fID1, id1).i64(fType, linkType).doc(fID2).array("$in")
	for i, id2 := range id2s {
		f.item(i, id2)
	}
	filter := f.done()
	if _, err := c.s.links.Count(ctx, filter, 0); err != nil {
		return 0, runner.OpError("multiget links", err)
	}
	n, err := c.s.links.Find(ctx, filter, doc.Find{}, c.readLinkFn)
	if err != nil {
		return 0, runner.OpError("multiget links", err)
	}
	return n, nil
}

// forkMultiget is a getLink per id2 (LinkStoreMongoDb2.java:558-578): find(_id).first().
func (c *docClient) forkMultiget(ctx context.Context, id1, linkType int64, id2s []int64) (int, error) {
	found := 0
	for _, id2 := range id2s {
		ok, err := c.s.links.FindOne(ctx, c.f.reset().linkID(fID, linkType, id1, id2).done(), doc.Find{}, &c.raw)
		if err != nil {
			return found, runner.OpError("multiget links", err)
		}
		if !ok {
			continue
		}
		found++
		if err := c.readLink(c.raw); err != nil {
			return found, runner.OpError("multiget links", err)
		}
	}
	return found, nil
}

// readLink decodes a link a read returned (when a test looks at them).
func (c *docClient) readLink(raw bson.Raw) error {
	if c.onLink == nil {
		return nil
	}
	if err := decodeLinkDoc(raw, &c.link); err != nil {
		return err
	}
	c.onLink(&c.link)
	return nil
}

// CountLinks reads the count of (id1, linkType), 0 without a count document: the reference
// variant by a find of its key (LinkStoreMongoDBv2.java:1224-1261), the corrected variant by
// find(_id).first() (LinkStoreMongoDb2.java:757-771).
func (c *docClient) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	c.count, c.seen = 0, false
	var err error
	if c.s.fork {
		var ok bool
		if ok, err = c.s.counts.FindOne(ctx, c.f.reset().countID(fID, id1, linkType).done(), doc.Find{}, &c.raw); ok {
			err = c.readCount(c.raw)
		}
	} else {
		_, err = c.s.counts.Find(ctx, c.f.reset().i64(fCountID, id1).i64(fType, linkType).done(), doc.Find{}, c.readCountFn)
	}
	if err != nil {
		return 0, runner.OpError("count links", err)
	}
	return c.count, nil
}

// readCount reads the count of the first count document a read returned (a missing count
// field is 0, as LinkbenchX reads it).
func (c *docClient) readCount(raw bson.Raw) error {
	if c.seen {
		return nil
	}
	c.seen = true
	var err error
	c.count, err = countOf(raw)
	return err
}

// AddNode inserts the node under the next id of the store's counter: bulkAddNodes of one node,
// an unordered insert (LinkStoreMongoDBv2.java:1386-1451; LinkStoreMongoDb2.java:783-875, in a
// transaction). A duplicate id, which another process's counter gave (another shard's requester
// in a sharded run), moves the counter past the largest id, found as the references find it
// when they start, and the node is inserted again.
func (c *docClient) AddNode(ctx context.Context, n *Node) (int64, error) {
	id := c.s.nextNode.Add(1) - 1
	for i := 0; ; i++ {
		c.docs = append(c.docs[:0], c.u.reset().i64(fID, id).i32(fNodeTyp, n.Type).i64(fVersion, n.Version).
			i32(fTime, n.Time).bin(fData, n.Data).done())
		err := c.insertBatch(ctx, "add node", c.s.nodes)
		if err == nil || !doc.IsDuplicateKey(err) || i >= maxDupRetries {
			return id, err
		}
		if id, err = c.nodePastLargest(ctx); err != nil {
			return 0, runner.OpError("add node", err)
		}
	}
}

// nodePastLargest reads the largest node id, as the references start their counter
// (LinkStoreMongoDBv2.java:165-173, LinkStoreMongoDb2.java:817-829), moves the counter past it
// and returns the id it assigns next.
func (c *docClient) nodePastLargest(ctx context.Context) (int64, error) {
	o := doc.Find{Sort: c.s.idSort, Limit: 1}
	if c.s.fork {
		o.Projection = c.s.nodeInit
	}
	var largest int64
	_, err := c.s.nodes.Find(ctx, bson.D{}, o, func(raw bson.Raw) error {
		var n Node
		if err := decodeNodeDoc(raw, &n, true); err != nil {
			return err
		}
		largest = n.ID
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read the largest node id: %w", err)
	}
	c.s.advanceNode(largest + 1)
	return c.s.nextNode.Add(1) - 1, nil
}

// nodeKey builds the filter of node id of the node type into c.f.
func (c *docClient) nodeKey(id int64) bson.Raw {
	return c.f.reset().i64(fID, id).i32(fNodeTyp, NodeType).done()
}

// UpdateNode sets version, time and data of the node (of the node type): updateNodeImpl
// (LinkStoreMongoDBv2.java:1517-1551), found when it matched; mdcallag's updateNode
// (LinkStoreMongoDb2.java:908-948), retried, outside the transaction its block opens (the
// update has no session), found when it modified the node.
func (c *docClient) UpdateNode(ctx context.Context, n *Node) (bool, error) {
	f := c.nodeKey(n.ID)
	u := c.u.reset().doc("$set").i64(fVersion, n.Version).i32(fTime, n.Time).bin(fData, n.Data).done()
	var r doc.Updated
	if !c.s.fork {
		var err error
		if r, err = c.s.nodes.UpdateOne(ctx, f, u, false); err != nil {
			return false, runner.OpError("update node", err)
		}
		return r.Matched > 0, nil
	}
	err := c.do(ctx, "update node", false, func(ctx context.Context) error {
		var err error
		r, err = c.s.nodes.UpdateOne(ctx, f, u, false)
		return err
	})
	return r.Matched > 0 && r.Modified == 1, err
}

// DeleteNode deletes the node (of the node type): LinkbenchX's remove, which deletes every
// match (LinkStoreMongoDBv2.java:1566-1594); mdcallag's deleteOne, retried, outside its
// block's transaction (LinkStoreMongoDb2.java:951-979).
func (c *docClient) DeleteNode(ctx context.Context, id int64) (bool, error) {
	f := c.nodeKey(id)
	var n int64
	if !c.s.fork {
		var err error
		if n, err = c.s.nodes.DeleteMany(ctx, f); err != nil {
			return false, runner.OpError("delete node", err)
		}
		return n > 0, nil
	}
	err := c.do(ctx, "delete node", false, func(ctx context.Context) error {
		var err error
		n, err = c.s.nodes.DeleteOne(ctx, f)
		return err
	})
	return n == 1, err
}

// GetNode reads the node; found is false for a missing node or one of another type, checked
// after the read: a find of the _id (LinkStoreMongoDBv2.java:1466-1502), find(_id).first()
// (LinkStoreMongoDb2.java:878-905).
func (c *docClient) GetNode(ctx context.Context, id int64) (bool, error) {
	f := c.f.reset().i64(fID, id).done()
	c.nodeFound = false
	var err error
	if c.s.fork {
		var ok bool
		if ok, err = c.s.nodes.FindOne(ctx, f, doc.Find{}, &c.raw); ok {
			err = c.readNode(c.raw)
		}
	} else {
		_, err = c.s.nodes.Find(ctx, f, doc.Find{}, c.readNodeFn)
	}
	if err != nil {
		return false, runner.OpError("get node", err)
	}
	return c.nodeFound, nil
}

// readNode reads a node a read returned.
func (c *docClient) readNode(raw bson.Raw) error {
	if err := decodeNodeDoc(raw, &c.node, false); err != nil {
		return err
	}
	c.nodeFound = c.node.Type == NodeType
	if c.onNode != nil {
		c.onNode(&c.node)
	}
	return nil
}
