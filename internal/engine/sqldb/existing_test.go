package sqldb_test

import (
	"context"
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
)

// TestExistingAndDropTables finds, among the names asked for, the tables that exist (and only
// tables of the connection's database), and drops them, on a real PostgreSQL, InnoDB and SQLite.
func TestExistingAndDropTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := func(t *testing.T, db sqldb.DB) {
		for _, q := range []string{"CREATE TABLE pi1 (a INT)", "CREATE TABLE pi3 (a INT)", "CREATE TABLE other (a INT)"} {
			if _, err := db.SQL().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		asked := []string{"pi1", "pi2", "pi3"}
		got, err := sqldb.ExistingTables(ctx, db, asked)
		if err != nil || !slices.Equal(got, []string{"pi1", "pi3"}) {
			t.Fatalf("ExistingTables(%v) = %v, %v; want [pi1 pi3]", asked, got, err)
		}
		if err := sqldb.DropTables(ctx, db, got); err != nil {
			t.Fatal(err)
		}
		if got, err := sqldb.ExistingTables(ctx, db, asked); err != nil || len(got) != 0 {
			t.Errorf("after DropTables: %v, %v", got, err)
		}
		if got, err := sqldb.ExistingTables(ctx, db, []string{"other"}); err != nil || len(got) != 1 {
			t.Errorf("a table not asked for was dropped: %v, %v", got, err)
		}
		if err := sqldb.DropTables(ctx, db, []string{"nosuch"}); err != nil {
			t.Errorf("dropping a table that does not exist: %v", err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		check(t, enginetest.Open(t, ctx, sqldb.SQLiteDriver(), "", nil, t.TempDir()).(sqldb.DB))
	})
	for _, s := range sqldbtest.Servers() {
		if s.Driver.Name == "myrocks" {
			continue // InnoDB's server and client
		}
		t.Run(s.Driver.Name, func(t *testing.T) {
			s.Require(t)
			check(t, s.Open(t, ctx, s.Small, servertest.DataDir(t)).(sqldb.DB))
		})
	}
}

func TestDropTablesSQL(t *testing.T) {
	pg, lite := sqldb.DialectOf(sqldb.Postgres), sqldb.DialectOf(sqldb.SQLite)
	if got := sqldb.DropTablesSQL(pg, []string{"pi1", "pi2"}); !slices.Equal(got, []string{"DROP TABLE IF EXISTS pi1, pi2"}) {
		t.Errorf("postgres: %q", got)
	}
	if got := sqldb.DropTablesSQL(lite, []string{"pi1", "pi2"}); !slices.Equal(got, []string{"DROP TABLE IF EXISTS pi1", "DROP TABLE IF EXISTS pi2"}) {
		t.Errorf("sqlite: %q", got)
	}
}
