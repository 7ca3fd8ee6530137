package shard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// board is where the shards of a run meet on the target database: the rows of BarrierTable
// (an arrival per run, step and shard), of DataTable (what they hand each other) and of
// AliveTable (their heartbeats). An SQL server holds them in tables (sqlBoard), a document
// server in collections of the same names (docBoard). The barrier's logic (Meet, Share, the
// heartbeat's verdict) is the same on both; a board only stores and reads. Every time is in
// Unix milliseconds; the heartbeats' are the database server's clock.
type board interface {
	// createBarrier creates BarrierTable unless it is there (another shard may create it at
	// the same time); createData creates DataTable, createAlive AliveTable.
	createBarrier(ctx context.Context) error
	createData(ctx context.Context) error
	createAlive(ctx context.Context) error
	// arrive records shard's arrival at key at arrivedAt, given up at once when gaveUp (Leave);
	// errArrived when its arrival is there already.
	arrive(ctx context.Context, key string, shard int, arrivedAt int64, gaveUp bool) error
	// arrivals returns the rows of key.
	arrivals(ctx context.Context, key string) ([]arrival, error)
	// setStart sets the start of key on shard 0's row; markGaveUp marks shard's row given up.
	setStart(ctx context.Context, key string, startAt int64) error
	markGaveUp(ctx context.Context, key string, shard int, at int64) error
	// putData writes part of shard's data of key; data returns every part of key, by shard
	// and part.
	putData(ctx context.Context, key string, shard, part int, data string) error
	data(ctx context.Context, key string) ([]dataPart, error)
	// firstBeat records shard's heartbeat (again, in a later configuration of the run); beat
	// sets it to the server's time, on the beat's own connection where the server has them;
	// ages returns the time since every shard's last beat, by shard, in milliseconds.
	firstBeat(ctx context.Context, shard int) error
	beat(ctx context.Context, shard int) error
	ages(ctx context.Context) (map[int]int64, error)
	// close returns what the beats hold (a connection).
	close()
}

// arrival is a shard's row of a step.
type arrival struct {
	shard           int
	startAt, gaveUp sql.NullInt64
}

// dataPart is a row of DataTable: a part of a shard's data.
type dataPart struct {
	shard, part int
	data        string
}

// errArrived is arrive's error when the shard's arrival is there already.
var errArrived = errors.New("the arrival is there already")

// boardOf returns shard s's board on eng, an SQL or a document server engine, for
// configuration config.
func boardOf(eng engine.Engine, s Shard, config string) (board, error) {
	switch db := eng.(type) {
	case sqldb.DB:
		if db.Dialect().Server() {
			return newSQLBoard(db, s.Run), nil
		}
	case doc.DB:
		return newDocBoard(db, s), nil
	}
	return nil, fmt.Errorf("shards meet in the database of a server engine: %s cannot be sharded across processes", config)
}
