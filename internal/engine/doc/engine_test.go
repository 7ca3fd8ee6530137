package doc_test

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// TestFerretDBCollectionOperations runs every operation of doc.Collection on a managed FerretDB
// on each backend and checks what each returns, and that the engine names itself FerretDB.
func TestFerretDBCollectionOperations(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		if info := db.Server(); info.Product != "FerretDB" || !strings.HasPrefix(db.Version(), "FerretDB 1.24") {
			t.Errorf("server %+v, version %q: want FerretDB 1.24", info, db.Version())
		}
		if got := db.Settings()["storage_engine"]; !strings.Contains(got, map[string]string{"sqlite": "SQLite", "postgresql": "PostgreSQL"}[s.Settings["backend"]]) {
			t.Errorf("storage_engine %q does not name the backend %s", got, s.Settings["backend"])
		}
		c := db.Collection("t")
		docs := []bson.D{}
		for i := 1; i <= 10; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: int64(i)}, {Key: "k", Value: int64(i % 3)}})
		}
		if err := c.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		if err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(1)}}); !doc.IsDuplicateKey(err) {
			t.Errorf("second _id 1: %v, want a duplicate key error", err)
		}
		if err := c.CreateIndex(ctx, doc.Index{Name: "k_1", Keys: bson.D{{Key: "k", Value: 1}, {Key: "_id", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		if ix, err := c.Indexes(ctx); err != nil || strings.Join(ix, ",") != "_id_,k_1" {
			t.Errorf("indexes %v %v", ix, err)
		}
		var ids []int64
		n, err := c.Find(ctx, bson.D{{Key: "k", Value: int64(1)}}, doc.Find{Sort: bson.D{{Key: "_id", Value: -1}}, Limit: 3},
			func(r bson.Raw) error { ids = append(ids, r.Lookup("_id").Int64()); return nil })
		if err != nil || n != 3 || len(ids) != 3 || ids[0] != 10 || ids[1] != 7 || ids[2] != 4 {
			t.Errorf("find k=1 by _id desc limit 3: %d %v %v, want 10 7 4", n, ids, err)
		}
		if cnt, err := c.Count(ctx, bson.D{{Key: "k", Value: int64(0)}}, 0); err != nil || cnt != 3 {
			t.Errorf("count k=0: %d %v, want 3", cnt, err)
		}
		if d, err := c.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lte", Value: int64(2)}}}}); err != nil || d != 2 {
			t.Errorf("delete _id<=2: %d %v, want 2", d, err)
		}
		u, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(99)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, true)
		if err != nil || u.Upserted != 1 {
			t.Errorf("upsert _id 99: %+v %v", u, err)
		}
		var got struct{ N int32 }
		if found, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int64(99)}}, doc.Find{}, &got); !found || err != nil || got.N != 1 {
			t.Errorf("find _id 99: %v %+v %v", found, got, err)
		}
		if err := db.Transact(ctx, func(ctx context.Context) error { return c.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(100)}}) }); err != nil {
			t.Errorf("Transact without transactions: %v", err)
		}
		if names, err := db.Collections(ctx); err != nil || strings.Join(names, ",") != "t" {
			t.Errorf("collections %v %v", names, err)
		}
		if err := db.DropCollection(ctx, "t"); err != nil {
			t.Fatal(err)
		}
		if names, err := db.Collections(ctx); err != nil || len(names) != 0 {
			t.Errorf("collections after drop %v %v", names, err)
		}
		if _, err := db.(engine.Statser).Stats(ctx); err != nil {
			t.Errorf("stats: %v", err)
		}
		if err := db.(engine.Liveness).Alive(); err != nil {
			t.Error(err)
		}
		want := 1
		if s.Settings["backend"] == "postgresql" {
			want = 2 // FerretDB's tree and postgres's
		}
		if pids := db.(interface{ ServerPIDs() []int }).ServerPIDs(); len(pids) != want || pids[0] == 0 {
			t.Errorf("server PIDs %v, want %d roots", pids, want)
		}
	})
}

