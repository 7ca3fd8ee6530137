package server_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

var kinds = []server.Kind{server.Postgres, server.MariaDB}

// query runs a query that returns one value through the server's unix socket, as the
// engines connect: s.DSN() with the server's own driver.
func query(t *testing.T, s *server.Server, q string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if s.Kind() == server.Postgres {
		conn, err := pgconn.Connect(ctx, s.DSN())
		if err != nil {
			t.Fatalf("connect %s: %v", s.DSN(), err)
		}
		defer conn.Close(ctx)
		res, err := conn.Exec(ctx, q).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(res) == 0 || len(res[len(res)-1].Rows) == 0 {
			return ""
		}
		return string(res[len(res)-1].Rows[0][0])
	}
	db := openMaria(t, s)
	var v sql.NullString
	if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("%s: %v", q, err)
	}
	return v.String
}

func openMaria(t *testing.T, s *server.Server) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Passwd = s.Password()       // asked for on the socket too when the server listens on TCP
	cfg.Logger = &mysql.NopLogger{} // not "broken pipe" when a test kills the server
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// listeners returns the local addresses of the listening TCP sockets held by pids.
func listeners(t *testing.T, pids []int) []string {
	t.Helper()
	inodes := make(map[string]bool)
	for _, pid := range pids {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err == nil && strings.HasPrefix(target, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
			}
		}
	}
	var out []string
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] {
				continue
			}
			out = append(out, decodeAddr(t, fields[1]))
		}
		f.Close()
	}
	return out
}

// decodeAddr decodes /proc/net/tcp's "0100007F:1538" (little-endian words) to "127.0.0.1:5432".
func decodeAddr(t *testing.T, s string) string {
	hexIP, hexPort, _ := strings.Cut(s, ":")
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		t.Fatalf("bad address %q", s)
	}
	ip := make(net.IP, len(hexIP)/2)
	for w := 0; w < len(ip)/4; w++ {
		word, err := strconv.ParseUint(hexIP[w*8:w*8+8], 16, 32)
		if err != nil {
			t.Fatalf("bad address %q", s)
		}
		for b := 0; b < 4; b++ {
			ip[w*4+b] = byte(word >> (8 * b))
		}
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func processes(t *testing.T, s *server.Server) []int {
	t.Helper()
	pids, err := s.Processes()
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// checkGone checks that after Stop no process of pids is left, the socket directory is gone,
// Exited is closed and a second Stop succeeds.
func checkGone(t *testing.T, s *server.Server, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if servertest.Alive(pid) {
			t.Errorf("process %d of the %s server is still alive after Stop", pid, s.Kind())
		}
	}
	if left := processes(t, s); len(left) > 0 {
		t.Errorf("Processes after Stop = %v, want none", left)
	}
	if _, err := os.Stat(s.SocketDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket directory %s after Stop: %v, want it removed", s.SocketDir(), err)
	}
	select {
	case <-s.Exited():
	default:
		t.Error("Exited is not closed after Stop")
	}
	if s.Alive() == nil {
		t.Error("Alive is nil after Stop")
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStartStop(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			s := servertest.Start(t, kind, nil)
			if got := query(t, s, "SELECT current_user"); !strings.HasPrefix(got, s.User()) {
				t.Errorf("current user %q, want %q", got, s.User())
			}
			if got := query(t, s, map[server.Kind]string{
				server.Postgres: "SELECT current_database()", server.MariaDB: "SELECT DATABASE()"}[kind]); got != "enginebench" {
				t.Errorf("database %q, want enginebench", got)
			}
			if s.Version() == "" || !strings.Contains(query(t, s, "SELECT version()"), s.Version()) {
				t.Errorf("Version %q is not in the server's version()", s.Version())
			}
			if s.Alive() != nil {
				t.Errorf("Alive: %v", s.Alive())
			}

			fi, err := os.Stat(s.SocketDir())
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("socket directory %s: %v, mode %v, want 0700", s.SocketDir(), err, fi.Mode().Perm())
			}
			if fi, err := os.Stat(s.SocketPath()); err != nil || fi.Mode()&os.ModeSocket == 0 {
				t.Errorf("socket %s: %v", s.SocketPath(), err)
			}
			if filepath.Dir(s.SocketPath()) != s.SocketDir() {
				t.Errorf("socket %s is not in %s", s.SocketPath(), s.SocketDir())
			}
			if os.Geteuid() == 0 {
				st := fi.Sys().(*syscall.Stat_t)
				if st.Uid == 0 {
					t.Errorf("running as root, the socket directory belongs to root, not to the server user")
				}
				if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.PID())); err == nil &&
					strings.Contains(string(status), "\nUid:\t0\t") {
					t.Errorf("the server runs as root")
				}
			}

			pids := processes(t, s)
			if len(pids) == 0 || !contains(pids, s.PID()) {
				t.Fatalf("Processes = %v, want it to hold the main pid %d", pids, s.PID())
			}
			if l := listeners(t, pids); len(l) > 0 {
				t.Errorf("no port was asked for, but the server listens on TCP %v", l)
			}
			if !strings.Contains(s.LogTail(50), "ready") {
				t.Errorf("the log does not say the server is ready:\n%s", s.LogTail(50))
			}

			if err := s.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			checkGone(t, s, pids)
			if _, err := os.Stat(filepath.Join(s.DataDir(), server.LogFile)); err != nil {
				t.Errorf("the data directory and its log stay after Stop: %v", err)
			}
		})
	}
}

