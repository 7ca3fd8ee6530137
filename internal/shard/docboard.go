package shard

import (
	"context"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine/doc"
)

// docBoard is the board in collections of the benchmark database of a document server, named
// as the SQL tables are. A document's _id is its row's primary key (run, step, shard and part,
// quoted), its other fields the row's columns; start_at and gave_up_at are absent until set.
// A collection is made by its first insert, as the server makes it. Every document is written
// by its own shard only, one write at a time, so that a server that loses concurrent updates
// of one document (FerretDB 1.24) loses none of the board's. The heartbeats' alive_at is the
// server's clock ($currentDate), and a shard reads the server's time by setting its own probe
// document's now_at the same way before it reads the beats.
type docBoard struct {
	barrier, parts, alive doc.Collection
	run                   string
	self                  int // the shard's index: its probe's
}

// newDocBoard returns run's board on the document server engine db.
func newDocBoard(db doc.DB, s Shard) *docBoard {
	return &docBoard{barrier: db.Collection(BarrierTable), parts: db.Collection(DataTable), alive: db.Collection(AliveTable), run: s.Run, self: s.Index}
}

// id returns the _id of the row of run, key (if any) and the numbers of its key.
func (b *docBoard) id(key string, nums ...int) string {
	s := strconv.Quote(b.run)
	if key != "" {
		s += " " + strconv.Quote(key)
	}
	for _, n := range nums {
		s += " " + strconv.Itoa(n)
	}
	return s
}

// The collections are made by their first insert.
func (b *docBoard) createBarrier(context.Context) error { return nil }
func (b *docBoard) createData(context.Context) error    { return nil }
func (b *docBoard) createAlive(context.Context) error   { return nil }

func (b *docBoard) arrive(ctx context.Context, key string, shard int, arrivedAt int64, gaveUp bool) error {
	d := bson.D{{Key: "_id", Value: b.id(key, shard)}, {Key: "run", Value: b.run}, {Key: "step", Value: key}, {Key: "shard", Value: shard},
		{Key: "arrived_at", Value: arrivedAt}}
	if gaveUp {
		d = append(d, bson.E{Key: "gave_up_at", Value: arrivedAt})
	}
	err := b.barrier.InsertOne(ctx, d)
	if err != nil && doc.IsDuplicateKey(err) {
		return errArrived
	}
	return err
}

// barrierDoc is a document of BarrierTable as arrivals reads it.
type barrierDoc struct {
	Shard   int    `bson:"shard"`
	StartAt *int64 `bson:"start_at"`
	GaveUp  *int64 `bson:"gave_up_at"`
}

func (b *docBoard) arrivals(ctx context.Context, key string) ([]arrival, error) {
	var out []arrival
	_, err := b.barrier.Find(ctx, bson.D{{Key: "run", Value: b.run}, {Key: "step", Value: key}}, doc.Find{}, func(raw bson.Raw) error {
		var d barrierDoc
		if err := bson.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("decode %s: %w", raw, err)
		}
		a := arrival{shard: d.Shard}
		if d.StartAt != nil {
			a.startAt.Int64, a.startAt.Valid = *d.StartAt, true
		}
		if d.GaveUp != nil {
			a.gaveUp.Int64, a.gaveUp.Valid = *d.GaveUp, true
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

// set sets field to v in the document _id of c, which must be there.
func set(ctx context.Context, c doc.Collection, id, field string, v int64) error {
	u, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: field, Value: v}}}}, false)
	if err == nil && u.Matched == 0 {
		err = fmt.Errorf("%s has no document %s", c.Name(), id)
	}
	return err
}

func (b *docBoard) setStart(ctx context.Context, key string, startAt int64) error {
	return set(ctx, b.barrier, b.id(key, 0), "start_at", startAt)
}

func (b *docBoard) markGaveUp(ctx context.Context, key string, shard int, at int64) error {
	return set(ctx, b.barrier, b.id(key, shard), "gave_up_at", at)
}

func (b *docBoard) putData(ctx context.Context, key string, shard, part int, data string) error {
	return b.parts.InsertOne(ctx, bson.D{{Key: "_id", Value: b.id(key, shard, part)}, {Key: "run", Value: b.run}, {Key: "step", Value: key},
		{Key: "shard", Value: shard}, {Key: "part", Value: part}, {Key: "data", Value: data}})
}

func (b *docBoard) data(ctx context.Context, key string) ([]dataPart, error) {
	var out []dataPart
	o := doc.Find{Sort: bson.D{{Key: "shard", Value: 1}, {Key: "part", Value: 1}}}
	_, err := b.parts.Find(ctx, bson.D{{Key: "run", Value: b.run}, {Key: "step", Value: key}}, o, func(raw bson.Raw) error {
		var d struct {
			Shard int    `bson:"shard"`
			Part  int    `bson:"part"`
			Data  string `bson:"data"`
		}
		if err := bson.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("decode the document %s: %w", raw.Lookup("_id"), err)
		}
		out = append(out, dataPart{shard: d.Shard, part: d.Part, data: d.Data})
		return nil
	})
	return out, err
}

// stamp sets the document _id of AliveTable's field to the server's time, with fields, making it
// when it is not there.
func (b *docBoard) stamp(ctx context.Context, id, field string, fields bson.D) error {
	u := bson.D{{Key: "$currentDate", Value: bson.D{{Key: field, Value: true}}}, {Key: "$set", Value: fields}}
	_, err := b.alive.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, u, true)
	return err
}

func (b *docBoard) firstBeat(ctx context.Context, shard int) error { return b.beat(ctx, shard) }

func (b *docBoard) beat(ctx context.Context, shard int) error {
	return b.stamp(ctx, b.id("", shard), "alive_at", bson.D{{Key: "run", Value: b.run}, {Key: "shard", Value: shard}})
}

// ages sets the reader's probe (now_at, of no shard) to the server's time, then reads every
// beat of the run beside it.
func (b *docBoard) ages(ctx context.Context) (map[int]int64, error) {
	probe := b.id("now", b.self)
	if err := b.stamp(ctx, probe, "now_at", bson.D{{Key: "run", Value: b.run}}); err != nil {
		return nil, err
	}
	beats := map[int]int64{}
	now, found := int64(0), false
	_, err := b.alive.Find(ctx, bson.D{{Key: "run", Value: b.run}}, doc.Find{}, func(raw bson.Raw) error {
		var d struct {
			ID    string         `bson:"_id"`
			Shard *int           `bson:"shard"`
			Alive *bson.DateTime `bson:"alive_at"`
			Now   *bson.DateTime `bson:"now_at"`
		}
		if err := bson.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("decode the document %s: %w", raw.Lookup("_id"), err)
		}
		switch {
		case d.ID == probe && d.Now != nil:
			now, found = int64(*d.Now), true
		case d.Shard != nil && d.Alive != nil:
			beats[*d.Shard] = int64(*d.Alive)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s has no probe %s after it was set", AliveTable, probe)
	}
	for s, at := range beats {
		beats[s] = now - at
	}
	return beats, nil
}

func (b *docBoard) close() {}
