package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgDefaultPort names the socket file when no TCP port is asked for.
const pgDefaultPort = 5432

// pgSuperuser is the superuser initdb creates.
const pgSuperuser = "postgres"

// pgCheckPrefix names the temporary directory of pgCheckValues.
const pgCheckPrefix = "eb-pgcheck-"

type pgFlavor struct{}

func (pgFlavor) kind() Kind           { return Postgres }
func (pgFlavor) osUser() string       { return "postgres" }
func (pgFlavor) socketPrefix() string { return "eb-pg-" }

func (pgFlavor) socket(dir string, tcpPort int) (string, int, string) {
	port := tcpPort
	if port == 0 {
		port = pgDefaultPort
	}
	return filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", port)), port, pgSuperuser
}

// normalize: PostgreSQL's parameter names are case-insensitive.
func (pgFlavor) normalize(name string) string { return strings.ToLower(name) }

func (pgFlavor) reserved(name string) string {
	switch name {
	case "listen_addresses", "unix_socket_directories":
		return `the server listens on its private socket, and on 127.0.0.1 (and Options.Listen) when the setting "port" is given`
	case "data_directory", "config_file", "hba_file", "ident_file":
		return "the data directory holds the configuration"
	case "logging_collector":
		return "the server logs to server.log in its data directory"
	case "ssl", "ssl_cert_file", "ssl_key_file", "ssl_ca_file":
		return "TLS is Options.TLS"
	}
	return ""
}

// binaries finds postgres and initdb: in the highest /usr/lib/postgresql/N/bin, else on PATH.
func (pgFlavor) binaries() (binaries, error) {
	const install = "(install: apt-get install postgresql)"
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgDirVersion(dirs[i]) > pgDirVersion(dirs[j]) })
	for _, d := range dirs {
		pg, initdb := filepath.Join(d, "postgres"), filepath.Join(d, "initdb")
		if isExecutable(pg) && isExecutable(initdb) {
			return binaries{server: resolveExe(pg), init: resolveExe(initdb)}, nil
		}
	}
	pg, err := exec.LookPath("postgres")
	if err != nil {
		return binaries{}, fmt.Errorf("postgres not found on PATH or in /usr/lib/postgresql/*/bin %s", install)
	}
	pg = resolveExe(pg)
	initdb := filepath.Join(filepath.Dir(pg), "initdb")
	if !isExecutable(initdb) {
		if initdb, err = exec.LookPath("initdb"); err != nil {
			return binaries{}, fmt.Errorf("initdb not found next to %s or on PATH %s", pg, install)
		}
	}
	return binaries{server: pg, init: resolveExe(initdb)}, nil
}

// BinaryVersion returns the version of the server binary of kind in binDir, or of the installed
// one when binDir is "" (Options.BinDir), as the binary says it: "17.11", "15.18". PostgreSQL
// only.
func BinaryVersion(kind Kind, binDir string) (string, error) {
	k, err := kindOf(kind)
	if err != nil {
		return "", err
	}
	if kind != Postgres {
		return "", fmt.Errorf("%s: the version of its binary is not read", kind)
	}
	bins, err := findBinaries(k, binDir)
	if err != nil {
		return "", err
	}
	out, err := exec.Command(bins.server, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bins.server, err)
	}
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(string(out)), "postgres (PostgreSQL) "))
	if len(f) == 0 {
		return "", fmt.Errorf("%s --version: %q has no version", bins.server, firstLine(string(out)))
	}
	return f[0], nil
}

func (pgFlavor) dirSetting() string { return "bindir" }

// binariesIn finds postgres and initdb in dir, and checks that postgres is PostgreSQL's server.
func (pgFlavor) binariesIn(dir string) (binaries, error) {
	pg, initdb := filepath.Join(dir, "postgres"), filepath.Join(dir, "initdb")
	if !isExecutable(pg) || !isExecutable(initdb) {
		return binaries{}, fmt.Errorf("postgres: setting bindir: %s holds no PostgreSQL server (postgres and initdb)", dir)
	}
	out, err := exec.Command(pg, "--version").Output()
	if v := strings.TrimSpace(string(out)); err != nil || !strings.HasPrefix(v, "postgres (PostgreSQL) ") {
		return binaries{}, fmt.Errorf("postgres: setting bindir: %s is not PostgreSQL's server (postgres --version: %q)", pg, firstLine(v))
	}
	return binaries{server: resolveExe(pg), init: resolveExe(initdb)}, nil
}

