package insertbench

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// docCPUQueryRows is the queried collection's size: small, since FerretDB reads the whole
// collection for every sorted or $in find.
const docCPUQueryRows = 2_000

// BenchmarkDocClientCPU puts side by side the client CPU per command of enginebench's document
// path and of a bare mongo-go-driver loop sending the same commands, on a managed FerretDB on
// SQLite (issue 32's target: within 1.1x):
//
//   - insert100: l.i0's insert of BatchI0 documents (ours: the session's insert, documents
//     encoded into its arena; bare: a []bson.D built from the same rows, then InsertMany);
//   - qp: the point query of PointIDs _ids ($in, projected to product and data);
//   - qr: the range query on the pc index ({product: {$gte: v}}, sorted, projected, limited).
//
// Both loops connect to the same server; bare uses its own driver client with the engine's
// concerns (w 1, read concern local), reads every document a query returns, and uses
// context.Background(). client-us/op is this process's CPU (getrusage) per command; the server
// is its own process.
func BenchmarkDocClientCPU(b *testing.B) {
	s := doctest.SQLite()
	servertest.Require(b, server.FerretDB)
	ctx := context.Background()
	db, _ := s.Start(b, ctx, nil)
	p, _ := DefaultParams("tiny")
	if err := p.Validate(); err != nil {
		b.Fatal(err)
	}
	be := newDocBackend(db, &p)
	query, load := &table{name: "pi1", no: 1}, &table{name: "pi2", no: 2}
	for _, t := range []*table{query, load} {
		if err := be.createTable(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
	sess, err := be.newSession(ctx, true)
	if err != nil {
		b.Fatal(err)
	}
	gen := NewGen(&p, p.Seed, streamOf("l.i0", 0, 0))
	for n := 0; n < docCPUQueryRows; n += p.BatchI0 {
		if err := sess.insert(ctx, query, gen.Batch(p.BatchI0, time.Now().Unix())); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := sess.createIndexes(ctx, query); err != nil {
		b.Fatal(err)
	}
	client := bareDocClient(b, db)
	bareQuery, bareLoad := client.Database(doc.Database).Collection(query.name), client.Database(doc.Database).Collection(load.name)

	// insert100: each op inserts new _ids, both loops from the same rows.
	batch := NewGen(&p, p.Seed, streamOf("l.i0", 1, 0)).Batch(p.BatchI0, time.Now().Unix())
	next := int64(1)
	withIDs := func() []Row {
		for j := range batch {
			batch[j].ID, next = next, next+1
		}
		return batch
	}
	ours := func(int) error { return sess.insert(ctx, load, withIDs()) }
	docs := make([]any, len(batch))
	bare := func(int) error {
		for j, r := range withIDs() {
			docs[j] = bson.D{{Key: fieldID, Value: r.ID}, {Key: fieldTime, Value: bson.DateTime(r.DateAndTime * 1000)},
				{Key: fieldCash, Value: int32(r.CashRegisterID)}, {Key: fieldCust, Value: int32(r.CustomerID)},
				{Key: fieldProd, Value: int32(r.ProductID)}, {Key: fieldPrice, Value: int32(r.Price)}, {Key: fieldData, Value: string(r.Data)}}
		}
		_, err := bareLoad.InsertMany(context.Background(), docs)
		return err
	}
	b.Run("insert100", func(b *testing.B) {
		b.Run("enginebench", func(b *testing.B) { cpuLoop(b, p.BatchI0, ours) })
		b.Run("bare", func(b *testing.B) { cpuLoop(b, p.BatchI0, bare) })
	})

	ids := make([][]int64, cpuRing)
	starts := make([]int64, cpuRing)
	for i := range ids {
		for j := 0; j < p.PointIDs; j++ {
			ids[i] = append(ids[i], 1+int64((i*p.PointIDs+j*7919)%docCPUQueryRows))
		}
		starts[i] = int64(i * 13 % p.Products)
	}
	pointOurs := func(i int) error { _, err := sess.pointQuery(ctx, query, ids[i%cpuRing]); return err }
	pointOpts := options.Find().SetProjection(bson.D{{Key: fieldProd, Value: 1}, {Key: fieldData, Value: 1}})
	pointBare := func(i int) error {
		return drain(bareQuery.Find(context.Background(), bson.D{{Key: fieldID, Value: bson.D{{Key: "$in", Value: ids[i%cpuRing]}}}}, pointOpts))
	}
	rangeOurs := func(i int) error {
		_, err := sess.rangeQuery(ctx, query, idxMarket, starts[i%cpuRing], p.QueryRows)
		return err
	}
	rangeOpts := options.Find().SetSort(be.sorts[idxMarket]).SetProjection(be.rangeProj[idxMarket]).SetLimit(int64(p.QueryRows))
	rangeBare := func(i int) error {
		return drain(bareQuery.Find(context.Background(), bson.D{{Key: fieldProd, Value: bson.D{{Key: "$gte", Value: int32(starts[i%cpuRing])}}}}, rangeOpts))
	}
	for _, c := range []struct {
		name       string
		ours, bare func(int) error
	}{{"qp", pointOurs, pointBare}, {"qr", rangeOurs, rangeBare}} {
		b.Run(c.name, func(b *testing.B) {
			b.Run("enginebench", func(b *testing.B) { cpuLoop(b, 0, c.ours) })
			b.Run("bare", func(b *testing.B) { cpuLoop(b, 0, c.bare) })
		})
	}
}

// bareDocClient connects a driver client of its own to db's server, with db's concerns.
func bareDocClient(b *testing.B, db doc.DB) *mongo.Client {
	b.Helper()
	uri := db.(interface{ ManagedDSN() string }).ManagedDSN()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetReadConcern(readconcern.Local()).
		SetWriteConcern(&writeconcern.WriteConcern{W: 1}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Disconnect(context.Background()) })
	return client
}

// drain reads every document of a find's cursor.
func drain(cur *mongo.Cursor, err error) error {
	if err != nil {
		return err
	}
	defer cur.Close(context.Background())
	for cur.Next(context.Background()) {
	}
	return cur.Err()
}
