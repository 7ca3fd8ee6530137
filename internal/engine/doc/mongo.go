package doc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Database is the benchmark database on every server of the family.
const Database = "enginebench"

// serverSelectionTimeout bounds the wait for a server to send a command to, unless the DSN
// sets serverSelectionTimeoutMS.
const serverSelectionTimeout = 10 * time.Second

// writeConflict is MongoDB's error code of a write conflict between concurrent transactions.
const writeConflict = 112

// conn is the benchmark database on one server, through the official driver.
type conn struct {
	client  *mongo.Client
	db      *mongo.Database
	concern Concern
	link    engine.Link // the URI's hosts and whether it asks for TLS
}

// dial connects to uri (the driver's URI syntax) with the configuration's concerns, and pings
// the server. The error never holds uri.
func dial(ctx context.Context, uri string, c Concern, pool uint64) (*conn, error) {
	opts := options.Client().ApplyURI(uri)
	if opts.Validate() != nil {
		return nil, errors.New("the DSN does not parse as a mongodb:// URI")
	}
	if opts.ServerSelectionTimeout == nil {
		// A server that is not there is an error within seconds, not the driver's 30.
		opts.SetServerSelectionTimeout(serverSelectionTimeout)
	}
	if wc := c.writeConcern(); wc != nil {
		opts.SetWriteConcern(wc)
	}
	if rc := c.readConcern(); rc != nil {
		opts.SetReadConcern(rc)
	}
	if pool > 0 {
		opts.SetMaxPoolSize(pool)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := client.Ping(ctx, nil); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("ping the server: %w", mongoTLSHint(err, opts.TLSConfig != nil))
	}
	link := engine.Link{Address: strings.Join(opts.Hosts, ","), Ping: "ping"}
	if opts.TLSConfig != nil {
		link.TLS = "TLS (asked for by the URI)"
	}
	return &conn{client: client, db: client.Database(Database), concern: c, link: link}, nil
}

// writeConcern is c's write concern for the driver; nil: the server's default.
func (c Concern) writeConcern() *writeconcern.WriteConcern {
	if c.W == "" && !c.Journal {
		return nil
	}
	wc := &writeconcern.WriteConcern{}
	if n, err := strconv.Atoi(c.W); err == nil {
		wc.W = n
	} else if c.W != "" {
		wc.W = c.W
	}
	if c.Journal {
		j := true
		wc.Journal = &j
	}
	return wc
}

// readConcern is c's read concern for the driver; nil: the server's default.
func (c Concern) readConcern() *readconcern.ReadConcern {
	if c.Read == "" {
		return nil
	}
	return &readconcern.ReadConcern{Level: c.Read}
}

func (c *conn) close(ctx context.Context) error { return c.client.Disconnect(ctx) }

// Collection implements DB.
func (c *conn) Collection(name string) Collection {
	return collection{c: c.db.Collection(name), hints: c.concern.Hints}
}

// Collections implements DB.
func (c *conn) Collections(ctx context.Context) ([]string, error) {
	names, err := c.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	slices.Sort(names)
	return names, nil
}

// DropCollection implements DB.
func (c *conn) DropCollection(ctx context.Context, name string) error {
	if err := c.db.Collection(name).Drop(ctx); err != nil {
		return fmt.Errorf("drop collection %s: %w", name, err)
	}
	return nil
}

// Concern implements DB.
func (c *conn) Concern() Concern { return c.concern }

// Transact implements DB.
func (c *conn) Transact(ctx context.Context, fn func(ctx context.Context) error) error {
	if !c.concern.Transactions {
		return fn(ctx)
	}
	// As iibench.py's sessions (iibench.py:302-311): no causal consistency, snapshot reads, the
	// configuration's writes. Its max_commit_time_ms has no equivalent in the v2 driver: the
	// commit is bounded by ctx.
	sess, err := c.client.StartSession(options.Session().SetCausalConsistency(false))
	if err != nil {
		return fmt.Errorf("start a session: %w", err)
	}
	defer sess.EndSession(context.WithoutCancel(ctx))
	to := options.Transaction().SetReadConcern(readconcern.Snapshot())
	if wc := c.concern.writeConcern(); wc != nil {
		to.SetWriteConcern(wc)
	}
	_, err = sess.WithTransaction(ctx, func(ctx context.Context) (any, error) { return nil, fn(ctx) }, to)
	return err
}

// command runs a database command on the benchmark database (or admin) and decodes its reply.
func (c *conn) command(ctx context.Context, admin bool, cmd bson.D, out any) error {
	db := c.db
	if admin {
		db = c.client.Database("admin")
	}
	return db.RunCommand(ctx, cmd).Decode(out)
}

