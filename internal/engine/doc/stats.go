package doc

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// statPaths are the serverStatus figures the engine reports, by their stable names: the
// WiredTiger cache and its dirty bytes, eviction, checkpoints, tickets in use (the
// concurrentTransactions of MongoDB before 7.0, the execution queues of 7.0 and later) and the
// operation counters. A server that has no such figure (FerretDB, the In-Memory engine's
// checkpoints) leaves it out, and the tables show "-".
var statPaths = []struct {
	name string
	path []string
}{
	{"cache_bytes", []string{"wiredTiger", "cache", "bytes currently in the cache"}},
	{"cache_dirty_bytes", []string{"wiredTiger", "cache", "tracked dirty bytes in the cache"}},
	{"cache_max_bytes", []string{"wiredTiger", "cache", "maximum bytes configured"}},
	{"app_evicted_pages", []string{"wiredTiger", "cache", "pages evicted by application threads"}},
	{"evicted_modified_pages", []string{"wiredTiger", "cache", "modified pages evicted"}},
	{"checkpoints", []string{"wiredTiger", "transaction", "transaction checkpoints"}},
	{"checkpoint_ms", []string{"wiredTiger", "transaction", "transaction checkpoint total time (msecs)"}},
	{"checkpoint_running", []string{"wiredTiger", "transaction", "transaction checkpoint currently running"}},
	{"tickets_write_in_use", []string{"wiredTiger", "concurrentTransactions", "write", "out"}},
	{"tickets_read_in_use", []string{"wiredTiger", "concurrentTransactions", "read", "out"}},
	{"tickets_write_in_use", []string{"queues", "execution", "write", "out"}},
	{"tickets_read_in_use", []string{"queues", "execution", "read", "out"}},
	{"op_insert", []string{"opcounters", "insert"}},
	{"op_query", []string{"opcounters", "query"}},
	{"op_update", []string{"opcounters", "update"}},
	{"op_delete", []string{"opcounters", "delete"}},
	{"op_getmore", []string{"opcounters", "getmore"}},
	{"op_command", []string{"opcounters", "command"}},
}

// Stats implements engine.Statser: serverStatus's figures (statPaths) and, on a replica set
// member, the oplog's size and the window it holds.
func (e *docEngine) Stats(ctx context.Context) (map[string]float64, error) {
	var status bson.Raw
	if err := e.command(ctx, true, bson.D{{Key: "serverStatus", Value: 1}}, &status); err != nil {
		return nil, e.redact(fmt.Errorf("%s: serverStatus: %w", e.name, err))
	}
	m := make(map[string]float64)
	for _, p := range statPaths {
		if v, ok := number(status.Lookup(p.path...)); ok {
			m[p.name] = v
		}
	}
	if e.info.ReplicaSet != "" {
		e.oplogStats(ctx, m)
	}
	return m, nil
}

// oplogStats adds the oplog's bytes and the seconds between its first and last entries; an
// error leaves them out.
func (e *docEngine) oplogStats(ctx context.Context, m map[string]float64) {
	local := e.client.Database("local")
	var st struct {
		Size float64 `bson:"size"`
	}
	if err := local.RunCommand(ctx, bson.D{{Key: "collStats", Value: "oplog.rs"}}).Decode(&st); err == nil {
		m["oplog_bytes"] = st.Size
	}
	first, ok1 := e.oplogEdge(ctx, 1)
	last, ok2 := e.oplogEdge(ctx, -1)
	if ok1 && ok2 {
		m["oplog_window_seconds"] = float64(last) - float64(first)
	}
}

// oplogEdge returns the seconds of the oplog's first (dir 1) or last (dir -1) entry.
func (e *docEngine) oplogEdge(ctx context.Context, dir int) (uint32, bool) {
	var entry struct {
		TS bson.Timestamp `bson:"ts"`
	}
	c := Collection(collection{c: e.client.Database("local").Collection("oplog.rs")})
	found, err := c.FindOne(ctx, bson.D{}, Find{Sort: bson.D{{Key: "$natural", Value: dir}}}, &entry)
	return entry.TS.T, found && err == nil
}

// number reads a numeric BSON value as a float64.
func number(v bson.RawValue) (float64, bool) {
	switch v.Type {
	case bson.TypeInt32:
		return float64(v.Int32()), true
	case bson.TypeInt64:
		return float64(v.Int64()), true
	case bson.TypeDouble:
		return v.Double(), true
	case bson.TypeBoolean:
		if v.Boolean() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// existingEngine is an engine on an existing server, whose files are not known: it tells the
// database's size itself.
type existingEngine struct{ *docEngine }

// DatabaseBytes implements engine.DatabaseSizer on an existing server: dbStats's storage and
// index sizes of the benchmark database. A managed FerretDB is measured by its files instead
// (IsDataFile).
func (e existingEngine) DatabaseBytes(ctx context.Context) (int64, error) {
	var st struct {
		StorageSize float64 `bson:"storageSize"`
		IndexSize   float64 `bson:"indexSize"`
	}
	if err := e.command(ctx, false, bson.D{{Key: "dbStats", Value: 1}}, &st); err != nil {
		return 0, e.redact(fmt.Errorf("%s: dbStats: %w", e.name, err))
	}
	return int64(st.StorageSize + st.IndexSize), nil
}
