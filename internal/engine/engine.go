// Package engine holds what both engine families share: the engine configuration, the Engine
// interface, optional capabilities checked at run time, and the registry of engines by name.
//
// An engine is an SQL engine (package sqldb), an ordered key-value engine (package kv) or a
// document database (package doc).
// Workloads implement their operations once per family and type-switch on the opened engine.
package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/enginebench/enginebench/internal/cgroup"
)

// Family is the kind of interface an engine offers to workloads.
type Family string

// The engine families.
const (
	FamilySQL Family = "sql"
	FamilyKV  Family = "kv"
	FamilyDoc Family = "doc"
)

// Config is one named engine configuration of a run.
type Config struct {
	// Name labels the configuration in results; unique within a run (with --engines, the engine's name).
	Name string
	// Engine is the registered engine name.
	Engine string
	// Settings overrides the engine's default settings by name; unknown names are an error.
	Settings map[string]string
	// DataDir is the directory that holds this configuration's data files. It exists and is
	// empty, except with DSN: then it is the existing server's data directory, which is only
	// measured (its device and size), never written or removed, or "" when unknown.
	DataDir string
	// DSN, for a server engine, connects to an existing server instead of starting a managed
	// one. It may hold credentials: it is never printed, logged or written to results.
	DSN string
	// DBPID is the PID of an existing server's main process on this host, whose process tree
	// is charged as the DBMS's CPU and IO; 0 when unknown (then they are not available).
	DBPID int
	// Keep keeps a managed server's data directory (and its logs) after it is stopped.
	Keep bool
	// Log receives an engine's occasional messages (a managed server starting and stopping);
	// nil discards them.
	Log io.Writer
	// MemoryLimit is the configuration's memory cap in bytes (the setting memory_limit or
	// --memory-limit; docs/memory.md); 0: none. The run enforces it through Cgroup.
	MemoryLimit int64
	// Cgroup is the memory-capped group of a configuration with MemoryLimit: a managed server
	// starts its process tree in it (the run adds its own process for an embedded engine).
	// Nil: no cap.
	Cgroup *cgroup.Group
	// Abort is closed when the user asks to stop at once (a second Ctrl-C): a managed server is
	// killed at once instead of shut down. Nil: never.
	Abort <-chan struct{}
}

// Engine is an open engine instance. Concrete engines also implement sqldb.DB, kv.DB or doc.DB.
type Engine interface {
	// Family tells which family interface the engine implements.
	Family() Family
	// Version is the engine's version string, e.g. "3.46.1" for SQLite.
	Version() string
	// Settings is every effective setting (defaults merged with overrides), for run.json.
	// It never contains credentials.
	Settings() map[string]string
	// Close releases the engine; data files stay in the data directory.
	Close() error
}

// Cleaner is implemented by engines that can reduce their debt (flush, compact, checkpoint,
// vacuum, analyze) before the read steps of a workload.
type Cleaner interface {
	// Cleanup reduces the debt, as the reference's cleanup does for the engine. It calls
	// h.Wait at most once, at the point where the reference waits (InnoDB: with its dirty-page
	// settings lowered and its ANALYZE TABLEs running); when it does not, the caller waits
	// after it returns. It says what it did through h.Note. It stops when ctx is done.
	Cleanup(ctx context.Context, h CleanupHooks) error
}

// CleanupHooks connect an engine's Cleanup to its caller. The zero value waits for nothing and
// drops the notes.
type CleanupHooks struct {
	// Wait blocks until the caller's wait has passed (at once when it has passed already), or
	// until ctx is done, then returns ctx's error.
	Wait func(ctx context.Context) error
	// Note records one thing the cleanup did, such as the statements it ran and their seconds.
	// Cleanup calls it from one goroutine at a time.
	Note func(note string)
}

