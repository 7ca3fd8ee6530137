package sqldb

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/tlstest"
)

// BenchmarkRoundTripTLS measures what TLS costs the client per point SELECT (issue 36), as
// BenchmarkRoundTrip's text statement on a context that cannot be cancelled: over plain TCP
// on 127.0.0.1 and over TLS verified against the test's CA (sslmode=verify-full, tls-ca), each
// on a managed server of its own whose TCP port takes only that.
func BenchmarkRoundTripTLS(b *testing.B) {
	for _, c := range serverCases() {
		if c.driver.Name == "myrocks" {
			continue
		}
		b.Run(c.driver.Name, func(b *testing.B) {
			c.require(b)
			pki := tlstest.New(b)
			for _, v := range []struct {
				name string
				tls  *server.TLS
			}{{"tcp", nil}, {"tcp-tls", &server.TLS{CertFile: pki.ServerCert, KeyFile: pki.ServerKey}}} {
				b.Run(v.name, func(b *testing.B) {
					settings := map[string]string{"port": strconv.Itoa(benchFreePort(b))}
					for k, val := range c.small {
						settings[k] = val
					}
					srv := servertest.StartWith(b, c.kind, server.Options{Settings: settings, TLS: v.tls})
					dsn := plainTCPDSN(srv)
					if v.tls != nil {
						dsn = servertest.WithPassword(srv, srv.TLSDSN(pki.CAFile))
					}
					e, err := c.open(b, engine.Config{DSN: dsn})
					if err != nil {
						b.Fatal(err)
					}
					rtRun(b, rtSetup(b, e), Bind(e.Dialect(), "SELECT v FROM rt WHERE id = ?"), rtVariant{name: "text-background"})
				})
			}
		})
	}
}

// plainTCPDSN is the DSN of srv's benchmark database over TCP on 127.0.0.1 without TLS, with
// its password.
func plainTCPDSN(srv *server.Server) string {
	if srv.Kind() == server.Postgres {
		return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", srv.User(), srv.Password(), srv.Port(), srv.Database())
	}
	return fmt.Sprintf("%s:%s@tcp(127.0.0.1:%d)/%s", srv.User(), srv.Password(), srv.Port(), srv.Database())
}

// benchFreePort returns a TCP port that is free on 127.0.0.1 now.
func benchFreePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
