package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// MySQL's own mysqld (MySQL 5.6, 5.7.6 and later, 8.x, Percona Server) from a basedir
// (Options.BinDir): a mode of the MariaDB kind, since the engines, the protocol, the option
// files and the settings check are the same. What differs is here: the product is told from
// `mysqld --version`, the data directory is initialised by `mysqld --initialize-insecure`
// (5.7.6 on) or by the installation's mysql_install_db (5.6, a Perl script) rather than
// mariadb-install-db, the option file's section is [mysqld], and the server listens on its
// socket only (root@localhost without a password there).
//
// None of this was run against a real MySQL here: the machine it was built on has only
// MariaDB (docs/servers.md, Versions and builds).

// Product is a server product of a kind: what its binary's --version says it is.
type Product string

// The products of the MySQL family.
const (
	ProductMariaDB Product = "MariaDB"
	ProductMySQL   Product = "MySQL"
	ProductPercona Product = "Percona Server"
)

// BuildProduct is the key of Server.Build that names the product of a MySQL-family server
// from a basedir (Product).
const BuildProduct = "product"

// mysqlLabel starts the messages of a MySQL server.
const mysqlLabel Kind = "mysql"

// serverVersion is what a MySQL-family server's --version says.
type serverVersion struct {
	product             Product
	version             string // "8.0.33", "8.0.33-25", "10.11.19-MariaDB-0+deb12u1"
	major, minor, patch int
}

// mysqlVersionRE matches the version line of mysqld and mariadbd:
// "/usr/sbin/mysqld  Ver 8.0.33 for Linux on x86_64 (MySQL Community Server - GPL)".
var mysqlVersionRE = regexp.MustCompile(`\bVer\s+(([0-9]+)\.([0-9]+)\.([0-9]+)\S*)\s+(?:for\s.*?)?(?:\((.*)\))?\s*$`)

// parseServerVersion tells MariaDB, MySQL and Percona Server apart by the first line of
// `mysqld --version`: "-MariaDB" in the version is MariaDB's, "Percona Server" in the
// comment Percona's, any other mysqld MySQL's (Community, Enterprise, a source build such as
// Facebook's).
func parseServerVersion(out string) (serverVersion, error) {
	line := strings.TrimSpace(firstLine(strings.TrimSpace(out)))
	m := mysqlVersionRE.FindStringSubmatch(line)
	if m == nil {
		return serverVersion{}, fmt.Errorf("%q is not the version of a MySQL or MariaDB server", line)
	}
	v := serverVersion{product: ProductMySQL, version: m[1]}
	v.major, _ = strconv.Atoi(m[2])
	v.minor, _ = strconv.Atoi(m[3])
	v.patch, _ = strconv.Atoi(m[4])
	switch {
	case strings.Contains(m[1], "-MariaDB"):
		v.product = ProductMariaDB
	case strings.Contains(m[5], "Percona Server"):
		v.product = ProductPercona
	}
	return v, nil
}

// atLeast reports whether v is major.minor.patch or later.
func (v serverVersion) atLeast(major, minor, patch int) bool {
	if v.major != major {
		return v.major > major
	}
	if v.minor != minor {
		return v.minor > minor
	}
	return v.patch >= patch
}

// MySQLBinary returns the product and version of the MySQL-family server of the basedir
// dir, or of the installed MariaDB when dir is "": ProductMySQL and "8.0.33" for a MySQL
// 8.0.33 mysqld. A directory without such a server is an error (as CheckBinDir's).
func MySQLBinary(dir string) (Product, string, error) {
	if dir == "" {
		if _, err := (mariaFlavor{}).binaries(); err != nil {
			return "", "", err
		}
		return ProductMariaDB, "", nil
	}
	bins, err := findBinaries(mariaFlavor{}, dir)
	if err != nil {
		return "", "", err
	}
	return bins.product, mariaVersion(bins.version), nil
}

// mysqlFlavor is MariaDB's flavor for a MySQL or Percona Server mysqld.
type mysqlFlavor struct{ mariaFlavor }