// WaitNow calls h.Wait, or returns ctx's error when h has no Wait.
func (h CleanupHooks) WaitNow(ctx context.Context) error {
	if h.Wait == nil {
		return ctx.Err()
	}
	return h.Wait(ctx)
}

// Notef formats a note and hands it to h.Note, if set.
func (h CleanupHooks) Notef(format string, args ...any) {
	if h.Note != nil {
		h.Note(fmt.Sprintf(format, args...))
	}
}

// LogResetter is implemented by managed servers that keep a binary log. ResetLog removes it
// (MySQL's RESET MASTER), as the Insert Benchmark's scripts do before and after every step so
// that the log does not fill the disk. Engines on an existing server (--dsn) never remove its
// logs: there ResetLog does nothing.
type LogResetter interface {
	ResetLog(ctx context.Context) error
}

// Statser is implemented by engines that expose internal counters (engine debt: compaction
// backlog, WAL size, purge lag). Keys are stable snake_case names.
type Statser interface {
	Stats(ctx context.Context) (map[string]float64, error)
}

// DataFiler is implemented by engines whose data directory holds files other than the
// database's own: the database size dbgb1 counts only the files for which IsDataFile (given a
// slash-separated path relative to the data directory) reports true. The database's own files
// are its tables and indexes and, where committed data lives in it until a checkpoint or flush,
// its WAL (as the reference counts a RocksDB directory); not server logs or shared-memory
// files. Without it, dbgb1 counts every file in the data directory.
type DataFiler interface {
	IsDataFile(rel string) bool
}

// DatabaseSizer is implemented by engines that tell the size of the benchmark database's own
// files themselves, also when the data directory is unknown or holds other databases (a
// server given by Config.DSN): DatabaseBytes returns the bytes of the benchmark database's
// tables and indexes (what each engine counts is in docs/efficiency.md). dbgb1 is
// DatabaseBytes where the engine implements it, else the DataFiler files; an error leaves
// dbgb1 unmeasured.
type DatabaseSizer interface {
	DatabaseBytes(ctx context.Context) (int64, error)
}

// Server is implemented by engines whose DBMS runs in processes of its own (a managed or
// remote server). ServerPID is the root of its process tree on this host, whose CPU, IO and
// memory are the DBMS's; 0 when it is not on this host. Engines that do not implement Server
// run inside the enginebench process.
type Server interface {
	ServerPID() int
}

// Link is how a server engine's client reaches its server, for the results: the address and
// the TLS of the connection Pinger opened.
type Link struct {
	// Address is the server's host:port or socket path, never a user or a password.
	Address string
	// TLS is the protocol and cipher of the connection ("TLSv1.3 TLS_AES_128_GCM_SHA256"), as
	// the server tells it; "" when the connection is not encrypted.
	TLS string
	// Ping is what one round trip sends ("SELECT 1", MongoDB's "ping" command).
	Ping string
}

// Pinger is implemented by server engines, for the round-trip time measured before a
// configuration's first step. Pinger opens one connection of its own and returns how it
// reaches the server, ping, which makes one round trip on it (SELECT 1; MongoDB's ping
// command), and done, which gives the connection back.
type Pinger interface {
	Pinger(ctx context.Context) (link Link, ping func(context.Context) error, done func() error, err error)
}

// Builder is implemented by engines that know where their binary came from, recorded in
// run.json: a managed server's path, checksum and build options (server.Server.Build); an
// embedded engine's library, its version and build, and its Go module (the Build keys of
// build.go, EmbeddedBuild).
type Builder interface {
	Build() map[string]string
}

// Cgo is implemented by embedded engines whose library is C or C++ reached through cgo
// (sqlite, lmdb, rocksdb, wiredtiger): Go's profiler does not see their frames, so a CPU
// profile of the enginebench process is taken with perf, which does.
type Cgo interface {
	Cgo()
}

