package server_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/testfs"
	"github.com/enginebench/enginebench/internal/testwait"
)

// Faults and hostile users: the password over TCP, a full disk, a frozen server, Abort, a
// killed enginebench.

// safetyBound bounds the waits of these tests on real servers; it is never what a test
// asserts on.
const safetyBound = 3 * time.Minute

// startWith starts a server with o (on a fresh data directory unless o has one), stopped at the
// end of the test; o.Log also goes to the returned buffer.
func startWith(t *testing.T, kind server.Kind, o server.Options) (*server.Server, *servertest.Buffer) {
	t.Helper()
	servertest.Require(t, kind)
	if o.DataDir == "" {
		o.DataDir = servertest.DataDir(t)
	}
	log := &servertest.Buffer{}
	o.Log = io.MultiWriter(servertest.Logger(t), log)
	ctx, cancel := context.WithTimeout(context.Background(), safetyBound)
	defer cancel()
	s, err := server.Start(ctx, kind, o)
	if err != nil {
		t.Fatalf("start %s server: %v", kind, err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s, log
}

// waitFor waits until cond holds, or fails the test after safetyBound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, safetyBound, cond)
}

// stopBounded calls s.Stop and returns its error, or fails the test when it does not return
// within safetyBound.
func stopBounded(t *testing.T, s *server.Server) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Stop() }()
	select {
	case err := <-done:
		return err
	case <-time.After(safetyBound):
		t.Fatalf("Stop did not return within %s", safetyBound)
		return nil
	}
}

// tcpConnect connects to the server on 127.0.0.1:port as user with password and runs a
// query.
func tcpConnect(s *server.Server, port int, user, password string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if s.Kind() == server.Postgres {
		cfg, err := pgconn.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d dbname=%s sslmode=disable", port, s.Database()))
		if err != nil {
			return err
		}
		cfg.User, cfg.Password = user, password // not ~/.pgpass or PGPASSWORD
		conn, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "SELECT 1").ReadAll()
		return err
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg.User, cfg.Passwd = user, password
	cfg.Logger = &mysql.NopLogger{}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	return db.PingContext(ctx)
}

// authRefused reports whether err is the server refusing the credentials (not, say, a server
// that does not listen).
func authRefused(kind server.Kind, err error) bool {
	if kind == server.Postgres {
		var pe *pgconn.PgError
		// 28P01: wrong password; 28000: no pg_hba line lets it in.
		return errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000")
	}
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1045 || me.Number == 4151) // access denied; account locked
}

// With a TCP port, the server requires the password generated for it over TCP: PostgreSQL by
// scram-sha-256, every MariaDB root account, and no anonymous account; enginebench's own
// client gets in with it, on TCP and on the socket, and the password shows nowhere.
func TestTCPPassword(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			port := freePort(t)
			s := servertest.Start(t, kind, map[string]string{"port": strconv.Itoa(port)})
			for _, c := range []struct{ user, password string }{
				{s.User(), ""}, {s.User(), "wrong"}, {"", ""}, {"nobody", ""}, {"mariadb.sys", ""}, {"postgres", ""}, {"root", ""},
			} {
				err := tcpConnect(s, port, c.user, c.password)
				if err == nil {
					t.Errorf("over TCP as %q with password %q: connected, want refused", c.user, c.password)
				} else if !authRefused(kind, err) {
					t.Errorf("over TCP as %q with password %q: %v, want the credentials refused", c.user, c.password, err)
				}
			}
			pw := s.Password()
			if len(pw) < 32 {
				t.Fatalf("Password() has %d characters, want a generated password", len(pw))
			}
			if err := tcpConnect(s, port, s.User(), pw); err != nil {
				t.Errorf("over TCP with Password(): %v", err)
			}
			if got := query(t, s, "SELECT 1"); got != "1" { // the socket, as the engines connect
				t.Errorf("SELECT 1 on the socket = %q", got)
			}
			if kind == server.MariaDB {
				if open := query(t, s, "SELECT GROUP_CONCAT(CONCAT(User, '@', Host)) FROM mysql.global_priv "+
					"WHERE IFNULL(JSON_VALUE(Priv, '$.authentication_string'), '') = '' "+
					"AND IFNULL(JSON_EXTRACT(Priv, '$.account_locked'), 'false') <> 'true'"); open != "" {
					t.Errorf("accounts without a password: %s", open)
				}
			}
			checkNoPassword(t, s, pw)
		})
	}
}

// Without a TCP port there is no password (the socket is private).
func TestNoPasswordWithoutTCP(t *testing.T) {
	t.Parallel()
	s := servertest.Start(t, server.MariaDB, nil)
	if s.Password() != "" {
		t.Errorf("Password() = %d characters without TCP, want none", len(s.Password()))
	}
}