// TestFerretDBRefusesWhatItDoesNotDo checks that a configuration asking FerretDB for a
// concern it ignores or for transactions is refused before anything starts, naming why.
func TestFerretDBRefusesWhatItDoesNotDo(t *testing.T) {
	reg, err := engine.NewRegistry(doc.FerretDBDriver(), doc.MongoDBDriver())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		engine   string
		settings map[string]string
		want     string
	}{
		{"ferretdb", map[string]string{"write_concern": "majority"}, "ignores them"},
		{"ferretdb", map[string]string{"journal": "true"}, "ignores them"},
		{"ferretdb", map[string]string{"read_concern": "majority"}, "ignores them"},
		{"ferretdb", map[string]string{"transactions": "true"}, "multi-document transactions (it has none)"},
		{"ferretdb", map[string]string{"backend": "mysql"}, "not sqlite or postgresql"},
		{"ferretdb", map[string]string{"hints": "send"}, "index hints (it ignores them"},
		{"ferretdb", map[string]string{"hints": "maybe"}, "not send or omit"},
		{"ferretdb", map[string]string{"read_concern": "strong"}, "not a read concern level"},
		{"ferretdb", map[string]string{"shared_buffers": "1GB"}, "unknown setting shared_buffers"},
		{"mongodb", map[string]string{"write_concern": "two"}, "not a number of members or majority"},
		{"mongodb", nil, "give an existing server with --dsn"},
	} {
		cfg := engine.Config{Name: c.engine, Engine: c.engine, Settings: c.settings}
		if c.engine == "mongodb" && c.settings != nil {
			cfg.DSN = "mongodb://localhost/"
		}
		err := reg.Check(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.engine, c.settings, err, c.want)
		}
	}
	for _, dsn := range []string{"postgres://x@h/db", "mongodb://u:pw@[::1"} {
		err := reg.Check(engine.Config{Name: "mongodb", Engine: "mongodb", DSN: dsn})
		if err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("DSN %q: %v, want a refusal that does not show it", dsn, err)
		}
	}
}

// TestMongoDBEngineRefusesFerretDB checks that the mongodb engine, given an existing FerretDB
// by DSN, refuses it (its numbers would be named MongoDB's), and that ferretdb takes it.
func TestMongoDBEngineRefusesFerretDB(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	srv := servertest.Start(t, server.FerretDB, map[string]string{"handler": "sqlite"})
	reg, err := engine.NewRegistry(doc.FerretDBDriver(), doc.MongoDBDriver())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if e, err := reg.Open(ctx, engine.Config{Name: "m", Engine: "mongodb", DSN: srv.DSN()}); err == nil || !strings.Contains(err.Error(), "run it as --engines ferretdb") {
		t.Errorf("mongodb on FerretDB: %v, want a refusal", err)
		if e != nil {
			e.Close()
		}
	}
	e, err := reg.Open(ctx, engine.Config{Name: "f", Engine: "ferretdb", DSN: srv.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, ok := e.(engine.DatabaseSizer); !ok {
		t.Error("an engine on an existing server does not tell its database's size")
	}
	if got := e.(engine.Server).ServerPID(); got != 0 {
		t.Errorf("ServerPID of an existing server without --db-pid = %d, want 0", got)
	}
}

// TestManagedMongod runs the collection operations on a managed mongod where one is installed.
// None is on the machines this was built on (no registry they reach has a MongoDB server), so
// it skips there, also in CI, saying so.
func TestManagedMongod(t *testing.T) {
	if err := server.Available(server.Mongod); err != nil {
		t.Skipf("the managed mongod path is not run here: %v", err)
	}
	db := enginetest.Open(t, context.Background(), doc.MongoDBDriver(), "", nil, servertest.DataDir(t)).(doc.DB)
	if db.Server().Product == "FerretDB" || db.Server().StorageEngine == "" {
		t.Errorf("server %+v, want MongoDB with its storage engine", db.Server())
	}
	c := db.Collection("t")
	if err := c.InsertMany(context.Background(), []bson.D{{{Key: "_id", Value: 1}}, {{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Count(context.Background(), bson.D{}, 0); err != nil || n != 2 {
		t.Errorf("count %d %v, want 2", n, err)
	}
	if st, err := db.(engine.Statser).Stats(context.Background()); err != nil || st["cache_bytes"] == 0 {
		t.Errorf("stats %v %v, want the WiredTiger cache", st, err)
	}
}
