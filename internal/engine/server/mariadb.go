package server

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mariaUser is the MariaDB account clients use: root@localhost with an empty password
// (mariadb-install-db --auth-root-authentication-method=normal), or with the server's password
// when it listens on TCP (mariaAccountsSQL).
const mariaUser = "root"

// mariaAccountsSQL is the SQL that the bootstrap of a server that listens on TCP runs after
// creating its accounts: every root account (localhost, 127.0.0.1, ::1, the host name) gets
// the password, given by its mysql_native_password hash, and anonymous accounts, if any, go.
// Each network of listen gets a root account of its own (root@'198.18.0.0/255.255.255.252'),
// a copy of root@localhost's with the password. With x509, every root account but localhost's
// (the private socket; the server skips name resolution then, so that a TCP client is never
// localhost) also needs a client certificate signed by the server's client CA (REQUIRE X509,
// ssl_type 2 in global_priv).
func mariaAccountsSQL(password string, listen []netip.Prefix, x509 bool) string {
	sql := "-- enginebench: TCP is on, so every account needs the password\n" +
		"DELETE FROM mysql.global_priv WHERE User = '';\n" +
		"UPDATE mysql.global_priv SET Priv = JSON_SET(Priv, '$.plugin', 'mysql_native_password', " +
		"'$.authentication_string', '" + mariaNativeHash(password) + "') WHERE User = '" + mariaUser + "';\n"
	for _, p := range listen {
		sql += "INSERT INTO mysql.global_priv (Host, User, Priv) SELECT '" + mariaNetwork(p) + "', User, Priv " +
			"FROM mysql.global_priv WHERE User = '" + mariaUser + "' AND Host = 'localhost';\n"
	}
	if x509 {
		sql += "UPDATE mysql.global_priv SET Priv = JSON_SET(Priv, '$.ssl_type', 2) WHERE User = '" + mariaUser + "' AND Host <> 'localhost';\n"
	}
	return sql
}

// mariaNetwork is the account host of the IPv4 network p: its address and netmask.
func mariaNetwork(p netip.Prefix) string {
	mask := net.CIDRMask(p.Bits(), 32)
	return p.Masked().Addr().String() + "/" + net.IP(mask).String()
}

// mariaConfigFile is the server's option file in the data directory.
const mariaConfigFile = "my.cnf"

// mariaPluginDir is Debian's MariaDB plugin directory, used when mariadbd does not tell.
const mariaPluginDir = "/usr/lib/mysql/plugin"

type mariaFlavor struct{}

func (mariaFlavor) kind() Kind           { return MariaDB }
func (mariaFlavor) osUser() string       { return "mysql" }
func (mariaFlavor) socketPrefix() string { return "eb-my-" }

func (mariaFlavor) socket(dir string, tcpPort int) (string, int, string) {
	return filepath.Join(dir, "mysqld.sock"), tcpPort, mariaUser
}

// normalize: mariadbd treats "-" and "_" in option names alike.
func (mariaFlavor) normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

func (mariaFlavor) reserved(name string) string {
	name = strings.TrimPrefix(name, "loose-")
	switch name {
	case "bind-address", "skip-networking", "networking", "socket", "skip-bind-address":
		return `the server listens on its private socket, and on 127.0.0.1 (and Options.Listen) when the setting "port" is given`
	case "datadir", "pid-file", "log-error", "user", "defaults-file", "defaults-extra-file",
		"no-defaults", "defaults-group-suffix":
		return "the data directory, its option file and server.log are managed"
	case "basedir":
		return "the installation is Options.BinDir (the engines' setting basedir)"
	case "ssl-cert", "ssl-key", "ssl-ca", "require-secure-transport":
		return "TLS is Options.TLS"
	}
	return ""
}