// pgDirVersion is N of /usr/lib/postgresql/N/bin (versions like 9.6 sort by their float).
func pgDirVersion(dir string) float64 {
	v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
	if err != nil {
		return -1
	}
	return v
}

// pgHBA returns the server's pg_hba.conf: the private unix socket is trusted; TCP, from
// 127.0.0.1 and the networks of listen only, asks for the password, which only a server with
// a TCP port has. With TLS (t), TCP takes TLS connections only (hostssl), and with a client CA
// also a client certificate whose common name is the user (clientcert=verify-full).
func pgHBA(listen []netip.Prefix, t *tlsFiles) string {
	typ, opt := "host ", ""
	if t != nil {
		typ = "hostssl"
		if t.ca != "" {
			opt = " clientcert=verify-full"
		}
	}
	hba := "# enginebench: trust on the private unix socket; over TCP, the run's password\n" +
		"local all all trust\n" +
		typ + " all all 127.0.0.1/32 scram-sha-256" + opt + "\n"
	for _, p := range listen {
		hba += typ + " all all " + p.Masked().String() + " scram-sha-256" + opt + "\n"
	}
	return hba
}

// pgTLSConf returns the postgresql.conf lines of TLS: none without it.
func pgTLSConf(t *tlsFiles) string {
	if t == nil {
		return ""
	}
	conf := "# TLS: the files are in the private socket directory, removed when the server stops\n" +
		"ssl = on\n" +
		"ssl_cert_file = " + pgQuote(t.cert) + "\n" +
		"ssl_key_file = " + pgQuote(t.key) + "\n"
	if t.ca != "" {
		conf += "ssl_ca_file = " + pgQuote(t.ca) + "\n"
	}
	return conf
}

// pgListen returns listen_addresses: none without a TCP port, else 127.0.0.1 and the
// addresses of listen.
func pgListen(s *Server) string {
	if s.tcpPort == 0 {
		return ""
	}
	return strings.Join(listenAddrs(s.listen), ",")
}

func (k pgFlavor) initialise(ctx context.Context, s *Server, bins binaries, id identity, settings []setting) error {
	// C locale and UTF8: deterministic and the fastest collation; initdb syncs its files so
	// that their writeback does not fall into the first measured step.
	args := []string{"-D", s.dataDir, "-U", pgSuperuser, "--auth=trust", "--no-locale", "-E", "UTF8"}
	if s.password != "" {
		// The superuser's password, as its SCRAM secret (which PostgreSQL stores as given).
		secret, err := pgScramSecret(s.password)
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		pwfile, err := writeSecretFile(s.sockDir, "pwfile", id, secret+"\n")
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		defer os.Remove(pwfile)
		args = append(args, "--pwfile="+pwfile)
	}
	out, err := s.runInit(ctx, id, bins.init, args...)
	// initdb needs an empty directory: the log starts with its output, written afterwards.
	if werr := writeLog(s.logPath, id, out); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("postgres: initdb failed (%v):%s", err, indentLines(relevantLines(Postgres, splitLines(string(out)))))
	}
	if err := rewriteFile(filepath.Join(s.dataDir, "pg_hba.conf"), pgHBA(s.listen, s.tls)); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	var b strings.Builder
	b.WriteString("\n# enginebench managed server: settings below override the ones above\n")
	fmt.Fprintf(&b, "listen_addresses = %s\n", pgQuote(pgListen(s)))
	fmt.Fprintf(&b, "port = %d\n", s.port)
	fmt.Fprintf(&b, "unix_socket_directories = %s\n", pgQuote(s.sockDir))
	b.WriteString("logging_collector = off\n")
	b.WriteString("password_encryption = 'scram-sha-256'\n")
	b.WriteString(pgTLSConf(s.tls))
	for _, st := range settings {
		fmt.Fprintf(&b, "%s = %s\n", st.name, pgQuote(st.value))
	}
	if err := appendFile(filepath.Join(s.dataDir, "postgresql.conf"), b.String()); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// pgQuote quotes a value for postgresql.conf.
