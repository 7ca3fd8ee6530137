package doc

import (
	"context"
	"slices"
)

// ExistingCollections returns which of names the benchmark database of db has, in the order
// of names: a workload's leftovers on an existing server.
func ExistingCollections(ctx context.Context, db DB, names []string) ([]string, error) {
	have, err := db.Collections(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if slices.Contains(have, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// DropCollections drops the collections names of db.
func DropCollections(ctx context.Context, db DB, names []string) error {
	for _, n := range names {
		if err := db.DropCollection(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// DropCommands returns the mongosh commands that drop the collections names, for a message.
func DropCommands(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "db.getSiblingDB(\"" + Database + "\")." + n + ".drop()"
	}
	return out
}
