// Package server starts and stops throwaway database servers (PostgreSQL, MariaDB) for
// benchmark runs: initialised into an empty data directory, listening on a private unix socket
// (and on 127.0.0.1 only when a port is asked for, or also on the addresses of Options.Listen
// for clients on other hosts), stopped and cleaned up at the end.
//
// The lifecycle is shared by both kinds: the server binaries run as an unprivileged user when
// enginebench runs as root (PostgreSQL refuses to run as root): the distribution's own user
// (postgres, mysql) or else nobody, which owns the data directory and the socket directory.
// Every server process is started in a process group of its own with a parent-death signal,
// so that a killed enginebench leaves no server behind.
//
// Layout of Options.DataDir: it is the server's own data directory (PGDATA for PostgreSQL,
// datadir for MariaDB), and it also holds server.log (the server's stderr, and the output of
// initdb / mariadb-install-db) and, for MariaDB, my.cnf. PostgreSQL's settings are appended to
// DataDir/postgresql.conf.
//
// Authentication: the socket directory is private (mode 0700, owned by the server user), so
// only root and the server user reach the socket, where no password is asked for: PostgreSQL
// trusts it (superuser "postgres"); MariaDB's root@localhost has an empty password
// (--auth-root-authentication-method=normal). When the server also listens on TCP (setting
// "port"), a password generated for the server (Password) is required over TCP: PostgreSQL's
// pg_hba asks for it with scram-sha-256 (from 127.0.0.1 and the networks of Options.Listen
// only), and every MariaDB root account has it (anonymous accounts are removed; a network of
// Options.Listen gets a root account of its own). The password is never written anywhere: the server is given its hash
// (see secret.go). With Options.TLS the TCP port takes TLS connections only, and with a client
// CA a client certificate too (tls.go).
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/enginebench/enginebench/internal/cgroup"
)

// Kind is a kind of managed server.
type Kind string

// The kinds of managed servers.
const (
	Postgres Kind = "postgres"
	MariaDB  Kind = "mariadb"
	FerretDB Kind = "ferretdb"
)

// Database is the database that Start creates and that engines use.
const Database = "enginebench"

// LogFile is the name of the server's log file in the data directory.
const LogFile = "server.log"

// Timeouts of the lifecycle (and initTimeout).
const (
	readyTimeout    = 5 * time.Minute  // Start: until the server accepts connections
	shutdownTimeout = 60 * time.Second // Stop with Keep: clean shutdown before SIGKILL
	quickTimeout    = 10 * time.Second // Stop without Keep: PostgreSQL's immediate shutdown before SIGKILL
	killTimeout     = 30 * time.Second // Stop: until no process of the tree is left
)

// Options describes a managed server to start.
type Options struct {
	// DataDir exists and is empty; the server's data files and its log go under it.
	DataDir string
	// Settings are server variables written to the configuration file (postgresql.conf lines
	// `name = 'value'`, my.cnf `[mariadbd]` lines `name=value`). The variable "port" is special:
	// absent or "0" = unix socket only (no TCP at all); N (1024..65535) = also listen on
	// 127.0.0.1:N (and the addresses of Listen, never another), where Password is required. A
	// port below 1024, or an already used port or socket, is a clear error.
	Settings map[string]string
	// Log receives one line when the server starts (version, socket, pid) and when it stops; nil discards.
	Log io.Writer
	// Keep says that the data directory is kept after Stop: Stop then shuts the server down
	// cleanly (bounded, then SIGKILL). Without it the data is thrown away, and Stop is quick:
	// PostgreSQL's immediate shutdown, MariaDB killed.
	Keep bool
	// Abort, when closed, kills the server's process tree at once (SIGKILL) instead of shutting
	// it down: in Stop, and in a Start in progress, which then fails. Nil: never.
	Abort <-chan struct{}
	// Cgroup, when set, is the memory-capped group the server's process tree is born in
	// (cgroup.Group.Start); the initialisation programs run outside it. Nil: no cap.
	Cgroup *cgroup.Group
	// Listen are further IPv4 networks of this host for clients on other hosts: each is an
	// address of this host with its network's prefix (the host side of a veth pair,
	// 198.18.0.1/30). A server with a TCP port (setting "port") listens on each address as well
	// as on 127.0.0.1, and lets in, with Password only, clients whose address is in the
	// network. Without a port it is an error. Empty: 127.0.0.1 only.
	Listen []netip.Prefix
	// BinDir, when set, names the installation the server comes from; "": the installed
	// server (Available). PostgreSQL: the directory of its binaries (an installation's bin/:
	// /opt/postgresql-17/bin). MariaDB: the installation's basedir (/usr, /opt/mysql-8.0),
	// whose bin/ or sbin/ holds mariadbd or mysqld; a MySQL or Percona Server mysqld there is
	// initialised and run as MySQL (mysql.go). FerretDB and mongod: not taken.
	BinDir string
	// TLS, when set, makes the TCP port (setting "port", which it needs) TLS-only with this
	// certificate, and with a client CA asks every TCP client for a certificate (tls.go).
	// FerretDB takes a port only with TLS and a client CA. Nil: plain TCP.
	TLS *TLS
}

