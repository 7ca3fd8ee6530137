package shard

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DataTable holds what the shards of a run hand each other at a barrier (Barrier.Share): a shard's
// data, in parts of at most dataChars characters, by run, step and shard. It is created by the
// first shard that shares, and left there, as the barrier table.
const DataTable = "enginebench_barrier_data"

// dataChars is the most characters of one row of DataTable.
const dataChars = 4000

// Share records data (text) as the shard's at step, meets the others there (Meet, waiting extra
// beyond the timeout) and returns every shard's data, by shard index.
func (b *Barrier) Share(ctx context.Context, step string, data string, extra time.Duration) ([]string, error) {
	key := b.config + "/" + step
	if err := b.put(ctx, key, data); err != nil {
		b.Leave(step)
		return nil, err
	}
	if err := b.Meet(ctx, step, extra); err != nil {
		return nil, err
	}
	return b.get(ctx, key)
}

// put creates DataTable unless it is there and writes the shard's data of key into it.
func (b *Barrier) put(ctx context.Context, key, data string) error {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	if err := b.board.createData(ctx); err != nil {
		return err
	}
	for part := 0; part == 0 || part*dataChars < len(data); part++ {
		chunk := data[part*dataChars : min(len(data), (part+1)*dataChars)]
		if err := b.board.putData(ctx, key, b.shard.Index, part, chunk); err != nil {
			return fmt.Errorf("shard barrier at %s: write the shard's data to %s: %w", key, DataTable, err)
		}
	}
	return nil
}

// get returns every shard's data of key, by shard; an error when a shard's is missing.
func (b *Barrier) get(ctx context.Context, key string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	rows, err := b.board.data(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("shard barrier at %s: read the shards' data: %w", key, err)
	}
	parts := make([]strings.Builder, b.shard.Count)
	seen := make([]bool, b.shard.Count)
	for _, p := range rows {
		if p.shard < 0 || p.shard >= b.shard.Count {
			return nil, fmt.Errorf("shard barrier at %s: %s has data of shard %d of a run of %d shards", key, DataTable, p.shard, b.shard.Count)
		}
		parts[p.shard].WriteString(p.data)
		seen[p.shard] = true
	}
	out := make([]string, b.shard.Count)
	for i := range out {
		if !seen[i] {
			return nil, fmt.Errorf("shard barrier at %s: shard %d arrived without its data in %s", key, i, DataTable)
		}
		out[i] = parts[i].String()
	}
	return out, nil
}
