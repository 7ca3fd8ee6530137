package main

import (
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// opQuery is an OP_QUERY of doc on collection, as the 3.x Java drivers send their handshake.
func opQuery(id int32, collection string, doc []byte) []byte {
	b := make([]byte, headerLen+4)
	b = append(b, collection...)
	b = append(b, 0)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, uint32(0xffffffff)) // numberToReturn -1
	b = append(b, doc...)
	le.PutUint32(b, uint32(len(b)))
	le.PutUint32(b[4:], uint32(id))
	le.PutUint32(b[12:], opQueryCode)
	return b
}

// opMsg is an OP_MSG of the one body document doc, with flags.
func opMsg(id int32, flags uint32, doc []byte) []byte {
	b := make([]byte, headerLen)
	b = le.AppendUint32(b, flags)
	b = append(b, 0)
	b = append(b, doc...)
	if flags&msgChecksumPresent != 0 {
		b = le.AppendUint32(b, 0xdeadbeef)
	}
	le.PutUint32(b, uint32(len(b)))
	le.PutUint32(b[4:], uint32(id))
	le.PutUint32(b[12:], opMsgCode)
	return b
}

func TestIsBuildInfoQuery(t *testing.T) {
	bi := mustMarshal(t, bson.D{{Key: "buildinfo", Value: 1}})
	for _, c := range []struct {
		name string
		msg  []byte
		want bool
	}{
		{"buildinfo on admin.$cmd", opQuery(1, "admin.$cmd", bi), true},
		{"buildInfo, another case", opQuery(1, "linkdb0.$cmd", mustMarshal(t, bson.D{{Key: "buildInfo", Value: 1}})), true},
		{"isMaster", opQuery(1, "admin.$cmd", mustMarshal(t, bson.D{{Key: "isMaster", Value: 1}})), false},
		{"a query of a collection", opQuery(1, "admin.buildinfo", bi), false},
		{"an empty document", opQuery(1, "admin.$cmd", mustMarshal(t, bson.D{})), false},
		{"buildInfo over OP_MSG", opMsg(1, 0, bi), false},
		{"cut short", opQuery(1, "admin.$cmd", bi)[:headerLen+12], false},
	} {
		if got := isBuildInfoQuery(c.msg); got != c.want {
			t.Errorf("%s: isBuildInfoQuery = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestDropIndexNS(t *testing.T) {
	withNS := bson.D{{Key: "createIndexes", Value: "link"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "id1", Value: 1}}}, {Key: "name", Value: "id1_1"}, {Key: "ns", Value: "linkdb0.link"}, {Key: "unique", Value: true}},
	}}, {Key: "$db", Value: "linkdb0"}}
	want := mustMarshal(t, bson.D{{Key: "createIndexes", Value: "link"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "id1", Value: 1}}}, {Key: "name", Value: "id1_1"}, {Key: "unique", Value: true}},
	}}, {Key: "$db", Value: "linkdb0"}})
	for _, flags := range []uint32{0, msgChecksumPresent} {
		in := opMsg(7, flags, mustMarshal(t, withNS))
		out, changed, err := dropIndexNS(in)
		if err != nil || !changed {
			t.Fatalf("flags %d: changed %v, err %v", flags, changed, err)
		}
		if got := int(le.Uint32(out)); got != len(out) {
			t.Errorf("flags %d: the header says %d bytes, the message has %d", flags, got, len(out))
		}
		if requestID(out) != 7 || opCode(out) != opMsgCode || le.Uint32(out[headerLen:]) != 0 {
			t.Errorf("flags %d: header or flags changed: id %d, op %d, flags %d", flags, requestID(out), opCode(out), le.Uint32(out[headerLen:]))
		}
		if body := out[headerLen+5:]; !bytes.Equal(body, want) {
			t.Errorf("flags %d: body %v, want %v", flags, bson.Raw(body), bson.Raw(want))
		}
	}
	for name, msg := range map[string][]byte{
		"createIndexes without ns": opMsg(1, 0, want),
		"another command":          opMsg(1, 0, mustMarshal(t, bson.D{{Key: "insert", Value: "link"}, {Key: "ns", Value: "x"}})),
		"an OP_QUERY":              opQuery(1, "admin.$cmd", mustMarshal(t, withNS)),
	} {
		out, changed, err := dropIndexNS(msg)
		if err != nil || changed || !bytes.Equal(out, msg) {
			t.Errorf("%s: changed %v, err %v", name, changed, err)
		}
	}
}

