package store

import (
	"context"
	"fmt"

	"github.com/enginebench/enginebench/internal/runner"
)

// The load's statements: one multi-row INSERT per batch in autocommit, as the reference's
// addBulkLinks, addBulkCounts and bulkAddNodes send them. A batch is split (in one
// transaction) only beyond the dialect's bind parameter limit or maxInsertBytes of payload.

// ResetNodes is the reference's resetNodeStore: TRUNCATE TABLE nodetable, then the id counter
// set to startID (MySQL's AUTO_INCREMENT, PostgreSQL's sequence). SQLite's nodes are inserted
// with their ids: nothing to do.
func (c *sqlClient) ResetNodes(ctx context.Context, startID int64) error {
	for _, q := range c.s.resetNodesText(startID) {
		if _, err := c.rconn.ExecContext(c.sctx(ctx), q); err != nil {
			return runner.OpError("reset nodes: "+q, err)
		}
	}
	return nil
}

// InsertLinks inserts links (every column the reference binds, in its order).
func (c *sqlClient) InsertLinks(ctx context.Context, links []Link) error {
	return c.insertAll(ctx, "insert links", bulkLinks, len(links), func(i int) int { return len(links[i].Data) },
		func(args []any, i int) []any {
			l := &links[i]
			return append(args, l.ID1, l.ID2, l.LinkType, int64(l.Visibility), data(l.Data), l.Version, l.Time)
		}, nil)
}

// InsertCounts inserts counttable rows: id, link_type, time, version, count.
func (c *sqlClient) InsertCounts(ctx context.Context, counts []Count) error {
	return c.insertAll(ctx, "insert counts", bulkCounts, len(counts), nil, func(args []any, i int) []any {
		n := &counts[i]
		return append(args, n.ID1, n.LinkType, n.Time, n.Version, n.Count)
	}, nil)
}

// InsertNodes inserts nodes; where the engine assigns the ids it checks that they are the
// nodes' ids.
func (c *sqlClient) InsertNodes(ctx context.Context, nodes []Node) error {
	add := func(args []any, i int) []any {
		n := &nodes[i]
		return append(args, int64(n.Type), n.Version, int64(n.Time), data(n.Data))
	}
	if !c.s.autoIDs {
		add = func(args []any, i int) []any {
			n := &nodes[i]
			return append(args, n.ID, int64(n.Type), n.Version, int64(n.Time), data(n.Data))
		}
	}
	return c.insertAll(ctx, "insert nodes", bulkNodes, len(nodes), func(i int) int { return len(nodes[i].Data) }, add, nodes)
}

// data returns b, or an empty non-nil slice for an empty b (nil would be NULL).
func data(b []byte) []byte {
	if b == nil {
		return emptyData
	}
	return b
}

// insertAll inserts n rows of table t (row i's arguments appended by add, its payload size
// given by size, if any), retrying the whole batch after a transient conflict. nodes, for the
// node table, are the nodes whose assigned ids are checked.
func (c *sqlClient) insertAll(ctx context.Context, op string, t, n int, size func(int) int, add func([]any, int) []any, nodes []Node) error {
	if n == 0 {
		return nil
	}
	var tries runner.Retry
	for {
		err := c.insertOnce(ctx, t, n, size, add, nodes)
		if err == nil {
			return nil
		}
		if err = c.again(ctx, op, &tries, err, c.retryable(err)); err != nil {
			return err
		}
	}
}

func (c *sqlClient) insertOnce(ctx context.Context, t, n int, size func(int) int, add func([]any, int) []any, nodes []Node) error {
	tx := c.chunk(t, 0, n, size) < n
	if tx {
		if _, err := c.rconn.ExecContext(c.sctx(ctx), c.s.d.BeginWrite()); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
	}
	for done := 0; done < n; {
		k := c.chunk(t, done, n, size)
		if err := c.insertRows(ctx, t, done, k, add, nodes); err != nil {
			if tx {
				if _, rerr := c.rconn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
					c.broken = true
					return fmt.Errorf("%w (rollback: %w)", err, rerr)
				}
			}
			return err
		}
		done += k
	}
	if tx {
		if _, err := c.rconn.ExecContext(c.sctx(ctx), "COMMIT"); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
	}
	return nil
}

// chunk returns how many rows from row first on (of n) the next INSERT into table t takes:
// the rows left, within the dialect's bind parameter limit and (while above one row)
// maxInsertBytes of payload.
func (c *sqlClient) chunk(t, first, n int, size func(int) int) int {
	k := min(n-first, c.s.d.MaxParams()/c.s.bulkCols(t))
	if size != nil {
		for k > 1 && rowsBytes(size, first, k) > maxInsertBytes {
			k /= 2
		}
	}
	return k
}

// rowsBytes is the payload size of rows [first, first+k).
func rowsBytes(size func(int) int, first, k int) int {
	total := 0
	for i := first; i < first+k; i++ {
		total += size(i)
	}
	return total
}

// insertRows inserts rows [first, first+k) of table t with the client's statement for k rows.
func (c *sqlClient) insertRows(ctx context.Context, t, first, k int, add func([]any, int) []any, nodes []Node) error {
	key := [2]int{t, k}
	st := c.bulk[key]
	if st == nil {
		var err error
		if st, err = c.rconn.PrepareContext(c.sctx(ctx), c.s.bulkInsert(t, k)); err != nil {
			return fmt.Errorf("prepare the insert of %d rows: %w", k, err)
		}
		c.bulk[key] = st
	}
	c.args = c.args[:0]
	for i := first; i < first+k; i++ {
		c.args = add(c.args, i)
	}
	if t != bulkNodes || !c.s.autoIDs {
		_, err := st.ExecContext(c.sctx(ctx), c.args...)
		return err
	}
	want := nodes[first : first+k]
	if c.s.returning {
		rows, err := st.QueryContext(c.sctx(ctx), c.args...)
		if err != nil {
			return err
		}
		_, err = c.scanIDs(rows, want)
		return err
	}
	res, err := st.ExecContext(c.sctx(ctx), c.args...)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err == nil && id != want[0].ID {
		err = fmt.Errorf("the engine gave nodes %d.. the ids %d.. (was the node table reset?)", want[0].ID, id)
	}
	return err
}
