package server_test

import (
	"context"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/netnstest"
)

// clientIn runs the kind's own command-line client in the host h against addr:port as user
// with password (given in the environment, never on the command line) and returns what the
// query q printed, or the client's error output.
func clientIn(h *netnstest.Host, kind server.Kind, addr string, port int, user, password, q string) (string, error) {
	cmd := h.Command("timeout", "60", "psql", "-h", addr, "-p", strconv.Itoa(port), "-U", user, "-d", server.Database, "-w", "-Atc", q)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGCONNECT_TIMEOUT=20")
	if kind == server.MariaDB {
		cmd = h.Command("timeout", "60", "mariadb", "--no-defaults", "-h", addr, "-P", strconv.Itoa(port), "-u", user,
			"--connect-timeout=20", "-N", "-B", "-e", q, server.Database)
		cmd.Env = append(os.Environ(), "MYSQL_PWD="+password)
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// With Options.Listen, a server with a TCP port listens on the address of the network given
// as well, and a client on another host in that network (a process in a network namespace
// over a veth pair) gets in with the password only; a host of another network, on its own
// pair, finds no server on its side.
func TestListenOnAnotherNetwork(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			h, other := netnstest.New(t), netnstest.New(t)
			port := freePort(t)
			s := servertest.StartWith(t, kind, server.Options{Settings: map[string]string{"port": strconv.Itoa(port)},
				Listen: []netip.Prefix{h.Gateway}})
			gw := h.Gateway.Addr().String()
			q := "SELECT inet_client_addr()"
			if kind == server.MariaDB {
				q = "SELECT USER()"
			}
			got, err := clientIn(h, kind, gw, port, s.User(), s.Password(), q)
			if want := h.Addr.String(); err != nil || !strings.Contains(got, want) {
				t.Errorf("from %s to %s:%d with the password: %q (%v), want the client %s", h.Name, gw, port, got, err, want)
			}
			if got, err := clientIn(h, kind, gw, port, s.User(), "wrong", q); err == nil {
				t.Errorf("from %s with a wrong password: connected (%q)", h.Name, got)
			}
			if got, err := clientIn(other, kind, other.Gateway.Addr().String(), port, s.User(), s.Password(), q); err == nil {
				t.Errorf("from %s to its own gateway, not listened on: connected (%q)", other.Name, got)
			}
			checkNoPassword(t, s, s.Password())
		})
	}
}

// Options.Listen is refused without a TCP port, with a network that is not IPv4, and with an
// address that is not this host's.
func TestListenBadOptions(t *testing.T) {
	t.Parallel()
	servertest.Require(t, server.Postgres)
	port := strconv.Itoa(freePort(t))
	for _, c := range []struct {
		port   string
		listen string
		want   string
	}{
		{"", "198.18.0.1/30", "listen on [198.18.0.1/30]: give the setting port"},
		{port, "fd00::1/64", "listen on fd00::1/64: want an IPv4 address of this host with its prefix"},
		{port, "192.0.2.1/30", "on 192.0.2.1 is not usable"},
	} {
		t.Run(c.want, func(t *testing.T) {
			settings := map[string]string{}
			if c.port != "" {
				settings["port"] = c.port
			}
			_, err := server.Start(context.Background(), server.Postgres, server.Options{DataDir: servertest.DataDir(t),
				Settings: settings, Listen: []netip.Prefix{netip.MustParsePrefix(c.listen)}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Start: %v, want an error with %q", err, c.want)
			}
		})
	}
}