// checkNoPassword checks that the password shows nowhere: not on the command line nor in the
// environment of any process of the server's tree, not in its log, not in any file of its data
// and socket directories; and that the socket directory holds no file but the owner file and
// lock files.
func checkNoPassword(t *testing.T, s *server.Server, pw string) {
	t.Helper()
	pids := processes(t, s)
	if len(pids) == 0 {
		t.Fatal("no process in the server's tree")
	}
	for _, pid := range pids {
		for _, f := range []string{"cmdline", "environ"} {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f)); err == nil && bytes.Contains(b, []byte(pw)) {
				t.Errorf("/proc/%d/%s holds the password", pid, f)
			}
		}
	}
	if strings.Contains(s.LogTail(1<<20), pw) {
		t.Error("the server's log holds the password")
	}
	for _, dir := range []string{s.DataDir(), s.SocketDir()} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil // files come and go while the server runs
			}
			if dir == s.SocketDir() && d.Name() != server.OwnerFile && !strings.HasSuffix(d.Name(), ".lock") {
				t.Errorf("socket directory holds %s", d.Name())
			}
			if holds, err := fileHolds(p, pw); err == nil && holds {
				t.Errorf("%s holds the password", p)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
}

// fileHolds reports whether the file at path contains s (read in pieces).
func fileHolds(path, s string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	carry := 0
	for {
		n, err := f.Read(buf[carry:])
		if bytes.Contains(buf[:carry+n], []byte(s)) {
			return true, nil
		}
		if err != nil {
			return false, nil
		}
		keep := min(len(s), carry+n)
		copy(buf, buf[carry+n-keep:carry+n])
		carry = keep
	}
}

// An initialisation on a full disk fails with an error that says so and shows the end of the
// tool's output, instead of waiting forever: MariaDB's bootstrap waits for free space without
// end ("Disk is full writing ... Waiting for someone to free space").
func TestInitDiskFull(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind     server.Kind
		settings map[string]string
		want     []string // in Start's error
	}{
		// A small redo log, so that the bootstrap gets as far as writing its tables.
		{server.MariaDB, map[string]string{"innodb_log_file_size": "4M"}, []string{"the disk is full", "Disk is full writing"}},
		{server.Postgres, nil, []string{"initdb failed", "No space left on device"}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			servertest.Require(t, c.kind)
			dir := servertest.DataDir(t)
			testfs.Mount(t, dir, "30m")
			ctx, cancel := context.WithTimeout(context.Background(), safetyBound)
			defer cancel()
			s, err := server.Start(ctx, c.kind, server.Options{DataDir: dir, Settings: c.settings, Log: servertest.Logger(t)})
			if err == nil {
				_ = s.Stop()
				t.Fatal("Start on a full disk succeeded")
			}
			t.Logf("Start: %v", err)
			if ctx.Err() != nil {
				t.Fatalf("Start ran until the test's safety bound: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Start's error lacks %q", w)
				}
			}
			if left := serverProcessesIn(t, dir); len(left) > 0 {
				t.Errorf("processes %v left running in %s", left, dir)
			}
		})
	}
}

// pgDelayLogins makes every new session of a running PostgreSQL sleep 60 s before it
// authenticates (pre_auth_delay), deaf to the fast shutdown's SIGTERM, and opens one such
// session: a clean shutdown cannot end for a minute.
func pgDelayLogins(t *testing.T, s *server.Server) {
	t.Helper()
	query(t, s, "ALTER SYSTEM SET pre_auth_delay = '60s'")
	query(t, s, "SELECT pg_reload_conf()")
	waitFor(t, "the reload of pre_auth_delay", func() bool {
		return strings.Contains(s.LogTail(1000), `parameter "pre_auth_delay" changed to "60s"`)
	})
	before := map[int]bool{}
	for _, pid := range processes(t, s) {
		before[pid] = true
	}
	c, err := net.Dial("unix", s.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// The delayed backend is a new child that has not set its process title yet: its command
	// line is still the postmaster's. Counting processes was not enough: an autovacuum worker
	// may end meanwhile.
	waitFor(t, "the delayed session's process", func() bool {
		for _, pid := range processes(t, s) {
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if !before[pid] && err == nil && len(cmdline) > 0 && !strings.HasPrefix(string(cmdline), "postgres: ") {
				return true
			}
		}
		return false
	})
}

// A closed Abort kills a server whose clean shutdown is in progress at once.
func TestAbortWhileStopping(t *testing.T) {
	t.Parallel()
	abort := make(chan struct{})
	s, log := startWith(t, server.Postgres, server.Options{Keep: true, Abort: abort})
	pgDelayLogins(t, s)
	pids := processes(t, s)
	stopped := make(chan error, 1)
	go func() { stopped <- s.Stop() }()
	waitFor(t, "the fast shutdown", func() bool { return strings.Contains(s.LogTail(1000), "received fast shutdown request") })
	select {
	case <-s.Exited():
		t.Fatal("the server exited before the delayed session ended") // the test's premise
	default:
	}
	close(abort)
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(safetyBound):
		t.Fatal("Stop did not return after Abort")
	}
	checkGone(t, s, pids)
	if !strings.Contains(log.String(), "signal: killed") {
		t.Errorf("the server was not killed; its log line: %s", log.String())
	}
}