// binaries finds mariadbd (/usr/sbin or PATH) and mariadb-install-db (/usr/bin or PATH).
func (mariaFlavor) binaries() (binaries, error) {
	const install = "(install: apt-get install mariadb-server)"
	server, ok := findBinary("mariadbd", "/usr/sbin")
	if !ok {
		return binaries{}, fmt.Errorf("mariadbd not found on PATH or in /usr/sbin %s", install)
	}
	init, ok := findBinary("mariadb-install-db", "/usr/bin")
	if !ok {
		return binaries{}, fmt.Errorf("mariadb-install-db not found on PATH or in /usr/bin %s", install)
	}
	return binaries{server: server, init: init}, nil
}

func (mariaFlavor) dirSetting() string { return "basedir" }

// forBinaries: a MySQL or Percona Server mysqld runs as MySQL (mysql.go).
func (k mariaFlavor) forBinaries(b binaries) flavor {
	if b.product == ProductMySQL || b.product == ProductPercona {
		return mysqlFlavor{}
	}
	return k
}

// binariesIn finds the server of the installation dir (a basedir): mariadbd or mysqld in
// its sbin/ or bin/ (or libexec/), and tells MariaDB, MySQL and Percona Server apart by what
// `--version` says. MariaDB's also needs mariadb-install-db (bin/, or scripts/ of a binary
// tarball); MySQL's initialises itself from 5.7.6 on, and 5.6 is initialised by its
// mysql_install_db (mysqlBinaries).
func (mariaFlavor) binariesIn(dir string) (binaries, error) {
	server := firstExecutable(dir, []string{"sbin", "bin", "libexec"}, []string{"mariadbd", "mysqld"})
	if server == "" {
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %s holds no MySQL or MariaDB server (mariadbd or mysqld in its sbin/ or bin/)", dir)
	}
	out, _ := exec.Command(server, "--no-defaults", "--version").Output()
	v, err := parseServerVersion(string(out))
	if err != nil {
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %s is not a MySQL or MariaDB server (--version: %q)", server, firstLine(strings.TrimSpace(string(out))))
	}
	b := binaries{server: resolveExe(server), base: dir, product: v.product, version: v.version, release: v}
	if v.product != ProductMariaDB {
		return mysqlBinaries(dir, server, b)
	}
	init := firstExecutable(dir, []string{"bin", "scripts"}, []string{"mariadb-install-db", "mysql_install_db"})
	if init == "" {
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %s has MariaDB's server but no mariadb-install-db (in its bin/ or scripts/)", dir)
	}
	b.init = resolveExe(init)
	return b, nil
}

// firstExecutable returns the first executable dir/sub/name, by sub then name; "" if none.
func firstExecutable(dir string, subs, names []string) string {
	for _, sub := range subs {
		for _, n := range names {
			if p := filepath.Join(dir, sub, n); isExecutable(p) {
				return p
			}
		}
	}
	return ""
}

// findBinary looks for name in dir, then on PATH.
func findBinary(name, dir string) (string, bool) {
	if p := filepath.Join(dir, name); isExecutable(p) {
		return resolveExe(p), true
	}
	if p, err := exec.LookPath(name); err == nil {
		return resolveExe(p), true
	}
	return "", false
}

