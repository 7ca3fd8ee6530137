package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/runner"
)

// The load's commands. LinkbenchX's addBulkLinks, addBulkCounts and bulkAddNodes are
// unordered bulk writes: upserts of the links (as its ADD_LINK's), replacing upserts of the
// counts and inserts of the nodes (LinkStoreMongoDBv2.java:700-776, :1312-1357, :1405-1451);
// mdcallag's are unordered bulk inserts in a transaction (LinkStoreMongoDb2.java:654-754,
// :798-875). Each batch is one unordered insert (InsertUnordered, as many as the driver splits
// it into): of LinkbenchX's links and counts, the documents its upserts leave (doc.Collection
// has no bulk update); the corrected variant's in doc.DB.Transact, retried as its reference
// retries it.

// ResetNodes is resetNodeStore: every node removed (LinkStoreMongoDBv2.java:1367-1371,
// LinkStoreMongoDb2.java:774-780), and the id counter set to startID (as mdcallag sets it;
// LinkbenchX keeps the counter it started with, the largest id plus one).
func (c *docClient) ResetNodes(ctx context.Context, startID int64) error {
	if _, err := c.s.nodes.DeleteMany(ctx, bson.D{}); err != nil {
		return runner.OpError("reset nodes", err)
	}
	c.s.nextNode.Store(startID)
	return nil
}

// InsertLinks inserts the links (and their id1_type entries unless deferred).
func (c *docClient) InsertLinks(ctx context.Context, links []Link) error {
	if len(links) == 0 {
		return nil
	}
	c.batch(len(links), func(w *bsonBuf, i int) {
		l := &links[i]
		if c.s.fork {
			w.linkID(fID, l.LinkType, l.ID1, l.ID2).i64(fID1, l.ID1).i64(fType, l.LinkType).i64(fID2, l.ID2).
				i32(fVis, int32(l.Visibility)).i32(fVersion, int32(l.Version)).i64(fTime, l.Time).bin(fData, l.Data)
			return
		}
		// The fields of an ADD_LINK upsert: the filter's, $setOnInsert's, $set's.
		w.i64(fType, l.LinkType).i64(fID1, l.ID1).i64(fID2, l.ID2).bin(fData, l.Data).i64(fTime, l.Time).
			i32(fVersion, int32(l.Version)).i32(fVis, int32(l.Visibility))
	})
	return c.insertBatch(ctx, "insert links", c.s.links)
}

// InsertCounts inserts the counts: LinkbenchX's replacement documents (id, link_type, count,
// time, version), mdcallag's (_id, id, link_type, count, version, time).
func (c *docClient) InsertCounts(ctx context.Context, counts []Count) error {
	if len(counts) == 0 {
		return nil
	}
	c.batch(len(counts), func(w *bsonBuf, i int) {
		n := &counts[i]
		if c.s.fork {
			w.countID(fID, n.ID1, n.LinkType).i64(fCountID, n.ID1).i64(fType, n.LinkType).i64(fCount, n.Count).
				i64(fVersion, n.Version).i64(fTime, n.Time)
			return
		}
		w.i64(fCountID, n.ID1).i64(fType, n.LinkType).i64(fCount, n.Count).i64(fTime, n.Time).i64(fVersion, n.Version)
	})
	return c.insertBatch(ctx, "insert counts", c.s.counts)
}

// InsertNodes inserts the nodes under the ids of the store's counter, which must be theirs
// (as after ResetNodes).
func (c *docClient) InsertNodes(ctx context.Context, nodes []Node) error {
	if len(nodes) == 0 {
		return nil
	}
	first := c.s.nextNode.Add(int64(len(nodes))) - int64(len(nodes))
	for i := range nodes {
		if nodes[i].ID != first+int64(i) {
			return fmt.Errorf("insert nodes: the counter gave nodes %d.. the ids %d.. (were the nodes reset?)", nodes[0].ID, first)
		}
	}
	c.batch(len(nodes), func(w *bsonBuf, i int) {
		n := &nodes[i]
		w.i64(fID, n.ID).i32(fNodeTyp, n.Type).i64(fVersion, n.Version).i32(fTime, n.Time).bin(fData, n.Data)
	})
	return c.insertBatch(ctx, "insert nodes", c.s.nodes)
}

// batch builds n documents into c.docs, document i's fields added by fields.
func (c *docClient) batch(n int, fields func(w *bsonBuf, i int)) {
	w := &c.u
	w.b, c.docs, c.ends = w.b[:0], c.docs[:0], c.ends[:0]
	for i := 0; i < n; i++ {
		w.open = w.open[:0]
		var start int32
		start, w.b = bsoncore.AppendDocumentStart(w.b)
		w.open = append(w.open, start)
		fields(w, i)
		w.done()
		c.ends = append(c.ends, len(w.b))
	}
	start := 0
	for _, end := range c.ends {
		c.docs = append(c.docs, bson.Raw(w.b[start:end]))
		start = end
	}
}

// insertBatch inserts c.docs into coll in one unordered insert: in the corrected variant in a
// transaction, retried.
func (c *docClient) insertBatch(ctx context.Context, op string, coll doc.Collection) error {
	if c.s.fork {
		return c.do(ctx, op, true, func(ctx context.Context) error { return coll.InsertUnordered(ctx, c.docs) })
	}
	if err := coll.InsertUnordered(ctx, c.docs); err != nil {
		return runner.OpError(op, err)
	}
	return nil
}
