//go:build !cgo

package sqldb

import (
	"context"
	"errors"

	"github.com/enginebench/enginebench/internal/engine"
)

// errSQLiteNoCgo says why the sqlite engine is missing from a build without cgo, and how to get it.
func errSQLiteNoCgo() error {
	return errors.New("this binary was built without cgo, which SQLite needs: " +
		"rebuild with CGO_ENABLED=1 and a C compiler (apt-get install gcc)")
}

// sqliteAvailable reports that SQLite is missing: go-sqlite3 compiles SQLite with cgo.
func sqliteAvailable() error { return errSQLiteNoCgo() }

// openSQLite fails: see sqliteAvailable.
func openSQLite(context.Context, engine.Config) (engine.Engine, error) {
	return nil, errSQLiteNoCgo()
}

// sqliteRetryable is false: without cgo no SQLite error can occur.
func sqliteRetryable(error) bool { return false }

// sqliteDuplicateKey is false: without cgo no SQLite error can occur.
func sqliteDuplicateKey(error) bool { return false }
