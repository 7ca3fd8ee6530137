package main

import (
	"context"
	"crypto/md5"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/shard"
)

// shardServers are the existing servers the sharded runs are tested on: existingServers and
// FerretDB on SQLite.
func shardServers() []existingServer { return append(existingServers(), ferretServer()) }

// onEachShardServer runs f in parallel subtests, one per server of shardServers, on a server
// the subtest starts.
func onEachShardServer(t *testing.T, f func(t *testing.T, eng string, srv *server.Server)) {
	for _, s := range shardServers() {
		t.Run(s.engine, func(t *testing.T) {
			t.Parallel()
			servertest.Require(t, s.kind)
			f(t, s.engine, servertest.Start(t, s.kind, s.settings))
		})
	}
}

// target is the benchmark database of an existing server as the tests of sharded runs read
// it: an SQL server's tables or a document server's collections.
type target struct {
	eng string
	srv *server.Server
	sql *sql.DB // an SQL server's; nil on a document server
	doc doc.DB  // a document server's; nil on an SQL server
}

// onTarget opens the benchmark database of the existing server srv of engine eng, closed at
// the test's end.
func onTarget(t *testing.T, eng string, srv *server.Server) *target {
	t.Helper()
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: eng, Engine: eng, DSN: srv.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	tg := &target{eng: eng, srv: srv}
	switch db := e.(type) {
	case sqldb.DB:
		tg.sql = db.SQL()
	case doc.DB:
		tg.doc = db
	default:
		t.Fatalf("%s is not a server engine", eng)
	}
	return tg
}

// names returns the tables or collections of the database, sorted.
func (tg *target) names(t *testing.T) []string { return namesOn(t, tg.eng, tg.srv.DSN()) }

// drop drops the tables or collections names.
func (tg *target) drop(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		var err error
		if tg.doc != nil {
			err = tg.doc.DropCollection(context.Background(), n)
		} else {
			_, err = tg.sql.Exec("DROP TABLE " + n)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// arrivals returns the barrier's rows of run as "step shard[ gave up]" strings, sorted.
func (tg *target) arrivals(t *testing.T, run string) []string {
	t.Helper()
	if tg.sql != nil {
		return arrivals(t, tg.sql, run)
	}
	var out []string
	_, err := tg.doc.Collection(shard.BarrierTable).Find(context.Background(), bson.D{{Key: "run", Value: run}}, doc.Find{}, func(raw bson.Raw) error {
		var d struct {
			Step   string `bson:"step"`
			Shard  int    `bson:"shard"`
			GaveUp *int64 `bson:"gave_up_at"`
		}
		if err := bson.Unmarshal(raw, &d); err != nil {
			return err
		}
		s := fmt.Sprintf("%s %d", d.Step, d.Shard)
		if d.GaveUp != nil {
			s += " gave up"
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// docVaries are, by collection, the fields of a workload's documents that differ from run to
// run with the same seed: the times (the second a row or a batch was made, the load's start)
// and the _ids that hold a time (iiBench's, LinkbenchX's ObjectIds).
var docVaries = map[string][]string{
	"pi1": {"dateandtime"}, "pi2": {"dateandtime"},
	"purchases_index": {"_id", "dateandtime"},
	"linktable":       {"_id", "time"}, "counttable": {"_id", "time"}, "nodetable": {"time"},
}

// digests returns each table's row count and a digest of its rows' contents but what differs
// from run to run with the same seed (digest, iiDigest, lbDigest; docVaries), in one order
// whatever the order the rows were written in.
func (tg *target) digests(t *testing.T, tables ...string) []string {
	t.Helper()
	var out []string
	for _, table := range tables {
		switch {
		case tg.doc != nil:
			out = append(out, docDigest(t, tg.doc.Collection(table), docVaries[table]))
		case table == "purchases_index":
			out = append(out, iiDigest(t, tg.eng, tg.sql))
		case table == "linkbench":
			out = append(out, lbDigest(t, tg.eng, tg.sql)...)
		default:
			out = append(out, digest(t, tg.eng, tg.sql, table))
		}
	}
	return out
}

// docDigest returns the collection's document count and the md5 of its documents, each as its
// fields but skip in their order, sorted.
func docDigest(t *testing.T, c doc.Collection, skip []string) string {
	t.Helper()
	var docs []string
	_, err := c.Find(context.Background(), bson.D{}, doc.Find{}, func(raw bson.Raw) error {
		els, err := raw.Elements()
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, e := range els {
			if !slices.Contains(skip, e.Key()) {
				fmt.Fprintf(&b, "%s=%s,", e.Key(), e.Value())
			}
		}
		docs = append(docs, b.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(docs)
	return fmt.Sprintf("%d documents, md5 %x", len(docs), md5.Sum([]byte(strings.Join(docs, ";"))))
}
