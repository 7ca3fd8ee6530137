// Command mongoshim sits between a MongoDB client and a FerretDB 1.24 server and mends the two
// things that the 3.x Java drivers send and FerretDB refuses: buildinfo over the legacy OP_QUERY
// opcode in every connection's handshake (FerretDB answers OP_QUERY for hello, isMaster and
// SASL only, internal/handler/cmd_query.go:65-152 of FerretDB v1.24.2), which it answers with
// the server's own buildInfo reply, fetched once over OP_MSG at start; and the index option
// "ns" in createIndexes (FerretDB: Index option "ns" is unknown), which it removes. Every other
// message goes through unchanged, byte for byte, in both directions. bench/refclients-mongo.sh
// puts it in front of FerretDB for both LinkBench clients, LinkbenchX on mongo-java-driver 3.x
// and enginebench, so that both reach the server by the same path (bench/README.md).
//
//	mongoshim -upstream 127.0.0.1:27017 -listen 127.0.0.1:0
//	mongoshim -upstream /path/to/ferretdb.sock -listen 127.0.0.1:0
//
// With -drop DB it drops the database DB on the server instead and exits.
//
// It prints "listening on ADDR" once it accepts connections, and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on (loopback)")
	upstream := flag.String("upstream", "", "the server: host:port, or the path of its unix socket")
	drop := flag.String("drop", "", "drop this database on the server and exit (the rig's fresh database)")
	flag.Parse()
	if *upstream == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: mongoshim -upstream HOST:PORT|SOCKET [-listen ADDR | -drop DB]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := log.New(os.Stderr, "mongoshim: ", log.LstdFlags)
	if *drop != "" {
		network, addr := upstreamAddr(*upstream)
		if err := dropDatabase(ctx, network, addr, *drop); err != nil {
			logger.Print(err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, *listen, *upstream, os.Stdout, logger); err != nil {
		logger.Print(err)
		os.Exit(1)
	}
}

// run fetches the server's buildInfo, listens on listen, prints the address to out and serves
// until ctx ends.
func run(ctx context.Context, listen, upstream string, out io.Writer, logger *log.Logger) error {
	network, addr := upstreamAddr(upstream)
	fetchCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	info, err := fetchBuildInfo(fetchCtx, network, addr)
	cancel()
	if err != nil {
		return fmt.Errorf("buildInfo from %s: %w", upstream, err)
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %q: a loopback address only (the server behind has no authentication)", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s := &shim{network: network, addr: addr, buildInfo: info, log: logger}
	fmt.Fprintf(out, "listening on %s\n", ln.Addr())
	return s.serve(ctx, ln)
}

// upstreamAddr: a value with a "/" is a unix socket's path, anything else host:port.
func upstreamAddr(upstream string) (network, addr string) {
	if strings.Contains(upstream, "/") {
		return "unix", upstream
	}
	return "tcp", upstream
}

// shim is the proxy: where the server is, and its buildInfo reply (a BSON document).
type shim struct {
	network, addr string
	buildInfo     []byte
	log           *log.Logger
}

// serve accepts connections until ctx ends; each is handled in its own goroutines.
func (s *shim) serve(ctx context.Context, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		go s.handle(ctx, c)
	}
}

// handle relays one client connection to its own server connection.
func (s *shim) handle(ctx context.Context, client net.Conn) {
	defer client.Close()
	var d net.Dialer
	server, err := d.DialContext(ctx, s.network, s.addr)
	if err != nil {
		s.log.Printf("%s: dial the server: %v", client.RemoteAddr(), err)
		return
	}
	defer server.Close()
	stop := context.AfterFunc(ctx, func() { client.Close(); server.Close() })
	defer stop()
	// Writes to the client are whole messages under mu, so that an answer of the shim's own
	// never lands in the middle of a reply of the server.
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		relayReplies(client, server, &mu)
	}()
	err = s.relayRequests(client, server, &mu)
	server.Close() // ends relayReplies' read
	<-done
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		s.log.Printf("%s: %v", client.RemoteAddr(), err)
	}
}

// relayRequests reads the client's messages until the connection ends (the error says how):
// an OP_QUERY buildinfo is answered with the server's buildInfo, everything else is written to
// the server unchanged.
func (s *shim) relayRequests(client, server net.Conn, mu *sync.Mutex) error {
	var buf []byte
	var err error
	for {
		if buf, err = readMessage(client, buf); err != nil {
			return err
		}
		if isBuildInfoQuery(buf) {
			mu.Lock()
			_, err = client.Write(opReply(requestID(buf), s.buildInfo))
			mu.Unlock()
			if err != nil {
				return fmt.Errorf("write to the client: %w", err)
			}
			continue
		}
		msg, changed, err := dropIndexNS(buf)
		if err != nil {
			return err
		}
		if changed {
			s.log.Printf("%s: createIndexes without the index option \"ns\"", client.RemoteAddr())
		}
		if _, err = server.Write(msg); err != nil {
			return fmt.Errorf("write to the server: %w", err)
		}
	}
}

// relayReplies writes the server's messages to the client, each whole; when the server's side
// ends it closes the client's.
func relayReplies(client, server net.Conn, mu *sync.Mutex) {
	defer client.Close()
	var buf []byte
	var err error
	for {
		if buf, err = readMessage(server, buf); err != nil {
			return
		}
		mu.Lock()
		_, err = client.Write(buf)
		mu.Unlock()
		if err != nil {
			return
		}
	}
}