// initialise writes the server's option file and runs mariadb-install-db with it, creating
// the accounts for TCP connections when the server has a password.
func (k mariaFlavor) initialise(ctx context.Context, s *Server, bins binaries, id identity, settings []setting) error {
	cnf := filepath.Join(s.dataDir, mariaConfigFile)
	if err := os.WriteFile(cnf, []byte(mariaOptions(s, mariaSection, bins.base, settings)), 0o640); err != nil {
		return fmt.Errorf("mariadb: write %s: %w", cnf, err)
	}
	if err := id.chown(cnf, 0o640); err != nil {
		return fmt.Errorf("mariadb: %w", err)
	}
	// The bootstrap reads the same option file, so that creation-time settings
	// (innodb_page_size, plugins) apply from the start.
	args := []string{"--defaults-file=" + cnf, "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}
	if bins.base != "" {
		// Without it, mariadb-install-db runs the mariadbd of its compiled-in basedir.
		args = append(args, "--basedir="+bins.base)
	}
	if s.password != "" {
		// mariadb-install-db pipes this file into the bootstrap's standard input.
		extra, err := writeSecretFile(s.sockDir, "accounts.sql", id, mariaAccountsSQL(s.password, s.listen, s.tls != nil && s.tls.ca != ""))
		if err != nil {
			return fmt.Errorf("mariadb: %w", err)
		}
		defer os.Remove(extra)
		args = append(args, "--extra-file="+extra)
	}
	return installDB(ctx, s, bins, id, args)
}

// mariaSection is the section of MariaDB's option file that only mariadbd reads.
const mariaSection = "mariadbd"

// mariaOptions returns the server's option file, in section: its installation (base, when
// given), its paths, its network, and settings.
func mariaOptions(s *Server, section, base string, settings []setting) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# enginebench managed server; read with --defaults-file only (no other option file)\n[%s]\n", section)
	if base != "" {
		fmt.Fprintf(&b, "basedir=%s\n", mariaQuote(base))
	}
	fmt.Fprintf(&b, "datadir=%s\n", mariaQuote(s.dataDir))
	fmt.Fprintf(&b, "pid-file=%s\n", mariaQuote(filepath.Join(s.dataDir, "mariadbd.pid")))
	// A kept data directory outlives the socket directory (Stop removes it): the file says how
	// to start it again.
	b.WriteString("# socket and tmpdir: the server's private directory, removed when it stops; to start a kept\n" +
		"# data directory again, give mariadbd --socket= and --tmpdir= after --defaults-file\n")
	fmt.Fprintf(&b, "socket=%s\n", mariaQuote(s.sockPath))
	// The server's private socket directory holds its temporary files: a starting mariadbd
	// deletes every #sql* file of its tmpdir, in a shared /tmp another server's too, and
	// mariadb-install-db of a server starting beside it then fails.
	fmt.Fprintf(&b, "tmpdir=%s\n", mariaQuote(filepath.Dir(s.sockPath)))
	if s.tcpPort > 0 {
		fmt.Fprintf(&b, "bind-address=%s\nport=%d\n", strings.Join(listenAddrs(s.listen), ","), s.tcpPort)
		if len(s.listen) > 0 || (s.tls != nil && s.tls.ca != "") {
			// The accounts of other hosts name their networks, and with client certificates a
			// TCP client from 127.0.0.1 must not be root@localhost: no host name to look up.
			b.WriteString("skip-name-resolve\n")
		}
		b.WriteString(mariaTLSOptions(s.tls))
	} else {
		b.WriteString("skip-networking\n")
	}
	b.WriteString("# the log goes to stderr, which is server.log\n")
	for _, st := range settings {
		if st.value == "" {
			fmt.Fprintf(&b, "%s\n", st.name)
		} else {
			fmt.Fprintf(&b, "%s=%s\n", st.name, mariaQuote(st.value))
		}
	}
	return b.String()
}

// mariaTLSOptions returns the option file lines of TLS: none without it. TCP is TLS-only
// (require_secure_transport); the unix socket counts as secure.
func mariaTLSOptions(t *tlsFiles) string {
	if t == nil {
		return ""
	}
	o := "# TLS: the files are in the private socket directory, removed when the server stops\n" +
		"ssl-cert=" + mariaQuote(t.cert) + "\n" +
		"ssl-key=" + mariaQuote(t.key) + "\n"
	if t.ca != "" {
		o += "ssl-ca=" + mariaQuote(t.ca) + "\n"
	}
	return o + "require-secure-transport=ON\n"
}