func contains(pids []int, pid int) bool {
	for _, p := range pids {
		if p == pid {
			return true
		}
	}
	return false
}

func TestPort(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			port := freePort(t)
			s := servertest.Start(t, kind, map[string]string{"port": strconv.Itoa(port)})
			if s.Port() != port {
				t.Errorf("Port = %d, want %d", s.Port(), port)
			}
			want := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			l := listeners(t, processes(t, s))
			if len(l) == 0 {
				t.Fatalf("the server does not listen on TCP, want %s", want)
			}
			for _, a := range l {
				if a != want {
					t.Errorf("the server listens on %s, want only %s", a, want)
				}
			}
			if kind == server.Postgres && filepath.Base(s.SocketPath()) != ".s.PGSQL."+strconv.Itoa(port) {
				t.Errorf("socket %s does not carry the port %d", s.SocketPath(), port)
			}
			c, err := net.DialTimeout("tcp", want, 10*time.Second)
			if err != nil {
				t.Fatalf("dial %s: %v", want, err)
			}
			c.Close()

			// A second server on the same port is refused before anything starts.
			dir := servertest.DataDir(t)
			_, err = server.Start(context.Background(), kind, server.Options{DataDir: dir, Settings: map[string]string{"port": strconv.Itoa(port)}})
			if err == nil || !strings.Contains(err.Error(), "already in use") {
				t.Fatalf("Start on a used port: %v, want an error that says it is in use", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("Start on a used port initialised %s", dir)
			}
		})
	}
}

func TestPortInUse(t *testing.T) {
	servertest.Require(t, server.Postgres)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = server.Start(context.Background(), server.Postgres, server.Options{
		DataDir: servertest.DataDir(t), Settings: map[string]string{"port": strconv.Itoa(port)}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("TCP port %d on 127.0.0.1 is already in use", port)) {
		t.Fatalf("Start on a used port: %v", err)
	}
}

func TestBadSettingValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind     server.Kind
		settings map[string]string
		want     string // in Start's error: the server's own message
	}{
		{server.Postgres, map[string]string{"shared_buffers": "lots"}, `invalid value for parameter "shared_buffers": "lots"`},
		{server.Postgres, map[string]string{"max_connections": "100000000"}, `outside the valid range for parameter "max_connections"`},
		{server.MariaDB, map[string]string{"binlog_format": "sideways"}, `Error while setting value 'sideways' to 'binlog_format'`},
		{server.MariaDB, map[string]string{"innodb_buffer_pool_size": "lots"}, `Error while setting value 'lots' to 'innodb-buffer-pool-size'`},
		// mariadbd starts without a plugin it cannot load; Start does not.
		{server.MariaDB, map[string]string{"plugin_load_add": "ha_no_such_engine"}, `Couldn't load plugins from 'ha_no_such_engine.so'`},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			servertest.Require(t, c.kind)
			dir := servertest.DataDir(t)
			s, err := server.Start(context.Background(), c.kind, server.Options{DataDir: dir, Settings: c.settings})
			if err == nil {
				s.Stop()
				t.Fatalf("Start with %v succeeded", c.settings)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Start with %v: %v\nwant the server's message %q", c.settings, err, c.want)
			}
			t.Logf("Start with %v: %v", c.settings, err)
			if left := serverProcessesIn(t, dir); len(left) > 0 {
				t.Errorf("processes %v left running in %s", left, dir)
			}
		})
	}
}

// serverProcessesIn returns the processes whose working directory is dir.
func serverProcessesIn(t *testing.T, dir string) []int {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(dir)
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !servertest.Alive(pid) {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && cwd == dir {
			out = append(out, pid)
		}
	}
	return out
}