// mysqlSection is the section of the option file that mysqld reads.
const mysqlSection = "mysqld"

// initConfigFile is the option file of the initialisation, in the socket directory: `mysqld
// --initialize-insecure` refuses to initialise a data directory that holds any file.
const initConfigFile = "init.cnf"

func (mysqlFlavor) refuseTCP() string {
	return "a managed MySQL listens on its private socket only (its TCP accounts are not built: they could not be tested here)"
}

func (k mysqlFlavor) reserved(name string) string {
	switch strings.TrimPrefix(name, "loose-") {
	case "initialize", "initialize-insecure", "mysqlx", "mysqlx-socket", "mysqlx-port", "mysqlx-bind-address",
		"admin-address", "admin-port", "secure-file-priv":
		return "a managed MySQL keeps its data directory, X Protocol and file access to itself"
	}
	return k.mariaFlavor.reserved(name)
}

// mysqlBinaries completes b, the binaries of a MySQL or Percona Server mysqld found in the
// basedir dir, with its initialisation program: mysqld itself from 5.7.6 on; for 5.6, the
// installation's mysql_install_db (scripts/ of a binary tarball, or bin/) and the interpreter
// it names (perl), each missing one a one-line error. Before 5.6, and 5.7's development
// releases before 5.7.6 (their mysql_install_db took other options from one release to the
// next), it is refused.
func mysqlBinaries(dir, server string, b binaries) (binaries, error) {
	v := b.release
	switch {
	case v.atLeast(5, 7, 6):
		b.init = b.server
		return b, nil
	case v.major == 5 && v.minor == 6:
	case v.major == 5 && v.minor == 7:
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %s is %s %s, a development release of 5.7: a managed MySQL 5.7 needs 5.7.6 or later (mysqld --initialize-insecure)", server, v.product, v.version)
	default:
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %s is %s %s: a managed MySQL needs 5.6 (mysql_install_db) or 5.7.6 and later (mysqld --initialize-insecure)", server, v.product, v.version)
	}
	script := firstExecutable(dir, []string{"scripts", "bin"}, []string{"mysql_install_db"})
	if script == "" {
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %s has %s %s's server but no mysql_install_db (in its scripts/ or bin/), which initialises a MySQL 5.6", dir, v.product, v.version)
	}
	if err := checkInterpreter(script); err != nil {
		return binaries{}, fmt.Errorf("mariadb: setting basedir: %w", err)
	}
	b.init = resolveExe(script)
	return b, nil
}

// checkInterpreter checks that the interpreter a script names in its first line ("#!/usr/bin/perl",
// "#!/usr/bin/env perl") is installed; a program that is not a script has none.
func checkInterpreter(script string) error {
	f, err := os.Open(script)
	if err != nil {
		return fmt.Errorf("%s: %w", script, err)
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	line, ok := strings.CutPrefix(firstLine(string(head[:n])), "#!")
	if !ok {
		return nil
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return fmt.Errorf("%s: an empty #! line", script)
	}
	interp := fields[0]
	if filepath.Base(interp) == "env" && len(fields) > 1 {
		interp = fields[1]
		if _, err := exec.LookPath(interp); err != nil {
			return fmt.Errorf("%s needs %s (#!%s), which is not on PATH (install: apt-get install %s)", script, interp, line, interp)
		}
		return nil
	}
	if !isExecutable(interp) {
		return fmt.Errorf("%s needs %s (#!%s), which is not installed (install: apt-get install %s)", script, interp, line, filepath.Base(interp))
	}
	return nil
}

// installsWithScript reports whether a MySQL's data directory is initialised by
// mysql_install_db (MySQL 5.6) rather than by mysqld itself.
func (b binaries) installsWithScript() bool { return b.init != b.server }

// initialise writes the server's option file, first in the socket directory, and
// initialises the data directory with it (mysqlInitArgs, or mysqlInstallDBArgs for 5.6);
// then the file moves into the data directory, where the server reads it.
func (mysqlFlavor) initialise(ctx context.Context, s *Server, bins binaries, id identity, settings []setting) error {
	if s.tcpPort > 0 {
		return fmt.Errorf("%s: setting port: %s", mysqlLabel, mysqlFlavor{}.refuseTCP())
	}
	opts := mysqlOptions(s, bins.base, bins.release, settings)
	tmp := filepath.Join(s.sockDir, initConfigFile)
	if err := writeOwned(tmp, id, opts); err != nil {
		return err
	}
	defer os.Remove(tmp)
	program, args := "mysqld --initialize-insecure", mysqlInitArgs(tmp, bins.base, s.dataDir, id.name)
	if bins.installsWithScript() {
		program, args = "mysql_install_db", mysqlInstallDBArgs(tmp, bins.base, s.dataDir, id.name, bins.release)
	}
	out, err := s.runInit(ctx, id, bins.init, args...)
	if werr := writeLog(s.logPath, id, out); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("%s: %s failed (%v):%s", mysqlLabel, program, err, indentLines(installFailure(splitLines(string(out)))))
	}
	return writeOwned(filepath.Join(s.dataDir, mariaConfigFile), id, opts)
}