// installDB runs mariadb-install-db with args, its output going to the server's log, and
// runs it once more after an abort it does not explain.
func installDB(ctx context.Context, s *Server, bins binaries, id identity, args []string) error {
	for attempt := 1; ; attempt++ {
		out, err := s.runInit(ctx, id, bins.init, args...)
		if werr := writeLog(s.logPath, id, out); werr != nil && err == nil {
			err = werr
		}
		if err == nil {
			return nil
		}
		lines := splitLines(string(out))
		// A bootstrap that aborts without saying why has been seen to succeed when run again
		// (rarely, with several servers starting at once): once, start it afresh.
		if attempt == 1 && !errors.Is(err, errStopped) && unexplainedAbort(lines) {
			if s.log != nil {
				fmt.Fprintf(s.log, "mariadb: mariadb-install-db aborted without a reason; trying once more\n")
			}
			if err := clearExcept(s.dataDir, mariaConfigFile, LogFile); err != nil {
				return fmt.Errorf("mariadb: %w", err)
			}
			continue
		}
		return fmt.Errorf("mariadb: mariadb-install-db failed (%v):%s", err, indentLines(installFailure(lines)))
	}
}

// unexplainedAbort reports whether mariadb-install-db's only error is "Aborting", or the
// bootstrap crashed on a signal (seen once, under load, with the MyRocks plugin).
func unexplainedAbort(lines []string) bool {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, "[ERROR] /") && strings.Contains(l, " got signal ") {
			return true
		}
		if msg := stripTimestamp(l); mariaBadLine(msg) {
			if !strings.HasSuffix(strings.TrimSpace(msg), "[ERROR] Aborting") {
				return false
			}
			n++
		}
	}
	return n > 0
}

// clearExcept removes everything in dir but the files named keep.
func clearExcept(dir string, keep ...string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	for _, e := range ents {
		if slices.Contains(keep, e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("clear %s: %w", dir, err)
		}
	}
	return nil
}

// installContext is how many lines before its first error a failed mariadb-install-db
// shows: its [ERROR] lines may say only "Aborting", and what led to it comes before.
const installContext = 8

