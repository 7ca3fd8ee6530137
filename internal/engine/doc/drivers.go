package doc

import (
	"context"
	"errors"

	"github.com/enginebench/enginebench/internal/engine"
)

// FerretDBDriver is the ferretdb engine: a managed FerretDB server (on SQLite, or on
// PostgreSQL through a managed postgres server), or an existing one by DSN.
func FerretDBDriver() engine.Driver {
	return engine.Driver{
		Name:        "ferretdb",
		Family:      engine.FamilyDoc,
		Description: "FerretDB 1.24: MongoDB's wire protocol over SQLite or PostgreSQL (not MongoDB's storage engine)",
		Server:      true,
		Open: func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
			return nil, errors.New("ferretdb: not yet")
		},
	}
}