func pgQuote(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// startupErrors: postgres refuses to start on a bad configuration; the FATAL lines of its
// log while it starts are the refused connections of the readiness probe.
func (pgFlavor) startupErrors([]string) []string { return nil }

func (pgFlavor) serverArgs(s *Server) []string { return []string{"-D", s.dataDir} }

func (pgFlavor) ready(ctx context.Context, s *Server) (string, bool, error) {
	conn, err := pgConnect(ctx, s.sockDir, s.port, "postgres")
	if err != nil {
		return "", false, err
	}
	defer conn.Close(context.Background())
	version, _, _ := strings.Cut(conn.ParameterStatus("server_version"), " ")
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+Database).ReadAll(); err != nil {
		return "", true, fmt.Errorf("postgres: create database %s: %w", Database, err)
	}
	return version, true, nil
}

// pgConnect connects to database db through the socket in dir as the superuser.
func pgConnect(ctx context.Context, dir string, port int, db string) (*pgconn.PgConn, error) {
	cfg, err := pgconn.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", dir, port, pgSuperuser, db))
	if err != nil {
		return nil, fmt.Errorf("postgres: connection config: %w", err)
	}
	cfg.ConnectTimeout = 5 * time.Second
	return pgconn.ConnectConfig(ctx, cfg)
}

func (k pgFlavor) checkSettings(bins binaries, settings []setting) error {
	if len(settings) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bins.server, "--describe-config").Output()
	if err != nil {
		return fmt.Errorf("postgres: %s --describe-config: %w", bins.server, err)
	}
	known := make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if name, _, ok := strings.Cut(sc.Text(), "\t"); ok {
			known[strings.ToLower(name)] = true
		}
	}
	if len(known) == 0 {
		return fmt.Errorf("postgres: %s --describe-config listed no settings", bins.server)
	}
	var unknown []string
	for _, st := range settings {
		// Names with a dot are extensions' custom settings, unknown until the extension loads.
		if n := k.normalize(st.name); !known[n] && !strings.Contains(n, ".") {
			unknown = append(unknown, st.name)
		}
	}
	if len(unknown) > 0 {
		return unknownSettings(Postgres, unknown)
	}
	return pgCheckValues(bins, settings)
}

// pgCheckValues has postgres parse the settings as command-line options on an empty
// configuration (`postgres -C`), which checks every value the way the server does, without
// starting a server.
func pgCheckValues(bins binaries, settings []setting) error {
	id, err := serverIdentity(pgFlavor{}.osUser())
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	dir, err := os.MkdirTemp("", pgCheckPrefix)
	if err != nil {
		return fmt.Errorf("postgres: check settings: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := id.checkReach(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("postgres: check settings: %s cannot reach %s: %w", id, dir, err)
	}
	conf := filepath.Join(dir, "postgresql.conf")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		return fmt.Errorf("postgres: check settings: %w", err)
	}
	if err := id.chown(conf, 0o600); err != nil {
		return fmt.Errorf("postgres: check settings: %w", err)
	}
	if err := id.chown(dir, 0o700); err != nil {
		return fmt.Errorf("postgres: check settings: %w", err)
	}
	args := []string{"-D", dir, "-C", "server_version"}
	for _, st := range settings {
		args = append(args, "-c", st.name+"="+st.value)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := initCommand(ctx, id, dir, bins.server, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = runOnOwnThread(cmd)
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("postgres: check settings: %w", err)
	}
	return fmt.Errorf("postgres: server settings rejected:%s", indentLines(relevantLines(Postgres, splitLines(out.String()))))
}

// writeLog appends b to the log file at path (created for id).
func writeLog(path string, id identity, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	return id.chown(path, 0o640)
}

// rewriteFile replaces the contents of an existing file, keeping its owner and mode.
func rewriteFile(path, content string) error { return writeTo(path, os.O_TRUNC, content) }

// appendFile appends content to an existing file.
func appendFile(path, content string) error { return writeTo(path, os.O_APPEND, content) }

// writeTo opens the existing file path for writing with flag and writes content.
func writeTo(path string, flag int, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