// installFailure returns the lines of mariadb-install-db's output that say why it failed: the
// lines just before its first error, then its errors.
func installFailure(lines []string) []string {
	first := slices.IndexFunc(lines, func(l string) bool { return mariaBadLine(stripTimestamp(l)) })
	if first < 0 {
		return relevantLines(MariaDB, lines)
	}
	var out []string
	for _, l := range lines[max(0, first-installContext):first] {
		if l = stripTimestamp(l); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return append(out, relevantLines(MariaDB, lines[first:])...)
}

// mariaQuote quotes an option file value when it needs it (comment characters, quotes,
// backslashes, surrounding blanks).
func mariaQuote(v string) string {
	if !strings.ContainsAny(v, "#;\"'\\") && strings.TrimSpace(v) == v {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
}

// startupErrors: mariadbd starts despite some bad settings, e.g. a plugin that does not
// load; it says so in [ERROR] lines (and in warnings about booleans it did not understand).
func (mariaFlavor) startupErrors(log []string) []string {
	var bad []string
	for _, l := range log {
		if msg := stripTimestamp(l); mariaBadLine(msg) {
			bad = append(bad, msg)
		}
	}
	if len(bad) > maxRelevant {
		bad = bad[:maxRelevant]
	}
	return bad
}

// mariaBadLine reports whether a line of mariadbd's log (without its timestamp) is an error, or
// a warning about a value that it ignored.
func mariaBadLine(msg string) bool {
	return strings.Contains(msg, "[ERROR]") || (strings.Contains(msg, "[Warning]") && strings.Contains(msg, "wasn't recognized"))
}

func (mariaFlavor) serverArgs(s *Server) []string {
	return []string{"--defaults-file=" + filepath.Join(s.dataDir, mariaConfigFile)}
}

func (mariaFlavor) ready(ctx context.Context, s *Server) (string, bool, error) {
	db, err := mariaOpen(s.sockPath, s.password, "")
	if err != nil {
		return "", false, err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return "", false, err
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+Database); err != nil {
		return "", true, fmt.Errorf("mariadb: create database %s: %w", Database, err)
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return "", true, fmt.Errorf("mariadb: version: %w", err)
	}
	return mariaVersion(version), true, nil
}

// mariaVersion is the version a MySQL-family server's VERSION() reports, without the
// distribution's part and the suffixes of MySQL's options: "10.11.19-MariaDB-0+deb12u1" ->
// "10.11.19-MariaDB", "5.7.44-log" -> "5.7.44"; Percona Server's release stays ("8.0.33-25").
func mariaVersion(v string) string {
	if i := strings.Index(v, "-MariaDB"); i >= 0 {
		return v[:i+len("-MariaDB")]
	}
	for _, suffix := range []string{"-log", "-debug", "-valgrind"} {
		v = strings.TrimSuffix(v, suffix)
	}
	return v
}

// mariaOpen returns a handle on database db through the socket at path as root.
func mariaOpen(path, password, db string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = mariaUser, password
	cfg.Net = "unix"
	cfg.Addr = path
	cfg.DBName = db
	cfg.Timeout = 5 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mariadb: connection config: %w", err)
	}
	db1 := sql.OpenDB(c)
	db1.SetMaxOpenConns(1)
	return db1, nil
}

// checkSettings checks the settings before the server starts: mariadbd must know each one's
// name (with the plugins the settings load) and accept its value.
func (k mariaFlavor) checkSettings(bins binaries, settings []setting) error {
	return checkFamilySettings(MariaDB, bins, settings)
}

// checkFamilySettings is checkSettings of the MySQL family; label (mariadb, mysql) starts
// its messages.
func checkFamilySettings(label Kind, bins binaries, settings []setting) error {
	if len(settings) == 0 {
		return nil
	}
	// Plugins add options: list the options with the plugins the settings load.
	var pluginArgs []string
	for _, st := range settings {
		switch (mariaFlavor{}).normalize(st.name) {
		case "plugin-load", "plugin-load-add", "plugin-dir", "plugin-maturity":
			pluginArgs = append(pluginArgs, mariaArg(st))
		}
	}
	help, stderr, err := mariaHelp(bins, pluginArgs)
	if err != nil {
		return err
	}
	known := mariaOptionNames(help)
	if len(known) == 0 {
		return fmt.Errorf("%s: %s --verbose --help listed no options:%s", label, bins.server, indentLines(relevantLines(MariaDB, splitLines(stderr))))
	}
	if unknown := unknownOptions(known, settings); len(unknown) > 0 {
		return unknownSettings(label, unknown)
	}
	return checkMariaValues(label, bins, settings)
}

// unknownOptions returns the names of settings that are not among the known options of a
// server's help (mariaOptionNames).
func unknownOptions(known map[string]bool, settings []setting) []string {
	var unknown []string
	for _, st := range settings {
		if !mariaKnown(known, mariaFlavor{}.normalize(st.name)) {
			unknown = append(unknown, st.name)
		}
	}
	return unknown
}

// checkMariaValues has mariadbd parse the settings' values: it parses every option before
// printing its help, and a bad value is an [ERROR] line (or a non-zero exit status), a bad
// boolean a warning.
func checkMariaValues(label Kind, bins binaries, settings []setting) error {
	args := make([]string, 0, len(settings))
	for _, st := range settings {
		args = append(args, mariaArg(st))
	}
	_, stderr, err := mariaHelp(bins, args)
	var bad []string
	for _, l := range splitLines(stderr) {
		if msg := stripTimestamp(l); mariaBadLine(msg) {
			bad = append(bad, msg)
		}
	}
	if len(bad) == 0 && err != nil {
		bad = relevantLines(MariaDB, splitLines(stderr))
		if len(bad) == 0 {
			bad = []string{err.Error()}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: server settings rejected by %s:%s", label, filepath.Base(bins.server), indentLines(bad))
	}
	return nil
}

// mariaArg is a setting as a command-line option.
func mariaArg(st setting) string {
	if st.value == "" {
		return "--" + st.name
	}
	return "--" + st.name + "=" + st.value
}

// mariaHelp runs `mariadbd --no-defaults --verbose --help` with extra options and returns its
// standard output and error. An exit status other than 0 is returned as an error along with
// the output.
func mariaHelp(bins binaries, extra []string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"--no-defaults", "--verbose", "--help"}
	if bins.base != "" {
		// Its messages file (lc-messages-dir) and plugins are found from the basedir.
		args = append(args, "--basedir="+bins.base)
	}
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, bins.server, args...)
	cmd.Env = serverEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return "", "", fmt.Errorf("mariadb: %s --verbose --help: %w", bins.server, err)
		}
	}
	return stdout.String(), stderr.String(), err
}

