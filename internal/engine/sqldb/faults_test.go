package sqldb

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// managedServer returns the managed server of an open server engine.
func managedServer(t *testing.T, e engine.Engine) *server.Server {
	t.Helper()
	switch db := e.(type) {
	case *postgresDB:
		return db.srv
	case *mysqlDB:
		return db.srv
	}
	t.Fatalf("%T is not a server engine", e)
	return nil
}

// A managed server with a TCP port has a password; the engine uses it (MariaDB asks for it on
// the socket too) and it shows nowhere: not in Settings, not in the cleanup's notes, not in the
// lines the engine logs, not in an error.
func TestManagedTCPPassword(t *testing.T) {
	t.Parallel()
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := l.Addr().(*net.TCPAddr).Port
			l.Close()
			settings := maps.Clone(c.small)
			settings["port"] = strconv.Itoa(port)
			log := &servertest.Buffer{}
			reg, err := engine.NewRegistry(c.driver)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			eng, err := reg.Open(ctx, engine.Config{Name: c.driver.Name, Engine: c.driver.Name, Settings: settings,
				DataDir: servertest.DataDir(t), Log: io.MultiWriter(servertest.Logger(t), log)})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			t.Cleanup(func() { eng.Close() })
			pw := managedServer(t, eng).Password()
			if pw == "" {
				t.Fatal("the managed server has no password although it listens on TCP")
			}
			e := &serverEngine{DB: eng.(DB)}
			e.createBench(t, 300)
			var notes []string
			if err := e.cleaner().Cleanup(ctx, engine.CleanupHooks{Note: func(n string) { notes = append(notes, n) }}); err != nil {
				t.Fatalf("Cleanup: %v", err)
			}
			_, qerr := e.SQL().ExecContext(ctx, "SELECT * FROM no_such_table")
			if qerr == nil {
				t.Error("a query on a missing table succeeded")
			}
			if err := eng.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			for what, text := range map[string]string{
				"Settings": fmt.Sprint(eng.Settings()), "Version": eng.Version(), "cleanup notes": strings.Join(notes, "\n"),
				"log": log.String(), "error": fmt.Sprint(qerr),
			} {
				if strings.Contains(text, pw) {
					t.Errorf("%s shows the password: %s", what, text)
				}
			}
		})
	}
}

// The configuration check (the registry's Check, before any work) refuses a port that is in
// use or privileged.
func TestCheckPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	used := l.Addr().(*net.TCPAddr).Port
	for _, c := range serverCases()[:2] { // postgres, innodb
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			reg, err := engine.NewRegistry(c.driver)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				port, want string // want "": accepted
			}{
				{strconv.Itoa(used), fmt.Sprintf("TCP port %d on 127.0.0.1 is already in use", used)},
				{"80", "port 80 is privileged"},
				{"1023", "port 1023 is privileged"},
				{"0", ""},
			} {
				err := reg.Check(engine.Config{Name: c.driver.Name, Engine: c.driver.Name, Settings: map[string]string{"port": tc.port}})
				enginetest.CheckErr(t, "port "+tc.port, err, tc.want)
			}
		})
	}
}

// The configuration check refuses a malformed DSN (parsed by the driver's own parser, without
// connecting), with a message that does not show it or its password.
func TestCheckDSN(t *testing.T) {
	const pw = "S3cret-pw-77"
	cases := []struct {
		driver engine.Driver
		dsn    string
		want   string // "": accepted
	}{
		{InnoDBDriver(), "x:y@@@", "the DSN is not a valid go-sql-driver/mysql DSN"},
		{MyRocksDriver(), "bench:" + pw + "@tcp(127.0.0.1:3306/db", "the DSN is not a valid go-sql-driver/mysql DSN"},
		{InnoDBDriver(), "bench:" + pw + "@tcp(127.0.0.1:3306)/db?timeout=" + pw, "the DSN is not a valid go-sql-driver/mysql DSN"},
		{InnoDBDriver(), "bench:" + pw + "@tcp(127.0.0.1:3306)/", "the DSN names no database"},
		{InnoDBDriver(), "bench:" + pw + "@tcp(127.0.0.1:1)/db", ""},
		{PostgresDriver(), "host=/nonexistent port=abc", "the DSN is not a valid connection string or URL"},
		{PostgresDriver(), "host=/tmp password='" + pw, "the DSN is not a valid connection string or URL"},
		{PostgresDriver(), "postgres://bench:" + pw + "@127.0.0.1:badport/db", "the DSN is not a valid connection string or URL"},
		{PostgresDriver(), "x:y@@@", "the DSN is not a valid connection string or URL"},
		{PostgresDriver(), "postgres://bench:" + pw + "@127.0.0.1:1/db", ""},
	}
	for _, c := range cases {
		reg, err := engine.NewRegistry(c.driver)
		if err != nil {
			t.Fatal(err)
		}
		err = reg.Check(engine.Config{Name: c.driver.Name, Engine: c.driver.Name, DSN: c.dsn})
		enginetest.CheckErr(t, fmt.Sprintf("%s: Check(%q)", c.driver.Name, c.dsn), err, c.want)
		if err != nil && (strings.Contains(err.Error(), c.dsn) || strings.Contains(err.Error(), pw)) {
			t.Errorf("%s: Check's error shows the DSN or its password: %v", c.driver.Name, err)
		}
		if err != nil {
			t.Logf("%s: %v", c.driver.Name, err)
		}
	}
}
