package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/enginebench/enginebench/internal/redact"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
)

// What the server engines (postgres, innodb, myrocks) share: a managed server started by
// package server or an external one given by a DSN, the pool, liveness, and keeping the DSN
// and its password out of every message.

// alivePingTimeout bounds the ping with which Alive checks an external server.
const alivePingTimeout = 3 * time.Second

// serverCore is the part of a server engine that does not depend on the server's kind.
type serverCore struct {
	name    string // engine name: postgres, innodb, myrocks
	db      *sql.DB
	srv     *server.Server // the managed server; nil for an external one
	dbPID   int            // external: Config.DBPID
	address string         // the server's host:port or socket path (engine.Link)
	version string
	// settings are the effective settings: defaults merged with overrides for a managed
	// server; the documented settings as the server reports them for an external one.
	settings map[string]string
	dialect  Dialect
	secrets  []string // strings that must not appear in a message (the DSN, its password)
	// conns are the network connections of db's pool, for Connect to interrupt.
	conns netConns

	closeOnce sync.Once
	closeErr  error
}

// serverDriverSpec describes a server engine for newServerDriver.
type serverDriverSpec struct {
	name, description string
	kind              server.Kind
	// install names the Client setting of the installation a managed server comes from
	// (bindir, basedir: server.Options.BinDir).
	install   string
	settings  []engine.Setting
	available func() error
	// checkClient, when set, validates the values of the engine's Client settings in overrides.
	checkClient func(overrides map[string]string) error
	// checkDSN validates the syntax of an existing server's DSN (engine.Driver.CheckDSN).
	checkDSN func(dsn string) error
	// capDefaults is engine.Driver.CapDefaults.
	capDefaults func(capBytes int64) map[string]string
	// versioned, when set, returns the settings (defaults merged with overrides) for the
	// version of the server binary they name (setting install, or the installed one), and that
	// version as messages name it ("": not named).
	versioned func(settings, overrides map[string]string) (map[string]string, string, error)
	open      func(ctx context.Context, cfg engine.Config) (engine.Engine, error)
}

// binDir names the setting of the directory a managed PostgreSQL's binaries come from.
const binDir = "bindir"

// baseDir names the setting of the installation a managed MySQL-family server comes from:
// MySQL's basedir, which mysqld and mariadb-install-db take themselves (bin/ or sbin/ with
// the server, share/ and lib/plugin/), where PostgreSQL's programs need only their bin/.
const baseDir = "basedir"

// baseDirSetting is the setting of a managed MySQL-family server's installation.
func baseDirSetting() engine.Setting {
	return engine.Setting{Name: baseDir, Default: "", Client: true, Source: "enginebench's: no reference has it (docs/servers.md, Versions and builds)",
		Doc: "the basedir of a MariaDB, MySQL (5.6, 5.7.6 or later) or Percona Server installation (its bin/ or sbin/ holds mariadbd or mysqld; /usr, /opt/mysql-8.0); \"\": the installed MariaDB"}
}

// binDirSetting is the setting of the directory of a managed server's binaries: an
// installation of product (holding what), for versions and builds side by side
// (docs/servers.md, Versions and builds).
func binDirSetting(product, what, example string) engine.Setting {
	return engine.Setting{Name: binDir, Default: "", Client: true, Source: "enginebench's: no reference has it (docs/servers.md, Versions and builds)",
		Doc: fmt.Sprintf("the directory of a %s installation's binaries (%s; %s); \"\": the installed server", product, what, example)}
}

// portSetting is the setting every managed server takes first: where it listens.
func portSetting() engine.Setting {
	return engine.Setting{Name: "port", Default: "0", Doc: "0: unix socket only; N: also listen on 127.0.0.1:N"}
}

// newServerDriver returns the engine.Driver of a server engine. Its CheckSettings checks the
// Client settings with spec.checkClient, and passes the server settings of the defaults merged
// with the overrides to server.CheckSettings, against the binaries of the setting bindir when
// given (so that settings of a plugin the defaults load, and the published settings a version
// does not know, are found); it accepts overrides of Client settings only, or none, without
// looking for the server's binaries (a run on an external server has none).
func newServerDriver(s serverDriverSpec) engine.Driver {
	return engine.Driver{
		Name:        s.name,
		Family:      engine.FamilySQL,
		Description: s.description,
		Settings:    s.settings,
		Available:   s.available,
		Server:      true,
		Snapshots:   true, // a read transaction (Dialect.BeginSnapshot)
		CheckSettings: func(overrides map[string]string) error {
			if s.checkClient != nil {
				if err := s.checkClient(overrides); err != nil {
					return err
				}
			}
			merged := engine.MergeSettings(s.settings, overrides)
			dir := merged[s.install]
			if len(serverOnly(s.settings, overrides)) == 0 && dir == "" {
				return nil
			}
			what := s.name
			if dir != "" {
				what = fmt.Sprintf("%s (%s=%s)", s.name, s.install, dir)
			}
			if s.versioned != nil {
				var version string
				var err error
				if merged, version, err = s.versioned(merged, overrides); err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				if version != "" {
					what = fmt.Sprintf("%s %s%s", s.name, version, strings.TrimPrefix(what, s.name))
				}
			}
			if err := server.CheckSettings(s.kind, dir, serverOnly(s.settings, merged)); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			return nil
		},
		CheckDataDir: func(dir string) error { return server.CheckDataDir(s.kind, dir) },
		CheckDSN:     s.checkDSN,
		CapDefaults:  s.capDefaults,
		Open:         s.open,
	}
}

