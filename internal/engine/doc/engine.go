package doc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/redact"
)

// Bounds of the engine's own calls.
const (
	alivePingTimeout = 3 * time.Second
	// closeTimeout bounds the driver's Disconnect, which waits for the connections in use: one
	// stuck on a frozen server (a stalled step) is given up on, and the server then stopped.
	closeTimeout = 5 * time.Second
)

// The data directory of a managed FerretDB holds the FerretDB server's directory and, on
// PostgreSQL, the postgres server's.
const (
	ferretDir   = "ferretdb"
	postgresDir = "postgres"
)

// docEngine is an open engine of the family: the connection and, when managed, its servers.
type docEngine struct {
	*conn
	name     string
	info     ServerInfo
	settings map[string]string
	srv      *server.Server // the managed server (FerretDB, or mongod); nil for an existing one
	pg       *server.Server // managed postgres under FerretDB; nil on SQLite
	dbPID    int            // existing server: Config.DBPID
	// dataDirs are the directories, relative to the data directory, of the managed servers'
	// stores (IsDataFile).
	dataDirs []string
	secrets  []string // the DSN and its password: never in a message

	closeOnce sync.Once
	closeErr  error
}

// openFerretDB starts a managed FerretDB (and its postgres server on PostgreSQL) in cfg.DataDir
// and connects to it, or connects to an existing FerretDB given by cfg.DSN.
func openFerretDB(ctx context.Context, cfg engine.Config, defs []engine.Setting) (engine.Engine, error) {
	if cfg.DSN != "" {
		return openExisting(ctx, "ferretdb", cfg, defs)
	}
	settings := engine.MergeSettings(defs, cfg.Settings)
	c, pool, err := concernOf(settings)
	if err != nil {
		return nil, fmt.Errorf("ferretdb: %w", err)
	}
	e := &docEngine{name: "ferretdb", settings: settings}
	if err := e.startManaged(ctx, cfg, settings[setBackend]); err != nil {
		return nil, errors.Join(err, e.stopServers())
	}
	if e.conn, err = dial(ctx, e.srv.DSN(), c, pool); err != nil {
		return nil, errors.Join(fmt.Errorf("ferretdb: %w", err), e.stopServers())
	}
	if e.info, err = e.serverInfo(ctx); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return e, nil
}

// startManaged starts the servers of a managed FerretDB on backend.
func (e *docEngine) startManaged(ctx context.Context, cfg engine.Config, backend string) error {
	if cfg.DataDir == "" {
		return errors.New("ferretdb: open: no data directory")
	}
	// The servers run as their own user (package server), which must pass through the
	// configuration's directory to theirs below it; it need not list it.
	if err := searchable(cfg.DataDir); err != nil {
		return fmt.Errorf("ferretdb: %w", err)
	}
	opts := func(dir string, settings map[string]string) (server.Options, error) {
		p := filepath.Join(cfg.DataDir, dir)
		if err := os.Mkdir(p, 0o700); err != nil {
			return server.Options{}, fmt.Errorf("ferretdb: %w", err)
		}
		return server.Options{DataDir: p, Settings: settings, Log: cfg.Log, Keep: cfg.Keep, Abort: cfg.Abort, Cgroup: cfg.Cgroup}, nil
	}
	flags := map[string]string{"handler": backend}
	if backend == "postgresql" {
		o, err := opts(postgresDir, nil)
		if err != nil {
			return err
		}
		if e.pg, err = server.Start(ctx, server.Postgres, o); err != nil {
			return fmt.Errorf("ferretdb: start its postgres server: %w", err)
		}
		flags["postgresql-url"] = server.FerretPostgresURL(e.pg)
		e.dataDirs = []string{postgresDir + "/base/", postgresDir + "/pg_wal/"}
	} else {
		e.dataDirs = []string{ferretDir + "/sqlite/"}
	}
	o, err := opts(ferretDir, flags)
	if err != nil {
		return err
	}
	if e.srv, err = server.Start(ctx, server.FerretDB, o); err != nil {
		return fmt.Errorf("ferretdb: start the managed server: %w", err)
	}
	return nil
}

