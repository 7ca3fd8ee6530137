package store

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/embeddedtest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/wiredtiger"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
)

// testEngine is an engine under test: a factory of stores on empty tables.
type testEngine struct {
	name string
	// kind and dir are a managed server's, whose statement log the test reads.
	kind server.Kind
	dir  string
	// shared is the one SQL engine of the test, whose tables are dropped before each store.
	shared sqldb.DB
	// newKV opens a new key-value engine for each store.
	newKV func(t *testing.T) engine.Engine
	// docDB is the one document engine of the test, whose collections are dropped before
	// each store; fork runs its stores in the corrected variant (mdcallag's layout).
	docDB doc.DB
	fork  bool
}

// engineCase names an engine and how a test gets it.
type engineCase struct {
	name   string
	driver engine.Driver
	small  map[string]string
	srv    *sqldbtest.Server // server engines
}

// engineCases are every engine but null, which stores nothing.
func engineCases() []engineCase {
	var cs []engineCase
	for _, d := range embeddedtest.Drivers() {
		cs = append(cs, engineCase{name: d.Name, driver: d})
	}
	cs = append(cs, engineCase{name: "wiredtiger-lsm-index", driver: wiredtiger.Driver(), small: map[string]string{"index_type": "lsm", "lsm_chunk_mb": "1"}})
	for _, s := range sqldbtest.Servers() {
		c := engineCase{name: s.Driver.Name, driver: s.Driver, small: s.Small, srv: &s}
		if s.Plugin == "ha_rocksdb" {
			// Deadlock detection on: the hammer's reference variant, whose ADD_LINK keeps a failed
			// INSERT's lock, would otherwise wait out rocksdb_lock_wait_timeout on every deadlock.
			c.small = s.Settings(map[string]string{"rocksdb_deadlock_detect": "ON"})
		}
		cs = append(cs, c)
	}
	return cs
}

// open opens the engine for the test (a managed server is started once and stopped at the
// end of the test; a missing server skips the test, or fails it with CI=true).
func (c engineCase) open(t *testing.T) *testEngine {
	t.Helper()
	kvtest.RequireBuilt(t, c.driver)
	if c.driver.Family == engine.FamilyKV {
		return &testEngine{name: c.name, newKV: func(t *testing.T) engine.Engine { return openEngine(t, c, t.TempDir()) }}
	}
	if c.srv == nil {
		return &testEngine{name: c.name, shared: openEngine(t, c, t.TempDir()).(sqldb.DB)}
	}
	c.srv.Require(t)
	dir := servertest.DataDir(t)
	return &testEngine{name: c.name, shared: openEngine(t, c, dir).(sqldb.DB), kind: c.srv.Kind, dir: dir}
}

// openEngine opens c's engine on dir through a registry and closes it at the end of the test.
func openEngine(t *testing.T, c engineCase, dir string) engine.Engine {
	t.Helper()
	settings := c.small
	if c.srv != nil {
		settings = maps.Clone(c.small)
		maps.Copy(settings, servertest.StatementLogSettings(c.srv.Kind))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return enginetest.Open(t, ctx, c.driver, c.name, settings, dir)
}

// store returns a Store with opt on empty, newly created tables.
func (e *testEngine) store(t *testing.T, opt Options) Store {
	t.Helper()
	ctx := context.Background()
	var eng engine.Engine
	switch {
	case e.docDB != nil:
		for _, c := range SQLTables() {
			if err := e.docDB.DropCollection(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		eng, opt.Corrected = e.docDB, e.fork
	case e.shared != nil:
		for _, tbl := range []string{linkTable, countTable, nodeTable} {
			if _, err := e.shared.SQL().ExecContext(ctx, "DROP TABLE IF EXISTS "+tbl); err != nil {
				t.Fatalf("drop table %s: %v", tbl, err)
			}
		}
		eng = e.shared
	default:
		eng = e.newKV(t)
	}
	st, err := Open(eng, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// client returns a client of st, closed at the end of the test.
func client(t *testing.T, st Store) Client {
	t.Helper()
	c, err := st.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close client: %v", err)
		}
	})
	return c
}

// TestEngines runs the conformance suite and the concurrent hammer on every engine; the
// engines run in parallel, each on one engine instance (one managed server).
func TestEngines(t *testing.T) {
	for _, c := range engineCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := c.open(t)
			t.Run("links", func(t *testing.T) { testLinks(t, e) })
			t.Run("link list", func(t *testing.T) { testLinkList(t, e) })
			t.Run("multiget", func(t *testing.T) { testMultiget(t, e) })
			t.Run("nodes", func(t *testing.T) { testNodes(t, e) })
			t.Run("payloads", func(t *testing.T) { testPayloads(t, e) })
			t.Run("load", func(t *testing.T) { testLoad(t, e) })
			t.Run("deferred index", func(t *testing.T) { testDeferredIndex(t, e) })
			for _, v := range variants {
				t.Run("hammer/"+v.name, func(t *testing.T) { testHammer(t, e, v.corrected) })
			}
			if e.shared == nil {
				return
			}
			for _, v := range variants {
				t.Run("explain/"+v.name, func(t *testing.T) { testExplain(t, e, v.corrected) })
			}
			if e.dir != "" {
				for _, v := range variants {
					t.Run("statements/"+v.name, func(t *testing.T) { testStatements(t, e, v.corrected) })
				}
				t.Run("partitions", func(t *testing.T) { testPartitions(t, e) })
			}
		})
	}
}

// variants are the two variants a test runs in.
var variants = []struct {
	name      string
	corrected bool
}{{"reference", false}, {"corrected", true}}

// TestNull runs every operation on the null engine: nothing fails, nothing is found.
func TestNull(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	testNullOps(t, &testEngine{name: "null", newKV: func(*testing.T) engine.Engine { return eng }})
}
