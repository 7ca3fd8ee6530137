package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// The scans of verification (Store.ScanLinks and the others): each reads its index in order,
// forced with the dialect's hint, or on a dialect without hints (PostgreSQL) in a transaction
// that first runs the dialect's IndexOrderSettings and scanSettings, under which only that
// index gives the order asked for.

// scanSettings are PostgreSQL's settings beyond IndexOrderSettings: an incremental sort would
// let the links of one type come from id1_type, sorted by id2 within each id1.
var scanSettings = []string{"SET LOCAL enable_incremental_sort = off"}

// scanQueries returns the text of the scans, bound to the dialect: the links of one type
// through the primary key, the links through id1_type, counttable and nodetable.
func (s *sqlStore) scanQueries() (links, index, counts, nodes string) {
	d := s.d
	links = sqldb.Bind(d, "SELECT "+linkCols+" FROM "+linkTable+d.PrimaryKeyHint()+
		" WHERE link_type = ? AND id1 >= ? AND id1 < ? ORDER BY link_type, id1, id2")
	index = sqldb.Bind(d, "SELECT "+linkCols+" FROM "+linkTable+d.IndexHint(indexName)+
		" WHERE id1 >= ? AND id1 < ? ORDER BY "+indexKeyCols)
	counts = sqldb.Bind(d, "SELECT "+bulkCountCols+" FROM "+countTable+" WHERE id >= ? AND id < ? ORDER BY id, link_type")
	nodes = sqldb.Bind(d, "SELECT "+nodeCols+" FROM "+nodeTable+" WHERE id >= ? AND id < ? ORDER BY id")
	return links, index, counts, nodes
}

// ScanLinks reads the links of one type through the primary key.
func (s *sqlStore) ScanLinks(ctx context.Context, linkType, lo, hi int64, fn func(*Link) error) error {
	q, _, _, _ := s.scanQueries()
	var l Link
	err := s.scan(ctx, q, []any{linkType, lo, hi}, func(rows *sql.Rows) error {
		if err := scanLink(rows, &l); err != nil {
			return err
		}
		return fn(&l)
	})
	if err != nil {
		return fmt.Errorf("scan linktable (link type %d, id1 %d..%d): %w", linkType, lo, hi-1, err)
	}
	return nil
}

// ScanIndex reads the links through id1_type.
func (s *sqlStore) ScanIndex(ctx context.Context, lo, hi int64, fn func(*Link) error) error {
	if !s.indexed.Load() {
		return fmt.Errorf("scan %s: the index does not exist yet", indexName)
	}
	_, q, _, _ := s.scanQueries()
	var l Link
	err := s.scan(ctx, q, []any{lo, hi}, func(rows *sql.Rows) error {
		if err := scanLink(rows, &l); err != nil {
			return err
		}
		return fn(&l)
	})
	if err != nil {
		return fmt.Errorf("scan %s (id1 %d..%d): %w", indexName, lo, hi-1, err)
	}
	return nil
}

// ScanCounts reads counttable through its primary key.
func (s *sqlStore) ScanCounts(ctx context.Context, lo, hi int64, fn func(*Count) error) error {
	_, _, q, _ := s.scanQueries()
	var n Count
	err := s.scan(ctx, q, []any{lo, hi}, func(rows *sql.Rows) error {
		if err := rows.Scan(&n.ID1, &n.LinkType, &n.Time, &n.Version, &n.Count); err != nil {
			return err
		}
		return fn(&n)
	})
	if err != nil {
		return fmt.Errorf("scan counttable (id1 %d..%d): %w", lo, hi-1, err)
	}
	return nil
}

// ScanNodes reads nodetable through its primary key.
func (s *sqlStore) ScanNodes(ctx context.Context, lo, hi int64, fn func(*Node) error) error {
	_, _, _, q := s.scanQueries()
	var (
		n       Node
		typ, tm int64
		data    sql.RawBytes
	)
	err := s.scan(ctx, q, []any{lo, hi}, func(rows *sql.Rows) error {
		if err := rows.Scan(&n.ID, &typ, &n.Version, &tm, &data); err != nil {
			return err
		}
		n.Type, n.Time, n.Data = int32(typ), int32(tm), data
		return fn(&n)
	})
	if err != nil {
		return fmt.Errorf("scan nodetable (id %d..%s): %w", lo, idEnd(hi), err)
	}
	return nil
}

// idEnd names the last id of a range that ends before hi: "end" for math.MaxInt64.
func idEnd(hi int64) string {
	if hi == math.MaxInt64 {
		return "end"
	}
	return fmt.Sprint(hi - 1)
}

// scanLink reads a row of linkCols into l; l.Data is valid until the next row.
func scanLink(rows *sql.Rows, l *Link) error {
	var vis int64
	var data sql.RawBytes
	if err := rows.Scan(&l.ID1, &l.ID2, &l.LinkType, &vis, &data, &l.Version, &l.Time); err != nil {
		return err
	}
	l.Visibility, l.Data = int8(vis), data
	return nil
}

// scan runs q with args in a transaction (after the dialect's IndexOrderSettings
// where it has no hints) and calls each for every row.
func (s *sqlStore) scan(ctx context.Context, q string, args []any, each func(*sql.Rows) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.d.IndexHint(indexName) == "" {
		for _, st := range append(s.d.IndexOrderSettings(), scanSettings...) {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return runner.OpError(st, err)
			}
		}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return runner.OpError("query", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return runner.OpError("read", err)
	}
	return nil
}