// openMongod starts a managed mongod in cfg.DataDir with the server settings (all of settings
// but client's) and connects to it.
func openMongod(ctx context.Context, cfg engine.Config, defs, client []engine.Setting) (engine.Engine, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("mongodb: open: no data directory")
	}
	settings := engine.MergeSettings(defs, cfg.Settings)
	c, pool, err := concernOf(settings)
	if err != nil {
		return nil, fmt.Errorf("mongodb: %w", err)
	}
	vars := map[string]string{}
	for k, v := range settings {
		if !slices.ContainsFunc(client, func(s engine.Setting) bool { return s.Name == k }) {
			vars[k] = v
		}
	}
	e := &docEngine{name: "mongodb", settings: settings, dataDirs: []string{"db/"}}
	e.srv, err = server.Start(ctx, server.Mongod, server.Options{DataDir: cfg.DataDir, Settings: vars, Log: cfg.Log,
		Keep: cfg.Keep, Abort: cfg.Abort, Cgroup: cfg.Cgroup})
	if err != nil {
		return nil, fmt.Errorf("mongodb: start the managed mongod: %w", err)
	}
	if e.conn, err = dial(ctx, e.srv.DSN(), c, pool); err != nil {
		return nil, errors.Join(fmt.Errorf("mongodb: %w", err), e.stopServers())
	}
	if e.info, err = e.serverInfo(ctx); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	if err := checkGaps("mongodb", e.info, c); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return e, nil
}

// openExisting connects to an existing server by cfg.DSN and checks that it is what the
// engine name says and that it does what the configuration asks for.
func openExisting(ctx context.Context, name string, cfg engine.Config, defs []engine.Setting) (engine.Engine, error) {
	if cfg.DSN == "" {
		return nil, fmt.Errorf("%s: give the server with --dsn (a mongodb:// URI)", name)
	}
	settings := engine.MergeSettings(defs, cfg.Settings)
	c, pool, err := concernOf(settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	e := &docEngine{name: name, settings: settings, dbPID: cfg.DBPID, secrets: redact.Secrets(cfg.DSN)}
	if e.conn, err = dial(ctx, cfg.DSN, c, pool); err != nil {
		return nil, e.redact(fmt.Errorf("%s: %w", name, err))
	}
	if e.info, err = e.serverInfo(ctx); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	isFerret := e.info.Product == "FerretDB"
	switch {
	case name == "mongodb" && isFerret:
		err = fmt.Errorf("mongodb: the server is FerretDB %s, not MongoDB: run it as --engines ferretdb, so that its results are named FerretDB's", e.info.Version)
	case name == "ferretdb" && !isFerret:
		err = fmt.Errorf("ferretdb: the server is %s %s, not FerretDB: run it as --engines mongodb", e.info.Product, e.info.Version)
	default:
		err = checkGaps(name, e.info, c)
	}
	if err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return existingEngine{e}, nil
}

// serverInfo asks the server who it is: buildInfo, serverStatus's storage engine and hello's
// replica set.
func (e *docEngine) serverInfo(ctx context.Context) (ServerInfo, error) {
	var build struct {
		Version         string `bson:"version"`
		FerretDBVersion string `bson:"ferretdbVersion"`
		PSMDBVersion    string `bson:"psmdbVersion"`
	}
	if err := e.command(ctx, true, bson.D{{Key: "buildInfo", Value: 1}}, &build); err != nil {
		return ServerInfo{}, e.redact(fmt.Errorf("%s: buildInfo: %w", e.name, err))
	}
	var hello struct {
		SetName string `bson:"setName"`
	}
	if err := e.command(ctx, true, bson.D{{Key: "hello", Value: 1}}, &hello); err != nil {
		return ServerInfo{}, e.redact(fmt.Errorf("%s: hello: %w", e.name, err))
	}
	info := ServerInfo{Product: "MongoDB", Version: build.Version, ReplicaSet: hello.SetName}
	switch {
	case build.FerretDBVersion != "":
		info = ferretGaps(ServerInfo{Product: "FerretDB", Version: strings.TrimPrefix(build.FerretDBVersion, "v")})
		info.StorageEngine = "FerretDB on " + map[string]string{"postgresql": "PostgreSQL", "sqlite": "SQLite"}[e.settings[setBackend]]
		if e.srv == nil {
			info.StorageEngine = "FerretDB (backend not known: an existing server)"
		}
		return info, nil
	case build.PSMDBVersion != "":
		info.Product, info.Version = "Percona Server for MongoDB", build.PSMDBVersion
	}
	var status struct {
		StorageEngine struct {
			Name string `bson:"name"`
		} `bson:"storageEngine"`
	}
	if err := e.command(ctx, true, bson.D{{Key: "serverStatus", Value: 1}}, &status); err != nil {
		return ServerInfo{}, e.redact(fmt.Errorf("%s: serverStatus: %w", e.name, err))
	}
	info.StorageEngine = status.StorageEngine.Name
	return info, nil
}

// Family returns engine.FamilyDoc.
func (e *docEngine) Family() engine.Family { return engine.FamilyDoc }

// Version is the server's product and version, e.g. "FerretDB 1.24.2 on SQLite".
func (e *docEngine) Version() string {
	v := e.info.Product + " " + e.info.Version
	if e.info.StorageEngine != "" && !strings.HasPrefix(e.info.StorageEngine, "FerretDB") {
		v += " (" + e.info.StorageEngine + ")"
	} else if e.srv != nil {
		v += strings.TrimPrefix(e.info.StorageEngine, "FerretDB")
	}
	return v
}

// Settings returns the effective settings and what the server is (a copy, without the DSN).
func (e *docEngine) Settings() map[string]string {
	m := maps.Clone(e.settings)
	m["server_product"] = e.info.Product
	m["storage_engine"] = e.info.StorageEngine
	if e.info.ReplicaSet != "" {
		m["replica_set"] = e.info.ReplicaSet
	}
	return m
}

// Server implements DB.
func (e *docEngine) Server() ServerInfo { return e.info }

// ServerPID is the managed server's process (FerretDB, mongod), or Config.DBPID (0: not on
// this host).
func (e *docEngine) ServerPID() int {
	if e.srv != nil {
		return e.srv.PID()
	}
	return e.dbPID
}

// ServerPIDs are the roots of every process tree of the DBMS: FerretDB's and, on
// PostgreSQL, the postgres server's.
func (e *docEngine) ServerPIDs() []int {
	pids := []int{e.ServerPID()}
	if e.pg != nil {
		pids = append(pids, e.pg.PID())
	}
	return pids
}

// Alive returns nil while the servers run (managed) or the server answers (existing).
func (e *docEngine) Alive() error {
	for _, s := range []*server.Server{e.srv, e.pg} {
		if s != nil {
			if err := s.Alive(); err != nil {
				return err
			}
		}
	}
	if e.srv != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), alivePingTimeout)
	defer cancel()
	if err := e.client.Ping(ctx, nil); err != nil {
		return e.redact(fmt.Errorf("%s server does not answer: %w", e.name, err))
	}
	return nil
}