// Server is a running managed server.
type Server struct {
	kind     Kind
	dataDir  string // absolute, symlinks resolved
	sockDir  string
	sockPath string
	port     int // Port()
	tcpPort  int // the TCP port asked for; 0: unix socket only
	user     string
	version  string
	logPath  string
	logStart int64  // offset of the log where the server process's output starts
	exe      string // the server binary, as /proc/<pid>/exe shows it
	uid      int    // the user the server runs as
	pid      int
	malloc   string // the allocator the server runs with under a cap, for the log
	log      io.Writer
	password string // "" without TCP; never printed, logged or written anywhere
	listen   []netip.Prefix
	tls      *tlsFiles // nil: no TLS
	keep     bool
	abort    <-chan struct{}
	cgroup   *cgroup.Group // nil: no cap
	flags    []setting     // FerretDB: its settings, as command-line flags
	build    map[string]string

	exited  chan struct{}
	waitErr error // set before exited is closed

	// known holds every PID ever seen in the server's tree, so that an exiting process (whose
	// executable and working directory links are already gone) is counted as the server's
	// only if it was seen as the server's before: never another server's process.
	knownMu sync.Mutex
	known   map[int]bool

	started  bool        // Start succeeded (set before Start returns)
	stopping atomic.Bool // Stop was called
	stopOnce sync.Once
	stopErr  error
}

// Kind is the kind of the server.
func (s *Server) Kind() Kind { return s.kind }

// PID of the server's main process (postmaster / mariadbd): the root of its process tree.
func (s *Server) PID() int { return s.pid }

// SocketDir is the directory that holds the unix socket.
func (s *Server) SocketDir() string { return s.sockDir }

// SocketPath is the unix socket file (for postgres: SocketDir()/.s.PGSQL.<Port()>).
func (s *Server) SocketPath() string { return s.sockPath }

// Port is the TCP port when one was asked for (0 otherwise for MariaDB); for postgres it is
// also the number in the socket file name (5432 when no port was asked for).
func (s *Server) Port() int { return s.port }

// User to connect as. No password is asked for on the socket, which is private to this host's
// root and the server user; over TCP, Password is.
func (s *Server) User() string { return s.user }

// Password is the password User needs over TCP, generated for this server; "" when the server
// does not listen on TCP. It is a credential: never print, log or record it. MariaDB also asks
// for it on the socket when the server listens on TCP.
func (s *Server) Password() string { return s.password }

// Database to connect to: "enginebench".
func (s *Server) Database() string { return Database }

// Version is the server version string (e.g. "15.18", "10.11.19-MariaDB").
func (s *Server) Version() string { return s.version }

// Build is where the server's binary came from (build.go): its path and sha256, and where the
// installation says so, its configure options, compiler and flags. A copy.
func (s *Server) Build() map[string]string { return maps.Clone(s.build) }

// DataDir is the server's data directory (Options.DataDir, made absolute).
func (s *Server) DataDir() string { return s.dataDir }

// LogPath is the server's log file.
func (s *Server) LogPath() string { return s.logPath }

// DSN returns a connection string for the server's driver, with no password: for postgres a
// pgx keyword/value string over the unix socket, for MariaDB a go-sql-driver/mysql DSN over
// the unix socket (which needs Password too when the server listens on TCP), for FerretDB a
// mongodb:// URI of its unix socket.
func (s *Server) DSN() string {
	switch s.kind {
	case Postgres:
		return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", s.sockDir, s.port, s.user, Database)
	case FerretDB, Mongod:
		return SocketURI(s.sockPath)
	}
	return fmt.Sprintf("%s@unix(%s)/%s", s.user, s.sockPath, Database)
}