// A closed Abort makes Stop kill the server, where it would shut it down cleanly.
func TestAbortBeforeStop(t *testing.T) {
	t.Parallel()
	for _, aborted := range []bool{false, true} {
		t.Run(fmt.Sprintf("aborted=%v", aborted), func(t *testing.T) {
			abort := make(chan struct{})
			s, log := startWith(t, server.MariaDB, server.Options{Keep: true, Abort: abort})
			pids := processes(t, s)
			if aborted {
				close(abort)
			}
			if err := stopBounded(t, s); err != nil {
				t.Errorf("Stop: %v", err)
			}
			checkGone(t, s, pids)
			want := map[bool]string{false: "(exit status 0)", true: "(signal: killed, killed at once on request)"}[aborted]
			if !strings.Contains(log.String(), want) {
				t.Errorf("the server's end: %s, want %s", log.String(), want)
			}
		})
	}
}

// A closed Abort stops a Start in progress, in its initialisation or while it waits for a
// PostgreSQL that cannot accept a session; Start fails and leaves nothing running.
func TestAbortStart(t *testing.T) {
	t.Parallel()
	servertest.Require(t, server.Postgres)
	phases := []struct {
		name  string
		begun func(dir string) bool // the phase to abort has begun
	}{
		{"init", func(dir string) bool { return len(serverProcessesIn(t, dir)) > 0 }},
		{"readiness", func(dir string) bool {
			b, _ := os.ReadFile(filepath.Join(dir, server.LogFile))
			return bytes.Contains(b, []byte("database system is ready to accept connections"))
		}},
	}
	for _, p := range phases {
		t.Run(p.name, func(t *testing.T) {
			dir := servertest.DataDir(t)
			abort := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				// No session gets in for a minute: the readiness probe cannot succeed.
				s, err := server.Start(context.Background(), server.Postgres, server.Options{DataDir: dir, Abort: abort,
					Settings: map[string]string{"pre_auth_delay": "60s"}})
				if err == nil {
					_ = s.Stop()
					err = errors.New("Start succeeded")
				}
				done <- err
			}()
			waitFor(t, "the "+p.name+" phase", func() bool { return p.begun(dir) })
			close(abort)
			select {
			case err := <-done:
				if !strings.Contains(err.Error(), "aborted") {
					t.Errorf("Start: %v, want it aborted", err)
				}
				t.Logf("Start: %v", err)
			case <-time.After(safetyBound):
				t.Fatal("Start did not return after Abort")
			}
			if left := serverProcessesIn(t, dir); len(left) > 0 {
				t.Errorf("processes %v left running in %s", left, dir)
			}
		})
	}
	closed := make(chan struct{})
	close(closed)
	if _, err := server.Start(context.Background(), server.Postgres, server.Options{DataDir: servertest.DataDir(t), Abort: closed}); err == nil || !strings.Contains(err.Error(), "aborted") {
		t.Errorf("Start with Abort closed: %v, want it aborted", err)
	}
}

// Without Keep, Stop does not wait for a clean shutdown: PostgreSQL's immediate shutdown ends a
// server whose fast shutdown would wait a minute, and MariaDB is killed.
func TestQuickStop(t *testing.T) {
	t.Parallel()
	t.Run("postgres", func(t *testing.T) {
		s, log := startWith(t, server.Postgres, server.Options{})
		pgDelayLogins(t, s)
		pids := processes(t, s)
		if err := stopBounded(t, s); err != nil {
			t.Errorf("Stop: %v", err)
		}
		checkGone(t, s, pids)
		tail := s.LogTail(100)
		if !strings.Contains(tail, "received immediate shutdown request") || strings.Contains(tail, "fast shutdown") {
			t.Errorf("not an immediate shutdown; the log ends:\n%s", tail)
		}
		if !strings.Contains(log.String(), "server stopped") {
			t.Errorf("no line says the server stopped: %s", log.String())
		}
	})
	t.Run("mariadb", func(t *testing.T) {
		s, log := startWith(t, server.MariaDB, server.Options{})
		if err := stopBounded(t, s); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if !strings.Contains(log.String(), "(signal: killed)") {
			t.Errorf("the server's end: %s, want killed", log.String())
		}
	})
}