// BlockingClient is implemented by server engines whose client connections wait for each
// reply in a blocking system call, an OS thread per waiting client (the SQL servers' pool
// connections, as the references' C and Java clients wait): the runner then gives Go's
// scheduler a processor per client (runner.Runner.WorkersWait).
type BlockingClient interface {
	BlockingClient()
}

// ServerTrees is implemented by server engines whose DBMS is more than one process tree (FerretDB
// and the postgres server it stores in). ServerPIDs are the roots, ServerPID's first; the CPU,
// IO and memory of every tree are the DBMS's.
type ServerTrees interface {
	ServerPIDs() []int
}

// Liveness is implemented by server engines. Alive returns nil while the server runs, or an
// error that says it is gone and why (its exit, the last error of its log), so that a step
// that failed on a lost connection says what happened to the server.
type Liveness interface {
	Alive() error
}

// Discarder is implemented by engines that store nothing (the null engine). Workloads skip
// verification for them and say so in the results.
type Discarder interface {
	Discards() bool
}

// Setting documents one setting an engine accepts.
type Setting struct {
	Name    string
	Default string
	Doc     string
	// Source says where the default comes from (e.g. the published configuration file it
	// follows, and how it was translated or scaled); empty for the engine's own choices.
	Source string
	// Client marks a setting of a server engine that is not a server variable but the
	// engine's own (e.g. the storage engine of its tables): it is never written to a server's
	// configuration, and is accepted with Config.DSN too.
	Client bool
}

// Driver describes a registered engine and opens it.
type Driver struct {
	Name        string
	Family      Family
	Description string
	// Settings lists every accepted setting with its default; the registry rejects other names.
	Settings []Setting
	// Available returns nil when the engine can run on this machine, or an error that names what
	// is missing and the command that enables it. Nil means always available.
	Available func() error
	// CheckSettings, when set, validates the values of overrides without opening anything, so
	// that a bad value is refused before a run starts.
	CheckSettings func(overrides map[string]string) error
	// Server marks an engine that runs in a database server: it accepts Config.DSN for an
	// existing server (Available is then not required), and settings beyond Settings are server
	// variables written to the managed server's configuration file (postgresql.conf, my.cnf),
	// whose names and values CheckSettings validates.
	Server bool
	// Snapshots marks an engine that can hold a read snapshot open for a while on a connection
	// (or handle) of its own, beside the clients: the SQL engines (a read transaction), and the
	// key-value engines that implement kv.Snapshotter. The Insert Benchmark's
	// --htap-transaction-seconds refuses the others before a run starts.
	Snapshots bool
	// CapDefaults, when set, returns the settings the engine takes under a memory cap of
	// capBytes unless the configuration sets them itself: its caches sized to fit in the cap
	// and direct IO where the engine has it, as the IO-bound configurations of the seeds ran
	// (docs/memory.md).
	CapDefaults func(capBytes int64) map[string]string
	// CheckDataDir, when set, reports whether a managed instance can use the data directory
	// dir (which exists), so that one it cannot reach is refused before a run starts.
	CheckDataDir func(dir string) error
	// CheckDSN, when set, validates Config.DSN of a server engine without connecting (its
	// syntax, with the driver's own parser), so that a malformed one is refused before a run
	// starts. Its error never contains the DSN.
	CheckDSN func(dsn string) error
	// Open opens the engine on cfg.DataDir with cfg.Settings merged over the defaults.
	Open func(ctx context.Context, cfg Config) (Engine, error)
}

// Registry maps engine names to drivers. It is built once by the command and read-only after.
type Registry struct {
	drivers map[string]Driver
	order   []string
}

// NewRegistry returns a registry holding drivers; a duplicate or empty name is an error.
func NewRegistry(drivers ...Driver) (*Registry, error) {
	r := &Registry{drivers: make(map[string]Driver, len(drivers))}
	for _, d := range drivers {
		if d.Name == "" || d.Open == nil {
			return nil, fmt.Errorf("engine registry: driver %q has no name or no Open", d.Name)
		}
		if _, dup := r.drivers[d.Name]; dup {
			return nil, fmt.Errorf("engine registry: engine %q registered twice", d.Name)
		}
		r.drivers[d.Name] = d
		r.order = append(r.order, d.Name)
	}
	return r, nil
}