// Exited is closed when the server process has exited (killed, crashed or stopped).
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Alive returns nil while the server process runs, or an error that says it is gone, how it
// exited and the last error lines of its log.
func (s *Server) Alive() error {
	select {
	case <-s.exited:
		if s.stopping.Load() {
			return fmt.Errorf("%s server (pid %d) was stopped", s.kind, s.pid)
		}
		return fmt.Errorf("%s server (pid %d) is gone (%s)%s", s.kind, s.pid, exitText(s.waitErr),
			indentLines(s.relevantLog()))
	default:
		return nil
	}
}

// LogTail returns the last n lines of the server's log, for error messages.
func (s *Server) LogTail(n int) string {
	return strings.Join(tailLines(s.logPath, 0, n), "\n")
}

// Processes returns the PIDs of the server's process tree (its main process, its children,
// and processes of the server binary working in its data directory, which survive the main
// process when it is killed), in ascending order.
func (s *Server) Processes() ([]int, error) {
	return s.tree()
}

// Stop stops the server and waits until no process of it remains, then removes its socket
// directory. With Options.Keep it shuts the server down cleanly (PostgreSQL's fast shutdown,
// MariaDB's SIGTERM), which writes every dirty page and waits for the sessions' rollbacks;
// without, since the data directory is thrown away, it is quick: PostgreSQL's immediate
// shutdown (which still frees its shared memory), MariaDB killed. A server that does not exit
// in time, or one stopped by SIGSTOP, is continued and its whole process tree killed (SIGKILL);
// a closed Options.Abort kills it at once, also while Stop waits. Every wait is bounded. The
// data directory stays (the caller removes it unless --keep). Safe to call more than once and
// after the server died.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Server) stop() error {
	s.stopping.Store(true)
	var errs []error
	if err := s.shutdown(); err != nil {
		errs = append(errs, err)
	}
	if err := s.killTree(killTimeout); err != nil {
		errs = append(errs, err)
	}
	// The main process may be a zombie, which killTree does not count, until Wait reaps it.
	if s.pid > 0 {
		select {
		case <-s.exited:
		case <-time.After(killTimeout):
			errs = append(errs, fmt.Errorf("%s server pid %d: no exit status %s after SIGKILL", s.kind, s.pid, killTimeout))
		}
	}
	if err := os.RemoveAll(s.sockDir); err != nil {
		errs = append(errs, fmt.Errorf("remove socket directory: %w", err))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if s.log != nil && s.started {
		how := exitText(s.waitErr)
		if s.aborted() {
			how += ", killed at once on request"
		}
		fmt.Fprintf(s.log, "%s server stopped: pid %d (%s)\n", s.kind, s.pid, how)
	}
	return nil
}