// writeOwned writes an option file for the server's user.
func writeOwned(path string, id identity, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		return fmt.Errorf("%s: write %s: %w", mysqlLabel, path, err)
	}
	if err := id.chown(path, 0o640); err != nil {
		return fmt.Errorf("%s: %w", mysqlLabel, err)
	}
	return nil
}

// mysqlInitArgs are the arguments of `mysqld --initialize-insecure` (MySQL 5.7.6 and later):
// the option file first (mysqld reads --defaults-file only there), then the installation, the
// data directory and the user it runs as. root@localhost gets an empty password; the socket
// is private.
func mysqlInitArgs(cnf, base, dataDir, user string) []string {
	return []string{"--defaults-file=" + cnf, "--initialize-insecure", "--basedir=" + base, "--datadir=" + dataDir, "--user=" + user}
}

// mysqlInstallDBArgs are the arguments of MySQL 5.6's mysql_install_db: the option file (it
// hands it to my_print_defaults and to the bootstrap's mysqld), the installation (without it
// the script looks for its compiled-in prefix), the data directory and the user. --force skips
// its check that the host name resolves (the server listens on its socket only), and
// --keep-my-cnf (5.6.20 on) keeps it from writing a my.cnf into the basedir. It creates
// root@localhost without a password, and anonymous accounts, which nobody can use: only root
// and the server's user reach the private socket, and enginebench connects as root.
func mysqlInstallDBArgs(cnf, base, dataDir, user string, v serverVersion) []string {
	args := []string{"--defaults-file=" + cnf, "--basedir=" + base, "--datadir=" + dataDir, "--user=" + user, "--force"}
	if v.atLeast(5, 6, 20) {
		args = append(args, "--keep-my-cnf")
	}
	return args
}

// mysqlOptions returns a MySQL server's option file: MariaDB's (mariaOptions) in section
// [mysqld], without the X Protocol (MySQL 8.0 starts it by default, on TCP port 33060 and a
// socket in /tmp that servers side by side would share) and with file import and export off
// (secure_file_priv: a package's default directory may not exist, and the server then does
// not start) where the version v has that value (5.6.34 on, 5.7.6 on); before, the default
// is "" and nothing checks a directory.
func mysqlOptions(s *Server, base string, v serverVersion, settings []setting) string {
	own := []setting{{"loose-mysqlx", "OFF"}}
	if v.atLeast(5, 7, 6) || v.major == 5 && v.minor == 6 && v.patch >= 34 {
		own = append(own, setting{"secure-file-priv", "NULL"})
	}
	return mariaOptions(s, mysqlSection, base, append(own, settings...))
}

func (mysqlFlavor) checkSettings(bins binaries, settings []setting) error {
	return checkFamilySettings(mysqlLabel, bins, settings)
}