// Names returns the registered engine names in registration order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Drivers returns every driver in registration order.
func (r *Registry) Drivers() []Driver {
	out := make([]Driver, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.drivers[n])
	}
	return out
}

// Lookup returns the driver called name, or an error listing the known engines.
func (r *Registry) Lookup(name string) (Driver, error) {
	d, ok := r.drivers[name]
	if !ok {
		return Driver{}, fmt.Errorf("unknown engine %q (known: %s)", name, strings.Join(r.order, ", "))
	}
	return d, nil
}

// Check validates a configuration without opening anything: the engine exists, is available,
// every setting name is one it accepts (and its value, where the driver checks it), and a DSN
// is well-formed.
func (r *Registry) Check(cfg Config) error {
	d, err := r.Lookup(cfg.Engine)
	if err != nil {
		return err
	}
	if d.Available != nil && !(d.Server && cfg.DSN != "") {
		if err := d.Available(); err != nil {
			return fmt.Errorf("engine %s is not available: %w", d.Name, err)
		}
	}
	if d.Server && cfg.DSN != "" {
		if bad := serverSettings(d, cfg.Settings); len(bad) > 0 {
			return fmt.Errorf("engine %s: settings apply to a managed server only, not to one given by --dsn: %s",
				d.Name, strings.Join(bad, ", "))
		}
		if d.CheckDSN != nil {
			if err := d.CheckDSN(cfg.DSN); err != nil {
				return err
			}
		}
	}
	if d.Server && d.CheckSettings != nil {
		return d.CheckSettings(cfg.Settings)
	}
	if cfg.DSN != "" && !d.Server {
		return fmt.Errorf("engine %s is not a server: --dsn does not apply to it", d.Name)
	}
	known := make(map[string]bool, len(d.Settings))
	for _, s := range d.Settings {
		known[s.Name] = true
	}
	var bad []string
	for k := range cfg.Settings {
		if !known[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		names := make([]string, 0, len(d.Settings))
		for _, s := range d.Settings {
			names = append(names, s.Name)
		}
		return fmt.Errorf("engine %s: unknown setting %s (accepted: %s)", d.Name,
			strings.Join(bad, ", "), strings.Join(names, ", "))
	}
	if d.CheckSettings != nil {
		if err := d.CheckSettings(cfg.Settings); err != nil {
			return err
		}
	}
	return nil
}

// serverSettings returns the names of overrides that are not Client settings of d, sorted.
func serverSettings(d Driver, overrides map[string]string) []string {
	client := make(map[string]bool)
	for _, s := range d.Settings {
		client[s.Name] = s.Client
	}
	var out []string
	for k := range overrides {
		if !client[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Open checks cfg and opens the engine.
func (r *Registry) Open(ctx context.Context, cfg Config) (Engine, error) {
	if err := r.Check(cfg); err != nil {
		return nil, err
	}
	d := r.drivers[cfg.Engine]
	e, err := d.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.Engine, err)
	}
	return e, nil
}

// NotBuilt is the error of an engine behind build tag tag that the binary was built without:
// it names the development package to install and the command that builds the engine in.
func NotBuilt(devPackage, tag string) error {
	return fmt.Errorf("not built into this binary: install %s (make deps) and run make, which builds it in (go build -tags %s)", devPackage, tag)
}

// MergeSettings returns defaults overridden by overrides, as a new map.
func MergeSettings(defaults []Setting, overrides map[string]string) map[string]string {
	m := make(map[string]string, len(defaults))
	for _, s := range defaults {
		m[s.Name] = s.Default
	}
	for k, v := range overrides {
		m[k] = v
	}
	return m
}
