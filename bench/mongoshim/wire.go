package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/url"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The wire protocol's opcodes the shim reads or writes.
const (
	opReplyCode = 1
	opQueryCode = 2004
	opMsgCode   = 2013
	headerLen   = 16
	// maxMessage bounds a message's length: FerretDB's maxMessageSizeBytes is 48,000,000.
	maxMessage = 64 << 20
)

var le = binary.LittleEndian

// readMessage reads one whole message (its header and body) into buf, grown as needed, and
// returns it. A connection closed between messages is io.EOF.
func readMessage(r io.Reader, buf []byte) ([]byte, error) {
	if cap(buf) < headerLen {
		buf = make([]byte, headerLen, 4096)
	}
	buf = buf[:headerLen]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, err
	}
	n := int(int32(le.Uint32(buf)))
	if n < headerLen || n > maxMessage {
		return buf, fmt.Errorf("a message of %d bytes (the wire protocol allows %d to %d)", n, headerLen, maxMessage)
	}
	if cap(buf) < n {
		grown := make([]byte, n)
		copy(grown, buf)
		buf = grown
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf[headerLen:]); err != nil {
		return buf, fmt.Errorf("a message cut short: %w", err)
	}
	return buf, nil
}

func requestID(msg []byte) int32 { return int32(le.Uint32(msg[4:])) }

func opCode(msg []byte) int32 { return int32(le.Uint32(msg[12:])) }

var (
	cmdSuffix = []byte(".$cmd")
	buildinfo = []byte("buildinfo")
)

// isBuildInfoQuery says whether msg is an OP_QUERY of the command buildinfo (any case) on a
// database's $cmd: flags, the collection's name, skip, return, then the command document,
// whose first key names the command.
func isBuildInfoQuery(msg []byte) bool {
	if len(msg) < headerLen+4 || opCode(msg) != opQueryCode {
		return false
	}
	b := msg[headerLen+4:]
	i := bytes.IndexByte(b, 0)
	if i < 0 || !bytes.HasSuffix(b[:i], cmdSuffix) {
		return false
	}
	b = b[i+1:]
	if len(b) < 8+6 {
		return false
	}
	doc := b[8:]
	if doc[4] == 0 { // an empty document: no command
		return false
	}
	key := doc[5:]
	j := bytes.IndexByte(key, 0)
	return j >= 0 && bytes.EqualFold(key[:j], buildinfo)
}

// opReply is an OP_REPLY to the request responseTo holding the one document doc.
func opReply(responseTo int32, doc []byte) []byte {
	n := headerLen + 20 + len(doc)
	b := make([]byte, n)
	le.PutUint32(b[0:], uint32(n))
	le.PutUint32(b[8:], uint32(responseTo))
	le.PutUint32(b[12:], opReplyCode)
	// responseFlags 0, cursorID 0, startingFrom 0, then numberReturned.
	le.PutUint32(b[32:], 1)
	copy(b[36:], doc)
	return b
}

// OP_MSG's flag bits the shim keeps or drops.
const (
	msgChecksumPresent = 1 << 0
)

// dropIndexNS rewrites an OP_MSG createIndexes whose index specifications hold "ns" (the
// 3.x Java drivers send it; FerretDB 1.24 refuses it as an unknown index option, as MongoDB
// 4.4 and later would not) into the same command without it. It returns the message and
// whether it was changed; any other message comes back as it is. A checksum, were there one,
// is dropped with its flag: the message is no longer the one it was computed over.
func dropIndexNS(msg []byte) ([]byte, bool, error) {
	if len(msg) < headerLen+5 || opCode(msg) != opMsgCode {
		return msg, false, nil
	}
	flags := le.Uint32(msg[headerLen:])
	body := msg[headerLen+4:]
	if flags&msgChecksumPresent != 0 {
		if len(body) < 5 {
			return msg, false, nil
		}
		body = body[:len(body)-4]
	}
	if body[0] != 0 || len(body) < 5 { // section 0 (the command's body) comes first
		return msg, false, nil
	}
	n := int(int32(le.Uint32(body[1:])))
	if n < 5 || 1+n > len(body) {
		return msg, false, fmt.Errorf("an OP_MSG body of %d bytes in %d", n, len(body)-1)
	}
	doc := bson.Raw(body[1 : 1+n])
	first, err := doc.IndexErr(0)
	if err != nil || first.Key() != "createIndexes" {
		return msg, false, nil
	}
	var cmd bson.D
	if err := bson.Unmarshal(doc, &cmd); err != nil {
		return msg, false, fmt.Errorf("createIndexes: %w", err)
	}
	if !dropNS(cmd) {
		return msg, false, nil
	}
	newDoc, err := bson.Marshal(cmd)
	if err != nil {
		return msg, false, fmt.Errorf("createIndexes: %w", err)
	}
	rest := body[1+n:]
	out := make([]byte, 0, headerLen+4+1+len(newDoc)+len(rest))
	out = append(out, msg[:headerLen]...)
	out = le.AppendUint32(out, flags&^msgChecksumPresent)
	out = append(out, 0)
	out = append(out, newDoc...)
	out = append(out, rest...)
	le.PutUint32(out, uint32(len(out)))
	return out, true, nil
}

// dropNS removes "ns" from each document of the command's "indexes" and says whether there
// was one.
func dropNS(cmd bson.D) bool {
	dropped := false
	for _, e := range cmd {
		if e.Key != "indexes" {
			continue
		}
		specs, ok := e.Value.(bson.A)
		if !ok {
			return false
		}
		for i, s := range specs {
			spec, ok := s.(bson.D)
			if !ok {
				continue
			}
			kept := spec[:0]
			for _, f := range spec {
				if f.Key == "ns" {
					dropped = true
					continue
				}
				kept = append(kept, f)
			}
			specs[i] = kept
		}
	}
	return dropped
}

// connect opens a Go driver client on the server.
func connect(network, addr string) (*mongo.Client, error) {
	host := addr
	if network == "unix" {
		host = url.QueryEscape(addr)
	}
	opts := options.Client().ApplyURI("mongodb://" + host + "/?directConnection=true").
		SetServerSelectionTimeout(10 * time.Second)
	return mongo.Connect(opts)
}

// fetchBuildInfo runs buildInfo on the server (over OP_MSG, with the Go driver) and returns
// its reply document.
func fetchBuildInfo(ctx context.Context, network, addr string) ([]byte, error) {
	client, err := connect(network, addr)
	if err != nil {
		return nil, err
	}
	defer client.Disconnect(context.WithoutCancel(ctx))
	raw, err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// dropDatabase drops the database db on the server.
func dropDatabase(ctx context.Context, network, addr, db string) error {
	client, err := connect(network, addr)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.WithoutCancel(ctx))
	if err := client.Database(db).Drop(ctx); err != nil {
		return fmt.Errorf("drop database %s: %w", db, err)
	}
	return nil
}