func TestCheckSettings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind     server.Kind
		settings map[string]string
		want     string // "" = valid
	}{
		{server.Postgres, nil, ""},
		{server.Postgres, map[string]string{"shared_buffers": "1GB", "synchronous_commit": "off", "wal_compression": "on",
			"checkpoint_completion_target": "0.9", "Max_Wal_Size": "16GB", "pg_stat_statements.max": "100", "port": "5499"}, ""},
		{server.Postgres, map[string]string{"shared_bufers": "1GB"}, `postgres: unknown server setting "shared_bufers"`},
		{server.Postgres, map[string]string{"shared_buffers": "lots"}, `invalid value for parameter "shared_buffers": "lots"`},
		{server.Postgres, map[string]string{"wal_level": "everything"}, `invalid value for parameter "wal_level": "everything"`},
		{server.Postgres, map[string]string{"listen_addresses": "*"}, `"listen_addresses" is managed by enginebench`},
		{server.Postgres, map[string]string{"port": "http"}, `setting port: "http" is not a TCP port`},
		{server.Postgres, map[string]string{"work_mem": "1MB\nlisten_addresses = '*'"}, "must be one line"},
		{server.MariaDB, nil, ""},
		{server.MariaDB, map[string]string{"innodb_buffer_pool_size": "1G", "innodb-flush-log-at-trx-commit": "2",
			"skip-name-resolve": "", "innodb_doublewrite": "OFF", "loose_no_such_thing": "1", "skip_log_bin": "", "port": "0"}, ""},
		{server.MariaDB, map[string]string{"innodb_buffer_pol_size": "1G"}, `mariadb: unknown server setting "innodb_buffer_pol_size"`},
		{server.MariaDB, map[string]string{"innodb_buffer_pool": "1G"}, `unknown server setting "innodb_buffer_pool"`},
		{server.MariaDB, map[string]string{"innodb_buffer_pool_size": "lots"}, `Error while setting value 'lots' to 'innodb-buffer-pool-size'`},
		{server.MariaDB, map[string]string{"skip_name_resolve": "maybe"}, `boolean value 'maybe' wasn't recognized`},
		{server.MariaDB, map[string]string{"bind_address": "0.0.0.0"}, `"bind_address" is managed by enginebench`},
		{server.MariaDB, map[string]string{"rocksdb_block_cache_size": "1G"}, `unknown server setting "rocksdb_block_cache_size"`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.kind, i), func(t *testing.T) {
			servertest.Require(t, c.kind)
			err := server.CheckSettings(c.kind, "", c.settings)
			enginetest.CheckErr(t, fmt.Sprintf("CheckSettings(%v)", c.settings), err, c.want)
		})
	}
}

func TestCheckSettingsRocksDB(t *testing.T) {
	servertest.RequirePlugin(t, "ha_rocksdb")
	ok := map[string]string{"plugin_load_add": "ha_rocksdb", "rocksdb_block_cache_size": "1G", "default_storage_engine": "rocksdb"}
	if err := server.CheckSettings(server.MariaDB, "", ok); err != nil {
		t.Errorf("CheckSettings(%v): %v", ok, err)
	}
	bad := map[string]string{"plugin_load_add": "ha_rocksdb", "rocksdb_block_cache_sise": "1G"}
	if err := server.CheckSettings(server.MariaDB, "", bad); err == nil || !strings.Contains(err.Error(), `"rocksdb_block_cache_sise"`) {
		t.Errorf("CheckSettings(%v) = %v, want an unknown setting", bad, err)
	}
}

func TestAvailable(t *testing.T) {
	if err := server.Available("oracle"); err == nil {
		t.Error("Available(oracle) = nil")
	}
	for _, kind := range kinds {
		err := server.Available(kind)
		if err != nil && !strings.Contains(err.Error(), "apt-get install") {
			t.Errorf("Available(%s) = %v, want the install command", kind, err)
		}
	}
	if err := server.AvailablePlugin("ha_no_such_engine"); err == nil || !strings.Contains(err.Error(), "apt-get install") {
		t.Errorf("AvailablePlugin(ha_no_such_engine) = %v, want an error with the install command", err)
	}
}

// A server killed from outside: Exited closes, Alive says so, Stop returns without hanging
// and leaves no process of the tree.
func TestKilledFromOutside(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			s := servertest.Start(t, kind, nil)
			// Hold a session so that postgres has a backend process.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if kind == server.Postgres {
				conn, err := pgconn.Connect(ctx, s.DSN())
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
			} else {
				db := openMaria(t, s)
				if err := db.PingContext(ctx); err != nil {
					t.Fatal(err)
				}
			}
			pids := processes(t, s)
			if kind == server.Postgres && len(pids) < 3 {
				t.Fatalf("Processes = %v, want the postmaster and its children", pids)
			}
			if err := syscall.Kill(s.PID(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.Exited():
			case <-time.After(time.Minute):
				t.Fatal("Exited not closed a minute after SIGKILL")
			}
			if err := s.Alive(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Errorf("Alive after SIGKILL = %v, want an error that says it was killed", err)
			}
			done := make(chan error, 1)
			go func() { done <- s.Stop() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Stop: %v", err)
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("Stop hangs after the server was killed")
			}
			checkGone(t, s, pids)
		})
	}
}

func TestUnreachableDataDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only when running as root: the server then runs as another user")
	}
	servertest.Require(t, server.Postgres)
	parent := t.TempDir() // mode 0700, owned by root
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := server.Start(context.Background(), server.Postgres, server.Options{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the data directory") || !strings.Contains(err.Error(), parent) {
		t.Fatalf("Start in an unreachable directory: %v", err)
	}
}

func TestMyRocks(t *testing.T) {
	t.Parallel()
	servertest.RequirePlugin(t, "ha_rocksdb")
	s := servertest.Start(t, server.MariaDB, map[string]string{"plugin_load_add": "ha_rocksdb"})
	db := openMaria(t, s)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(20)) ENGINE=ROCKSDB",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var engine string
	if err := db.QueryRowContext(ctx, "SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 't'").Scan(&engine); err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(engine, "ROCKSDB") {
		t.Errorf("table engine %q, want ROCKSDB", engine)
	}
	if got := query(t, s, "SELECT COUNT(*) FROM t"); got != "2" {
		t.Errorf("count %s, want 2", got)
	}
}

// TestMariaDBTempFilesPrivate: a managed MariaDB keeps its temporary files in its private
// socket directory. A starting mariadbd deletes the #sql* temporary tables of its tmpdir; in
// the shared temporary directory those were another server's, whose bootstrap then failed
// ("Error on delete of '/tmp/#sql-temptable-...MAI'", seen with servers starting together).
func TestMariaDBTempFilesPrivate(t *testing.T) {
	t.Parallel()
	s := servertest.Start(t, server.MariaDB, nil)
	if got, want := query(t, s, "SELECT @@tmpdir"), filepath.Dir(s.SocketPath()); got != want {
		t.Errorf("tmpdir %s, want the server's socket directory %s", got, want)
	}
}

func TestStartRefuses(t *testing.T) {
	servertest.Require(t, server.Postgres)
	nonEmpty := servertest.DataDir(t)
	if err := os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		o    server.Options
		want string
	}{
		{"non-empty data directory", context.Background(), server.Options{DataDir: nonEmpty}, "is not empty"},
		{"no data directory", context.Background(), server.Options{}, "no data directory"},
		{"managed setting", context.Background(), server.Options{DataDir: servertest.DataDir(t),
			Settings: map[string]string{"unix_socket_directories": "/tmp"}}, "managed by enginebench"},
		{"cancelled", cancelled, server.Options{DataDir: servertest.DataDir(t)}, "initdb failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := server.Start(c.ctx, server.Postgres, c.o)
			if err == nil {
				s.Stop()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Start: %v, want an error with %q", err, c.want)
			}
			if c.o.DataDir != "" {
				if left := serverProcessesIn(t, c.o.DataDir); len(left) > 0 {
					t.Errorf("processes %v left running in %s", left, c.o.DataDir)
				}
			}
		})
	}
	if _, err := server.Start(context.Background(), "oracle", server.Options{DataDir: servertest.DataDir(t)}); err == nil {
		t.Error("Start of an unknown kind succeeded")
	}
}

// The binary log of the published configurations: a relative log_bin goes into the data
// directory, and a setting that only takes effect when the server is initialised
// (innodb_undo_tablespaces) is in force, since the bootstrap reads the same option file.
func TestMariaDBBinlogAndCreationSettings(t *testing.T) {
	t.Parallel()
	s := servertest.Start(t, server.MariaDB, map[string]string{
		"log_bin": "binlog", "server_id": "77", "binlog_format": "ROW", "innodb_undo_tablespaces": "3"})
	if got := query(t, s, "SELECT @@log_bin"); got != "1" {
		t.Errorf("@@log_bin = %s, want 1", got)
	}
	if got := query(t, s, "SELECT @@log_bin_basename"); got != filepath.Join(s.DataDir(), "binlog") {
		t.Errorf("@@log_bin_basename = %s, want %s", got, filepath.Join(s.DataDir(), "binlog"))
	}
	if _, err := os.Stat(filepath.Join(s.DataDir(), "binlog.000001")); err != nil {
		t.Errorf("binary log file: %v", err)
	}
	if got := query(t, s, "SELECT @@innodb_undo_tablespaces"); got != "3" {
		t.Errorf("@@innodb_undo_tablespaces = %s, want 3", got)
	}
	for _, f := range []string{"undo001", "undo002", "undo003"} {
		if _, err := os.Stat(filepath.Join(s.DataDir(), f)); err != nil {
			t.Errorf("undo tablespace: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.DataDir(), "undo004")); err == nil {
		t.Error("undo004 exists with innodb_undo_tablespaces=3")
	}
}