// shutdown asks the running server to stop (see Stop) and waits until its main process exits,
// at most the shutdown's timeout, or until Abort is closed. It returns an error when the server
// did not exit in time; the caller kills what is left.
func (s *Server) shutdown() error {
	sig, timeout := s.stopSignal()
	if s.pid == 0 || sig == 0 || s.aborted() {
		return nil
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	s.continueTree() // a stopped process handles no signal but SIGKILL
	if err := syscall.Kill(s.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s server pid %d: %w", s.kind, s.pid, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-s.abort:
	case <-timer.C:
		return fmt.Errorf("%s server pid %d did not shut down within %s (%s); killed it", s.kind, s.pid, timeout, sig)
	}
	return nil
}

// stopSignal returns the signal that stops the server and how long it may take; 0 when the
// server is killed at once.
func (s *Server) stopSignal() (syscall.Signal, time.Duration) {
	switch {
	case s.keep && s.kind == Postgres:
		return syscall.SIGINT, shutdownTimeout // fast shutdown: a checkpoint, then exit
	case s.keep:
		return syscall.SIGTERM, shutdownTimeout // MariaDB's clean shutdown
	case s.kind == Postgres:
		// Immediate shutdown: no checkpoint, but the postmaster frees its shared memory
		// (a killed one leaves a SysV segment and /dev/shm files behind).
		return syscall.SIGQUIT, quickTimeout
	}
	return 0, 0
}

// Start initialises (initdb / mariadb-install-db) and starts a server, waits until it accepts
// connections, and creates the database Database. Every wait is bounded by ctx, a generous
// timeout and o.Abort; an initialisation or a start that reports a full disk fails at once.
// On any failure nothing is left running, and the error carries the server's own message (the
// relevant lines of its log, or the end of the initialisation program's output), e.g. a
// setting the server rejects.
func Start(ctx context.Context, kind Kind, o Options) (*Server, error) {
	k, err := kindOf(kind)
	if err != nil {
		return nil, err
	}
	select {
	case <-o.Abort:
		return nil, fmt.Errorf("%s: %w", kind, errAborted)
	default:
	}
	k, bins, err := resolveFlavor(k, o.BinDir)
	if err != nil {
		return nil, err
	}
	port, settings, err := splitSettings(k, o.Settings)
	if err != nil {
		return nil, err
	}
	if err := checkTCP(k, port); err != nil {
		return nil, err
	}
	dataDir, id, err := ownDataDir(kind, k, o.DataDir)
	if err != nil {
		return nil, err
	}
	if err := id.checkReach(filepath.Dir(bins.server)); err != nil {
		return nil, fmt.Errorf("%s: the server runs as %s, which cannot reach its binary %s: %w (install it where every user can, e.g. /usr/local/bin)",
			kind, id, bins.server, err)
	}
	if err := checkListen(kind, port, o.Listen); err != nil {
		return nil, err
	}
	if err := checkTLS(kind, port, o.TLS, len(o.Listen)); err != nil {
		return nil, err
	}
	password, err := portPassword(kind, port, o.Listen)
	if err != nil {
		return nil, err
	}
	sockDir, err := makeSocketDir(k.socketPrefix(), id, dataDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	s := &Server{kind: kind, dataDir: dataDir, sockDir: sockDir, tcpPort: port,
		logPath: filepath.Join(dataDir, LogFile), exe: bins.server, uid: id.uid, log: o.Log,
		password: password, listen: o.Listen, keep: o.Keep, abort: o.Abort, cgroup: o.Cgroup, exited: make(chan struct{})}
	s.sockPath, s.port, s.user = k.socket(sockDir, port)
	if err := checkSocketFree(s.sockPath); err != nil {
		_ = os.RemoveAll(sockDir)
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if s.tls, err = copyTLS(sockDir, id, o.TLS); err != nil {
		_ = os.RemoveAll(sockDir)
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if err := s.start(ctx, k, bins, id, settings); err != nil {
		_ = s.Stop() // kills whatever was started and removes the socket directory
		return nil, err
	}
	s.started = true
	s.build = buildOf(ctx, k, bins)
	if bins.product != "" {
		s.build[BuildProduct] = string(bins.product)
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "%s server %s started: pid %d, socket %s, data %s\n", kind, s.version, s.pid, s.sockPath, dataDir)
		if s.malloc != "" {
			fmt.Fprintf(o.Log, "%s server under a memory cap: %s\n", kind, s.malloc)
		}
	}
	return s, nil
}

// ownDataDir prepares the data directory of a server of kind k (prepareDataDir) and gives it
// to the operating system user the server runs as, which must be able to reach it.
func ownDataDir(kind Kind, k flavor, dir string) (string, identity, error) {
	dataDir, err := prepareDataDir(kind, dir)
	if err != nil {
		return "", identity{}, err
	}
	id, err := serverIdentity(k.osUser())
	if err != nil {
		return "", identity{}, fmt.Errorf("%s: %w", kind, err)
	}
	if err := id.checkReach(filepath.Dir(dataDir)); err != nil {
		return "", identity{}, fmt.Errorf("%s: the server runs as %s, which cannot reach the data directory %s: %w",
			kind, id, dataDir, err)
	}
	if err := id.chown(dataDir, 0o700); err != nil {
		return "", identity{}, fmt.Errorf("%s: data directory: %w", kind, err)
	}
	return dataDir, id, nil
}

// listenAddrs returns the TCP addresses of a server: 127.0.0.1 and the addresses of listen.
func listenAddrs(listen []netip.Prefix) []string {
	addrs := []string{"127.0.0.1"}
	for _, p := range listen {
		addrs = append(addrs, p.Addr().String())
	}
	return addrs
}

// checkListen checks Options.Listen: IPv4 networks, and a TCP port to listen on.
func checkListen(kind Kind, port int, listen []netip.Prefix) error {
	for _, p := range listen {
		if !p.IsValid() || !p.Addr().Is4() {
			return fmt.Errorf("%s: listen on %v: want an IPv4 address of this host with its prefix (198.18.0.1/30)", kind, p)
		}
	}
	if len(listen) > 0 && port <= 0 {
		return fmt.Errorf("%s: listen on %v: give the setting port (the server listens on the socket only without it)", kind, listen)
	}
	return nil
}

// portPassword checks that the TCP port is free on 127.0.0.1 and on the addresses of listen,
// and returns a new password for the server's user, who connects over it; with no port (0: the
// socket only), no password.
func portPassword(kind Kind, port int, listen []netip.Prefix) (string, error) {
	if port <= 0 {
		return "", nil
	}
	for _, a := range listenAddrs(listen) {
		if err := checkPortFree(a, port); err != nil {
			return "", fmt.Errorf("%s: %w", kind, err)
		}
	}
	if kind == FerretDB {
		return "", nil // no authentication but the client certificate (checkTLS)
	}
	password, err := newPassword()
	if err != nil {
		return "", fmt.Errorf("%s: %w", kind, err)
	}
	return password, nil
}

// start runs the kind-specific initialisation, starts the server process and waits until it
// is ready. On error the caller stops the server.
func (s *Server) start(ctx context.Context, k flavor, bins binaries, id identity, settings []setting) error {
	if err := k.initialise(ctx, s, bins, id, settings); err != nil {
		close(s.exited) // nothing runs
		return err
	}
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		close(s.exited)
		return fmt.Errorf("%s: open log: %w", s.kind, err)
	}
	defer logf.Close() // the child has its own descriptor
	if err := id.chown(s.logPath, 0o640); err != nil {
		close(s.exited)
		return fmt.Errorf("%s: log: %w", s.kind, err)
	}
	if st, err := logf.Stat(); err == nil {
		s.logStart = st.Size()
	}
	cmd := serverCommand(id, s.dataDir, bins.server, k.serverArgs(s)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	start := cmd.Start
	if s.cgroup != nil {
		var env []string
		env, s.malloc = cappedMalloc(s.kind, jemallocPaths())
		cmd.Env = append(cmd.Env, env...)
		start = func() error { return s.cgroup.Start(cmd) }
	}
	err = startOnOwnThread(cmd, start, func(err error) {
		s.waitErr = err
		close(s.exited)
	})
	if err != nil {
		close(s.exited)
		return fmt.Errorf("%s: start %s: %w", s.kind, bins.server, err)
	}
	s.pid = cmd.Process.Pid
	return s.waitReady(ctx, k)
}

// waitReady waits until the started server accepts connections and creates the database, at
// most readyTimeout, until ctx is done or Abort is closed. A server whose log says the disk is
// full fails at once (MariaDB would wait for space forever).
func (s *Server) waitReady(ctx context.Context, k flavor) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	ctx, cancelAbort := context.WithCancelCause(ctx)
	defer cancelAbort(nil)
	defer s.onAbort(func() { cancelAbort(errAborted) })()
	var lastErr error
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("%s server did not start (%s); its log %s says:%s", s.kind, exitText(s.waitErr),
				s.logPath, indentLines(s.relevantLog()))
		default:
		}
		if line := diskFullLine(readLog(s.logPath, s.logStart)); line != "" {
			return fmt.Errorf("%s server did not start: %w; its log %s says:%s", s.kind, errDiskFull, s.logPath,
				indentLines(append(s.relevantLog(), line)))
		}
		version, connected, err := k.ready(ctx, s)
		if connected {
			s.version = version
			if err != nil {
				return err
			}
			if bad := k.startupErrors(readLog(s.logPath, s.logStart)); len(bad) > 0 {
				return fmt.Errorf("%s server reported errors while starting; its log %s says:%s", s.kind, s.logPath, indentLines(bad))
			}
			return nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s server did not accept connections on %s: %w (last attempt: %v)%s", s.kind, s.sockPath,
				context.Cause(ctx), lastErr, indentLines(s.relevantLog()))
		case <-tick.C:
		}
	}
}