// roundTrip sends msg on c and reads one reply.
func roundTrip(t *testing.T, c net.Conn, msg []byte) []byte {
	t.Helper()
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	reply, err := readMessage(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := int32(le.Uint32(reply[8:])); got != requestID(msg) {
		t.Fatalf("a reply to %d, want to %d", got, requestID(msg))
	}
	return reply
}

// msgBody is the body document of an OP_MSG reply.
func msgBody(t *testing.T, reply []byte) bson.Raw {
	t.Helper()
	if opCode(reply) != opMsgCode || reply[headerLen+4] != 0 {
		t.Fatalf("not an OP_MSG with a body: opcode %d", opCode(reply))
	}
	return bson.Raw(reply[headerLen+5:])
}

// TestShimOnFerretDB puts the shim in front of a managed FerretDB (its unix socket): an
// OP_QUERY buildinfo, which FerretDB refuses, is answered with the server's buildInfo; a
// createIndexes with "ns", which FerretDB refuses, succeeds through the shim; the Go driver
// works through it as on the server.
func TestShimOnFerretDB(t *testing.T) {
	srv := servertest.Start(t, server.FerretDB, map[string]string{"handler": "sqlite"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	info, err := fetchBuildInfo(ctx, "unix", srv.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	s := &shim{network: "unix", addr: srv.SocketPath(), buildInfo: info, log: log.New(&logs, "", 0)}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- s.serve(serveCtx, ln) }()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	direct, err := net.Dial("unix", srv.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	via, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer via.Close()

	bi := opQuery(11, "admin.$cmd", mustMarshal(t, bson.D{{Key: "buildinfo", Value: 1}}))
	refused := roundTrip(t, direct, bi)
	reply := roundTrip(t, via, bi)
	if opCode(reply) != opReplyCode || le.Uint32(reply[32:]) != 1 {
		t.Fatalf("buildinfo through the shim: opcode %d, %d documents", opCode(reply), le.Uint32(reply[32:]))
	}
	doc := bson.Raw(reply[36:])
	if ok, _ := doc.Lookup("ok").AsFloat64OK(); ok != 1 || doc.Lookup("version").StringValue() == "" {
		t.Errorf("buildinfo through the shim: %v", doc)
	}
	if !bytes.Contains(refused[20:], []byte("Unsupported OP_QUERY")) {
		t.Errorf("FerretDB answered an OP_QUERY buildinfo itself (the shim may no longer be needed): %q", refused)
	}

	createNS := func(id int32, name string) []byte {
		return opMsg(id, 0, mustMarshal(t, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: name}, {Key: "ns", Value: "shimtest.c"}},
		}}, {Key: "$db", Value: "shimtest"}}))
	}
	if body := msgBody(t, roundTrip(t, direct, createNS(12, "a_1"))); !strings.Contains(body.Lookup("errmsg").StringValue(), `"ns"`) {
		t.Errorf("FerretDB did not refuse an index with ns (the shim may no longer need to drop it): %v", body)
	}
	if body := msgBody(t, roundTrip(t, via, createNS(13, "a_1"))); body.Lookup("ok").Double() != 1 {
		t.Errorf("createIndexes with ns through the shim: %v", body)
	}
	if !strings.Contains(logs.String(), `without the index option "ns"`) {
		t.Errorf("the shim did not log the rewrite: %q", logs.String())
	}

	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + ln.Addr().String() + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.WithoutCancel(ctx))
	coll := client.Database("shimtest").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: strings.Repeat("x", 100_000)}}); err != nil {
		t.Fatalf("insert through the shim: %v", err)
	}
	var got struct{ A string }
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || len(got.A) != 100_000 {
		t.Fatalf("find through the shim: %d bytes, %v", len(got.A), err)
	}
	if err := dropDatabase(ctx, "unix", srv.SocketPath(), "shimtest"); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Errorf("after dropDatabase: %d documents, %v", n, err)
	}
}

func TestReadMessageRefusesBadLengths(t *testing.T) {
	for _, n := range []uint32{0, 15, maxMessage + 1} {
		b := le.AppendUint32(nil, n)
		b = append(b, make([]byte, 12)...)
		if _, err := readMessage(bytes.NewReader(b), nil); err == nil {
			t.Errorf("length %d: no error", n)
		}
	}
	if _, err := readMessage(bytes.NewReader(nil), nil); err != io.EOF {
		t.Errorf("an empty stream: %v, want io.EOF", err)
	}
}
