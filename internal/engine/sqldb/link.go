package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
)

var _ engine.Pinger = (*serverCore)(nil)

// Pinger implements engine.Pinger: a connection of the pool, SELECT 1 on it, and the TLS of
// its session as the server tells it (PostgreSQL's pg_stat_ssl, MySQL's Ssl_version and
// Ssl_cipher status).
func (c *serverCore) Pinger(ctx context.Context) (engine.Link, func(context.Context) error, func() error, error) {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return engine.Link{}, nil, nil, c.redact(fmt.Errorf("%s: a connection for the round trip: %w", c.name, err))
	}
	tls, err := sessionTLS(ctx, conn, c.dialect.Kind())
	if err != nil {
		return engine.Link{}, nil, nil, errors.Join(c.redact(fmt.Errorf("%s: the TLS of the session: %w", c.name, err)), conn.Close())
	}
	var one int
	ping := func(ctx context.Context) error { return conn.QueryRowContext(ctx, "SELECT 1").Scan(&one) }
	return engine.Link{Address: c.address, TLS: tls, Ping: "SELECT 1"}, ping, conn.Close, nil
}

// sessionTLS returns the protocol and cipher of conn's session, "" when it is not encrypted.
func sessionTLS(ctx context.Context, conn *sql.Conn, k Kind) (string, error) {
	switch k {
	case Postgres:
		var s string
		err := conn.QueryRowContext(ctx, "SELECT coalesce((SELECT version || ' ' || cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl), '')").Scan(&s)
		return s, err
	case MySQL:
		rows, err := conn.QueryContext(ctx, "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')")
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var version, cipher string
		for rows.Next() {
			var name, value string
			if err := rows.Scan(&name, &value); err != nil {
				return "", err
			}
			if strings.EqualFold(name, "Ssl_version") {
				version = value
			} else {
				cipher = value
			}
		}
		return strings.TrimSpace(version + " " + cipher), rows.Err()
	}
	return "", nil
}

// pgAddress is the address of a PostgreSQL server at host and port: its socket in host when
// host is a directory (an absolute path), else host:port.
func pgAddress(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return filepath.Join(host, ".s.PGSQL."+strconv.Itoa(int(port)))
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}