// exitText describes how a process ended.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// indentLines formats log lines for an error message: each on its own indented line.
func indentLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return "\n    " + strings.Join(lines, "\n    ")
}

// setting is one server variable for the configuration file.
type setting struct{ name, value string }

// splitSettings validates settings' names and values for the configuration file, takes out
// "port", rejects the names the package manages itself, and returns the rest sorted by name.
func splitSettings(k flavor, m map[string]string) (int, []setting, error) {
	port := 0
	var out []setting
	seen := make(map[string]string)
	for name, value := range m {
		if !validName(name) {
			return 0, nil, fmt.Errorf("%s: invalid server setting name %q", k.kind(), name)
		}
		n := k.normalize(name)
		if other, dup := seen[n]; dup {
			return 0, nil, fmt.Errorf("%s: server settings %q and %q are the same", k.kind(), other, name)
		}
		seen[n] = name
		if n == "port" {
			p, err := parsePort(value)
			if err != nil {
				return 0, nil, fmt.Errorf("%s: setting port: %w", k.kind(), err)
			}
			port = p
			continue
		}
		if strings.ContainsAny(value, "\n\r\x00") {
			return 0, nil, fmt.Errorf("%s: server setting %s: the value must be one line", k.kind(), name)
		}
		if why := k.reserved(n); why != "" {
			return 0, nil, fmt.Errorf("%s: server setting %q is managed by enginebench (%s)", k.kind(), name, why)
		}
		out = append(out, setting{name, value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return port, out, nil
}

// validName reports whether name can be a server variable name (letters, digits, _ - .).
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

func parsePort(v string) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("%q is not a TCP port (0 = unix socket only, or %d..65535)", v, minPort)
	}
	if p > 0 && p < minPort {
		return 0, fmt.Errorf("port %d is privileged: ports below %d belong to system services, and the server, which runs as an unprivileged user, cannot listen on them (use %d..65535)", p, minPort, minPort)
	}
	return p, nil
}

// minPort is the lowest TCP port a managed server takes: the first port an unprivileged user
// may listen on (Linux's default net.ipv4.ip_unprivileged_port_start).
const minPort = 1024

// prepareDataDir checks that dir exists, is a directory and is empty, and returns its
// absolute path with symlinks resolved (the path the server's processes see as their cwd).
func prepareDataDir(kind Kind, dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("%s: no data directory given", kind)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: data directory: %w", kind, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s: data directory: %w", kind, err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", fmt.Errorf("%s: data directory: %w", kind, err)
	}
	if len(entries) > 0 {
		return "", fmt.Errorf("%s: data directory %s is not empty", kind, abs)
	}
	return abs, nil
}