// serverOnly returns the settings of m that are server variables: all but the Client settings
// of defs.
func serverOnly(defs []engine.Setting, m map[string]string) map[string]string {
	out := maps.Clone(m)
	for _, d := range defs {
		if d.Client {
			delete(out, d.Name)
		}
	}
	return out
}

// startManaged starts the managed server of cfg with the server variables of settings (defaults
// merged with overrides; defs tells which are Client settings), from the installation the
// setting install names.
func startManaged(ctx context.Context, name string, kind server.Kind, install string, cfg engine.Config, defs []engine.Setting, settings map[string]string) (*server.Server, error) {
	if cfg.DataDir == "" {
		return nil, fmt.Errorf("%s: open: no data directory", name)
	}
	srv, err := server.Start(ctx, kind, server.Options{DataDir: cfg.DataDir, Settings: serverOnly(defs, settings),
		Log: cfg.Log, Keep: cfg.Keep, Abort: cfg.Abort, Cgroup: cfg.Cgroup, BinDir: settings[install]})
	if err != nil {
		return nil, fmt.Errorf("%s: start the managed server: %w", name, err)
	}
	return srv, nil
}

// Build is the managed server's provenance (server.Server.Build); nil on an existing server.
func (c *serverCore) Build() map[string]string {
	if c.srv == nil {
		return nil
	}
	return c.srv.Build()
}

// Family returns engine.FamilySQL.
func (c *serverCore) Family() engine.Family { return engine.FamilySQL }

// Version is the server's version string.
func (c *serverCore) Version() string { return c.version }

// Settings returns the effective settings (a copy). It holds no DSN and no password.
func (c *serverCore) Settings() map[string]string { return maps.Clone(c.settings) }

// SQL returns the connection pool.
func (c *serverCore) SQL() *sql.DB { return c.db }

// Dialect returns the engine's dialect.
func (c *serverCore) Dialect() Dialect { return c.dialect }

// ServerPID is the managed server's main process, or for an external server Config.DBPID
// (0 when it does not run on this host).
func (c *serverCore) ServerPID() int {
	if c.srv != nil {
		return c.srv.PID()
	}
	return c.dbPID
}

var _ engine.BlockingClient = (*serverCore)(nil)

// BlockingClient marks the engine's pool connections as waiting in blocking reads
// (clientConn).
func (c *serverCore) BlockingClient() {}

// Alive returns nil while the server runs. For a managed server, an error says that its
// process exited and gives the last error line of its log; for an external one, that a ping
// failed.
func (c *serverCore) Alive() error {
	if c.srv != nil {
		select {
		case <-c.srv.Exited():
			return fmt.Errorf("%s server (pid %d) exited: %s", c.name, c.srv.PID(), lastLogError(c.srv.LogTail(200)))
		default:
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), alivePingTimeout)
	defer cancel()
	if err := c.db.PingContext(ctx); err != nil {
		return c.redact(fmt.Errorf("%s server does not answer: %w", c.name, err))
	}
	return nil
}

// Close closes the pool and stops a managed server (its data directory stays). It is safe to
// call more than once.
func (c *serverCore) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *serverCore) close() error {
	var errs []error
	if c.db != nil {
		if err := c.db.Close(); err != nil {
			errs = append(errs, c.redact(fmt.Errorf("%s: close the connection pool: %w", c.name, err)))
		}
	}
	if c.srv != nil {
		if err := c.srv.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("%s: stop the managed server: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// redact returns err with every secret of c replaced in its message; errors.Is and errors.As
// still see the errors it wraps.
func (c *serverCore) redact(err error) error { return redact.Error(err, c.secrets) }

// lastLogError returns the last error line of a server log tail: PostgreSQL's FATAL, PANIC
// and ERROR lines, MariaDB's [ERROR] lines; else says that there is none and gives the last
// line.
func lastLogError(tail string) string {
	lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		for _, m := range []string{"PANIC:", "FATAL:", "ERROR:", "[ERROR]"} {
			if strings.Contains(l, m) {
				return l
			}
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return "no error in its log (killed?); its last line: " + l
		}
	}
	return "its log is empty"
}

// netConns returns the network connections of the engine's pool (see Connect).
func (c *serverCore) netConns() *netConns { return &c.conns }