// mariaOptionRE matches an option line of mariadbd's help: "  --name..." or "  -x, --name...".
var mariaOptionRE = regexp.MustCompile(`^  (?:-\w, )?--([A-Za-z0-9][A-Za-z0-9_-]*)`)

// mariaOptionNames returns the normalised option names of mariadbd's help output: the option
// lines, and the names of the table of variables that ends it.
func mariaOptionNames(help string) map[string]bool {
	known := make(map[string]bool)
	k := mariaFlavor{}
	inVars := false
	sc := bufio.NewScanner(strings.NewReader(help))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "Variables (--variable-name=value)") {
			inVars = true
			continue
		}
		if inVars {
			if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "---") && f[0] != "and" {
				known[k.normalize(f[0])] = true
			}
			continue
		}
		if m := mariaOptionRE.FindStringSubmatch(l); m != nil {
			known[k.normalize(m[1])] = true
		}
	}
	return known
}

// mariaKnown reports whether a normalised option name is known, with mariadbd's prefixes:
// loose- (never checked: mariadbd ignores it when unknown), skip-, enable-, disable-,
// maximum-.
func mariaKnown(known map[string]bool, name string) bool {
	if strings.HasPrefix(name, "loose-") || known[name] {
		return true
	}
	for _, p := range []string{"skip-", "enable-", "disable-", "maximum-"} {
		if rest, ok := strings.CutPrefix(name, p); ok && known[rest] {
			return true
		}
	}
	return false
}

// AvailablePlugin reports whether the MariaDB plugin name (e.g. "ha_rocksdb") is installed in
// mariadbd's plugin directory; the error names the Debian package that installs it, e.g.
// "MariaDB plugin ha_rocksdb not found in /usr/lib/mysql/plugin (install: apt-get install
// mariadb-plugin-rocksdb)".
func AvailablePlugin(name string) error {
	bins, err := mariaFlavor{}.binaries()
	if err != nil {
		return err
	}
	name = strings.TrimSuffix(name, ".so")
	dir := mariaPluginDir
	if help, _, err := mariaHelp(bins, nil); err == nil {
		if d := mariaVariable(help, "plugin-dir"); d != "" {
			dir = strings.TrimSuffix(d, "/")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, name+".so")); err != nil {
		return fmt.Errorf("MariaDB plugin %s not found in %s (install: apt-get install %s)", name, dir, mariaPluginPackage(name))
	}
	return nil
}

// mariaVariable returns the value of a variable in the table that ends mariadbd's help.
func mariaVariable(help, name string) string {
	_, vars, ok := strings.Cut(help, "Variables (--variable-name=value)")
	if !ok {
		return ""
	}
	for _, l := range strings.Split(vars, "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == name {
			return f[1]
		}
	}
	return ""
}

// mariaPluginPackage names the Debian package of a MariaDB plugin.
func mariaPluginPackage(name string) string {
	switch name {
	case "ha_rocksdb":
		return "mariadb-plugin-rocksdb"
	case "ha_connect":
		return "mariadb-plugin-connect"
	case "ha_spider":
		return "mariadb-plugin-spider"
	case "ha_mroonga":
		return "mariadb-plugin-mroonga"
	case "ha_s3":
		return "mariadb-plugin-s3"
	case "ha_oqgraph":
		return "mariadb-plugin-oqgraph"
	}
	return "mariadb-server"
}