// collection is a Collection over the driver's; hints says whether Find's hints are sent.
type collection struct {
	c     *mongo.Collection
	hints bool
}

func (c collection) Name() string { return c.c.Name() }

func (c collection) InsertMany(ctx context.Context, docs any) error {
	_, err := c.c.InsertMany(ctx, docs)
	return err
}

func (c collection) InsertUnordered(ctx context.Context, docs any) error {
	_, err := c.c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	return err
}

func (c collection) InsertOne(ctx context.Context, doc any) error {
	_, err := c.c.InsertOne(ctx, doc)
	return err
}

// findOptions converts o into the driver's options.
func findOptions(o Find, hints bool) *options.FindOptionsBuilder {
	fo := options.Find()
	if o.Sort != nil {
		fo.SetSort(o.Sort)
	}
	if o.Projection != nil {
		fo.SetProjection(o.Projection)
	}
	if o.Limit > 0 {
		fo.SetLimit(o.Limit)
	}
	if o.Hint != nil && hints {
		fo.SetHint(o.Hint)
	}
	if o.BatchSize > 0 {
		fo.SetBatchSize(o.BatchSize)
	}
	return fo
}

func (c collection) Find(ctx context.Context, filter any, o Find, each func(bson.Raw) error) (int, error) {
	cur, err := c.c.Find(ctx, filter, findOptions(o, c.hints))
	if err != nil {
		return 0, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	n := 0
	for cur.Next(ctx) {
		n++
		if each != nil {
			if err := each(cur.Current); err != nil {
				return n, err
			}
		}
	}
	return n, cur.Err()
}

func (c collection) FindOne(ctx context.Context, filter any, o Find, out any) (bool, error) {
	fo := options.FindOne()
	if o.Sort != nil {
		fo.SetSort(o.Sort)
	}
	if o.Projection != nil {
		fo.SetProjection(o.Projection)
	}
	if o.Hint != nil && c.hints {
		fo.SetHint(o.Hint)
	}
	err := c.c.FindOne(ctx, filter, fo).Decode(out)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

func (c collection) Count(ctx context.Context, filter any, limit int64) (int64, error) {
	co := options.Count()
	if limit > 0 {
		co.SetLimit(limit)
	}
	return c.c.CountDocuments(ctx, filter, co)
}

func (c collection) DeleteMany(ctx context.Context, filter any) (int64, error) {
	r, err := c.c.DeleteMany(ctx, filter)
	if err != nil {
		return 0, err
	}
	return r.DeletedCount, nil
}

func (c collection) DeleteOne(ctx context.Context, filter any) (int64, error) {
	r, err := c.c.DeleteOne(ctx, filter)
	if err != nil {
		return 0, err
	}
	return r.DeletedCount, nil
}

func (c collection) UpdateOne(ctx context.Context, filter, update any, upsert bool) (Updated, error) {
	r, err := c.c.UpdateOne(ctx, filter, update, options.UpdateOne().SetUpsert(upsert))
	return updated(r, err)
}

func (c collection) UpdateMany(ctx context.Context, filter, update any) (Updated, error) {
	r, err := c.c.UpdateMany(ctx, filter, update)
	return updated(r, err)
}

func updated(r *mongo.UpdateResult, err error) (Updated, error) {
	if err != nil {
		return Updated{}, err
	}
	return Updated{Matched: r.MatchedCount, Modified: r.ModifiedCount, Upserted: r.UpsertedCount}, nil
}

func (c collection) CreateIndex(ctx context.Context, ix Index) error {
	m := mongo.IndexModel{Keys: ix.Keys, Options: options.Index().SetName(ix.Name).SetUnique(ix.Unique)}
	if _, err := c.c.Indexes().CreateOne(ctx, m); err != nil {
		return fmt.Errorf("create index %s on %s: %w", ix.Name, c.c.Name(), err)
	}
	return nil
}

func (c collection) Indexes(ctx context.Context) ([]string, error) {
	specs, err := c.c.Indexes().ListSpecifications(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the indexes of %s: %w", c.c.Name(), err)
	}
	names := make([]string, 0, len(specs))
	for _, s := range specs {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names, nil
}

func isDuplicateKey(err error) bool { return mongo.IsDuplicateKeyError(err) }

func isRetryable(err error) bool {
	var se mongo.ServerError
	if errors.As(err, &se) && (se.HasErrorCode(writeConflict) || se.HasErrorLabel("TransientTransactionError")) {
		return true
	}
	return false
}