// IsDataFile counts the managed servers' stores: FerretDB's SQLite files, or postgres's
// database directories and WAL, or mongod's database directory.
func (e *docEngine) IsDataFile(rel string) bool {
	return slices.ContainsFunc(e.dataDirs, func(d string) bool { return strings.HasPrefix(rel, d) })
}

// Close disconnects and stops the managed servers. Safe to call more than once.
func (e *docEngine) Close() error {
	e.closeOnce.Do(func() {
		var errs []error
		if e.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
			if err := e.close(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				errs = append(errs, e.redact(fmt.Errorf("%s: disconnect: %w", e.name, err)))
			}
			cancel()
		}
		errs = append(errs, e.stopServers())
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// stopServers stops the managed FerretDB, then its postgres server.
func (e *docEngine) stopServers() error {
	var errs []error
	for _, s := range []*server.Server{e.srv, e.pg} {
		if s != nil {
			if err := s.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("%s: stop the managed %s server: %w", e.name, s.Kind(), err))
			}
		}
	}
	return errors.Join(errs...)
}

func (e *docEngine) redact(err error) error { return redact.Error(err, e.secrets) }

// searchable lets every user pass through dir (mode o+x), without listing it.
func searchable(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return os.Chmod(dir, fi.Mode().Perm()|0o111)
}

// ManagedDSN is the mongodb:// URI of the managed server's private socket, which holds no
// credential (a bare driver loop beside the engine's, in a benchmark); "" on an existing server.
func (e *docEngine) ManagedDSN() string {
	if e.srv == nil {
		return ""
	}
	return e.srv.DSN()
}