// A server stopped by SIGSTOP (every process of its tree) is still stopped by Stop: continued
// and shut down cleanly with Keep, or ended quickly without.
func TestStopFrozen(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		for _, keep := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/keep=%v", kind, keep), func(t *testing.T) {
				s, log := startWith(t, kind, server.Options{Keep: keep})
				pids := processes(t, s)
				// A short-lived child (PostgreSQL's autovacuum or a parallel worker) may end
				// before its SIGSTOP, and then stays a zombie, its frozen parent not reaping it.
				for _, pid := range pids {
					if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil && !errors.Is(err, syscall.ESRCH) {
						t.Fatal(err)
					}
				}
				waitFor(t, "the processes to stop", func() bool {
					for _, pid := range pids {
						if st := servertest.ProcState(pid); st != "T" && st != "" && st != "Z" {
							return false
						}
					}
					return true
				})
				if err := stopBounded(t, s); err != nil {
					t.Errorf("Stop: %v", err)
				}
				checkGone(t, s, pids)
				if keep && !strings.Contains(log.String(), "(exit status 0)") {
					t.Errorf("with Keep, the frozen server was not shut down cleanly: %s", log.String())
				}
			})
		}
	}
}

// The parent-death signal belongs to the thread that started the server: a thread of
// enginebench that ends (a goroutine locked to it returns) must not take the server with it.
func TestThreadExitKeepsServer(t *testing.T) {
	t.Parallel()
	servertest.Require(t, server.Postgres)
	dir := servertest.DataDir(t)
	type started struct {
		s   *server.Server
		tid int
		err error
	}
	var r started
	for range 10 { // the main thread never exits: try again when the goroutine landed on it
		ch := make(chan started, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
			tid := syscall.Gettid()
			if tid == os.Getpid() {
				ch <- started{tid: tid}
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), safetyBound)
			defer cancel()
			s, err := server.Start(ctx, server.Postgres, server.Options{DataDir: dir, Log: servertest.Logger(t)})
			ch <- started{s, tid, err}
		}()
		if r = <-ch; r.tid != os.Getpid() {
			break
		}
	}
	if r.err != nil || r.s == nil {
		t.Fatalf("Start: %v", r.err)
	}
	s := r.s
	t.Cleanup(func() { _ = s.Stop() })
	waitFor(t, "the goroutine's thread to exit", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", r.tid))
		return errors.Is(err, os.ErrNotExist)
	})
	// The thread is gone, so a parent-death signal tied to it has been sent: the server must
	// still answer.
	if got := query(t, s, "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
	if err := s.Alive(); err != nil {
		t.Errorf("the server died with the thread that started it: %v", err)
	}
}

// childEnv makes the test binary a child that starts a server (see TestKilledEnginebench).
const childEnv = "ENGINEBENCH_TEST_SERVER_CHILD"

// A SIGKILLed enginebench leaves no server running: the child process (this test binary) that
// started it is killed, and every process of the server goes. The socket directory stays, with
// the owner file that names the dead process.
func TestKilledEnginebench(t *testing.T) {
	if spec := os.Getenv(childEnv); spec != "" {
		serverChild(spec)
		return
	}
	t.Parallel()
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			servertest.Require(t, kind)
			dir := servertest.DataDir(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledEnginebench$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+string(kind)+":"+dir)
			stdin, err := cmd.StdinPipe() // the child ends when its stdin does
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			var sockDir string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if _, err := fmt.Sscanf(sc.Text(), "server %d %s", &pid, &sockDir); err == nil {
					break
				}
			}
			if pid == 0 {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatal("the child did not start a server")
			}
			t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
			t.Cleanup(func() { // whatever the outcome, no server stays behind
				for _, p := range serverProcessesIn(t, dir) {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			})
			if !servertest.Alive(pid) || len(serverProcessesIn(t, dir)) == 0 {
				t.Fatalf("the child's server (pid %d) does not run", pid)
			}
			owner, err := os.ReadFile(filepath.Join(sockDir, server.OwnerFile))
			if err != nil || !strings.Contains(string(owner), fmt.Sprintf("pid=%d\n", cmd.Process.Pid)) ||
				!strings.Contains(string(owner), "datadir="+dir+"\n") {
				t.Errorf("owner file: %q (%v), want the child's pid %d and %s", owner, err, cmd.Process.Pid, dir)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			waitFor(t, "the server's processes to go", func() bool { return len(serverProcessesIn(t, dir)) == 0 })
		})
	}
}

// serverChild is the child of TestKilledEnginebench: it starts a server of "kind:datadir",
// prints "server PID SOCKETDIR", and waits until its standard input ends.
func serverChild(spec string) {
	kind, dir, _ := strings.Cut(spec, ":")
	ctx, cancel := context.WithTimeout(context.Background(), safetyBound)
	defer cancel()
	s, err := server.Start(ctx, server.Kind(kind), server.Options{DataDir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Printf("server %d %s\n", s.PID(), s.SocketDir())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = s.Stop()
	os.Exit(0)
}
