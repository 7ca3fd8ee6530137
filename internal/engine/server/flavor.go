package server

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// flavor is what differs between the kinds of server.
type flavor interface {
	kind() Kind
	binaries() (binaries, error)
	// osUser is the package's own user the server runs as when enginebench is root.
	osUser() string
	// socketPrefix names the private socket directory.
	socketPrefix() string
	// socket returns the socket file in dir, the port Server.Port reports and the user to
	// connect as, given the TCP port asked for (0: none).
	socket(dir string, tcpPort int) (path string, port int, user string)
	// normalize returns the canonical form of a setting name (for comparisons).
	normalize(name string) string
	// reserved returns why a setting (normalised name) may not be set, or "".
	reserved(name string) string
	// initialise creates the data directory's contents and configuration files, and writes
	// the output of the initialisation program to the log.
	initialise(ctx context.Context, s *Server, bins binaries, id identity, settings []setting) error
	// serverArgs are the arguments of the server binary.
	serverArgs(s *Server) []string
	// ready tries to connect once. When it connects (connected is true), it creates the
	// database and returns the server's version, or the error of doing so.
	ready(ctx context.Context, s *Server) (version string, connected bool, err error)
	// startupErrors returns the lines of the server's log, written while it started, that
	// say that it does not run as configured although it accepts connections.
	startupErrors(log []string) []string
	// checkSettings validates names and values against the installed server.
	checkSettings(bins binaries, settings []setting) error
}

// binaries are the installed programs of a kind of server.
type binaries struct {
	server string // postgres, mariadbd, mysqld: absolute, symlinks resolved
	init   string // initdb, mariadb-install-db; for MySQL, mysqld itself (--initialize-insecure) or 5.6's mysql_install_db
	// base is the installation the binaries came from (Options.BinDir), "" for the installed
	// ones; the MySQL family gives it to its programs as --basedir.
	base string
	// product and version are what the server binary's --version says, where it is read
	// (the MySQL family from a basedir): MariaDB, MySQL or Percona Server, "8.0.33".
	product Product
	version string
	// release is that version as numbers (the MySQL family from a basedir).
	release serverVersion
}

func kindOf(kind Kind) (flavor, error) {
	switch kind {
	case Postgres:
		return pgFlavor{}, nil
	case MariaDB:
		return mariaFlavor{}, nil
	case FerretDB:
		return ferretFlavor{}, nil
	case Mongod:
		return mongodFlavor{}, nil
	}
	return nil, fmt.Errorf("unknown server kind %q (known: %s, %s, %s, %s)", kind, Postgres, MariaDB, FerretDB, Mongod)
}

// Available reports whether the binaries of kind are installed; the error names the missing
// binary and the command that installs it, e.g.
// "postgres not found on PATH or in /usr/lib/postgresql/*/bin (install: apt-get install postgresql)".
func Available(kind Kind) error {
	k, err := kindOf(kind)
	if err != nil {
		return err
	}
	_, err = k.binaries()
	return err
}

// CheckSettings validates setting names (and values, where it can be done cheaply without
// starting a server) against the installed server, or the one in binDir (Options.BinDir): an unknown name is an error that names it
// (e.g. "postgres: unknown server setting \"shared_bufers\""). Used before a run starts. The
// setting "port" must be a port from 1024 that is free on 127.0.0.1 now.
//
// PostgreSQL: names from `postgres --describe-config` (names with a dot, which belong to
// extensions, are not checked), values by `postgres -C` on an empty configuration. MariaDB:
// names from `mariadbd --verbose --help` (with the plugins the settings load; "-" and "_" are
// the same, a "loose-" prefix is not checked), values by mariadbd's own option parser.
func CheckSettings(kind Kind, binDir string, settings map[string]string) error {
	k, err := kindOf(kind)
	if err != nil {
		return err
	}
	k, bins, err := resolveFlavor(k, binDir)
	if err != nil {
		return err
	}
	port, list, err := splitSettings(k, settings)
	if err != nil {
		return err
	}
	if err := checkTCP(k, port); err != nil {
		return err
	}
	if port > 0 {
		if err := checkPortFree("127.0.0.1", port); err != nil {
			return fmt.Errorf("%s: setting port: %w", kind, err)
		}
	}
	return k.checkSettings(bins, list)
}

// binDirFlavor is a flavor whose binaries can come from a directory of the user's choosing.
type binDirFlavor interface {
	binariesIn(dir string) (binaries, error)
	// dirSetting names the engines' setting of that directory in messages (bindir, basedir).
	dirSetting() string
}

// productFlavor is a flavor whose kind has several products (MariaDB, MySQL, Percona Server):
// the binaries found tell which flavor runs them.
type productFlavor interface {
	forBinaries(b binaries) flavor
}

// tcpRefuser is a flavor that listens on its socket only: it says why a port is refused.
type tcpRefuser interface {
	refuseTCP() string
}

// resolveFlavor returns the binaries of k (findBinaries) and the flavor that runs them.
func resolveFlavor(k flavor, dir string) (flavor, binaries, error) {
	bins, err := findBinaries(k, dir)
	if err != nil {
		return nil, binaries{}, err
	}
	if p, ok := k.(productFlavor); ok {
		k = p.forBinaries(bins)
	}
	return k, bins, nil
}

// checkTCP refuses a TCP port for a flavor that listens on its socket only.
func checkTCP(k flavor, port int) error {
	if r, ok := k.(tcpRefuser); ok && port > 0 {
		return fmt.Errorf("%s: setting port: %s", k.kind(), r.refuseTCP())
	}
	return nil
}

// findBinaries returns k's binaries: the installed ones, or dir's (Options.BinDir).
func findBinaries(k flavor, dir string) (binaries, error) {
	if dir == "" {
		return k.binaries()
	}
	b, ok := k.(binDirFlavor)
	if !ok {
		return binaries{}, fmt.Errorf("%s: setting bindir: a %s server is taken from its installed binaries only", k.kind(), k.kind())
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return binaries{}, fmt.Errorf("%s: setting %s: %s is not a directory", k.kind(), b.dirSetting(), dir)
	}
	return b.binariesIn(dir)
}

// CheckBinDir reports whether dir holds a server of kind (Options.BinDir).
func CheckBinDir(kind Kind, dir string) error {
	k, err := kindOf(kind)
	if err != nil {
		return err
	}
	_, err = findBinaries(k, dir)
	return err
}

// unknownSettings formats the error for unknown setting names.
func unknownSettings(kind Kind, names []string) error {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return fmt.Errorf("%s: unknown server setting %s", kind, q[0])
	}
	return fmt.Errorf("%s: unknown server settings %s", kind, strings.Join(q, ", "))
}

// CheckDataDir reports whether a managed server of kind can use dir, an existing directory:
// the user the server runs as (see Start) must be able to search every directory from / down
// to dir. The error says which directory blocks it and how to fix it.
func CheckDataDir(kind Kind, dir string) error {
	k, err := kindOf(kind)
	if err != nil {
		return err
	}
	id, err := serverIdentity(k.osUser())
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	if err := id.checkReach(dir); err != nil {
		return fmt.Errorf("%s: the server runs as %s, which cannot reach the data directory %s: %w", kind, id, dir, err)
	}
	return nil
}