// serverCommand returns a command that runs a server binary as id in its own process group,
// killed when enginebench dies (start it with startOnOwnThread), in dir, with a small fixed
// environment.
func serverCommand(id identity, dir, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = serverEnv()
	cmd.SysProcAttr = sysProcAttr(id)
	return cmd
}

// initCommand is serverCommand for a short-lived initialisation program bounded by ctx: when
// ctx ends, its whole process group is killed. Run it with runOnOwnThread.
func initCommand(ctx context.Context, id identity, dir, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = serverEnv()
	cmd.SysProcAttr = sysProcAttr(id)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// jemallocPaths returns where Linux distributions install jemalloc (Debian's libjemalloc2,
// Fedora's jemalloc).
func jemallocPaths() []string {
	return []string{"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
		"/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2"}
}

// cappedMalloc returns what the environment of a server of kind gains under a memory cap, and
// the allocator it runs with, for the log. A multi-threaded server's allocator must give back
// what its threads free, or the cap fills with freed memory: MariaDB's threads free what other
// threads allocated (MyRocks' block cache evictions, memtables, index builds' merge buffers).
// With glibc malloc's default arenas MyRocks reached 499 MB resident by the end of the iobound
// preset's load with a 128 MiB block cache, and was OOM-killed at the start of l.x; with two
// arenas it got through l.x at 454 MB and was at the cap early in l.i1 (docs/performance.md).
// So a MariaDB server under a cap runs with jemalloc preloaded where it is installed, as the
// published MyRocks binaries are linked with it; else with glibc malloc limited to two arenas.
// PostgreSQL's processes are single-threaded: glibc's two arenas change nothing there.
func cappedMalloc(kind Kind, jemalloc []string) (env []string, allocator string) {
	env = []string{"MALLOC_ARENA_MAX=2"}
	if kind != MariaDB {
		return env, "glibc malloc"
	}
	for _, p := range jemalloc {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return append(env, "LD_PRELOAD="+p), "jemalloc " + p
		}
	}
	return env, "glibc malloc with two arenas (no jemalloc: apt-get install libjemalloc2)"
}

// serverEnv is the environment of server processes: PATH (for the install scripts), the C
// locale, and TZ when set.
func serverEnv() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	env := []string{"PATH=" + path, "LC_ALL=C", "LANG=C"}
	if tz, ok := os.LookupEnv("TZ"); ok {
		env = append(env, "TZ="+tz)
	}
	return env
}
