package doc

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
)

// The settings every engine of the family takes: the references' write and read concern,
// journal and transactions (iibench.py --mongo_w, --mongo_j, --mongo_r, --mongo_trx), and the
// client's connection pool.
const (
	setW            = "write_concern"
	setJournal      = "journal"
	setRead         = "read_concern"
	setTransactions = "transactions"
	setPool         = "max_pool_size"
	setHints        = "hints"
	setBackend      = "backend"
)

// concernSettings are the settings of every engine of the family.
func concernSettings() []engine.Setting {
	return []engine.Setting{
		{Name: setW, Default: "1", Client: true, Doc: `write concern w: a number of members, majority, or "" (the server's default)`,
			Source: "iibench.py --mongo_w (default 1)"},
		{Name: setJournal, Default: "false", Client: true, Doc: "acknowledge writes once they are in the journal (j: true)",
			Source: "iibench.py --mongo_j (default false)"},
		{Name: setRead, Default: "local", Client: true, Doc: `read concern level outside transactions: local, available, majority, linearizable, or "" (the server's default); a transaction reads at snapshot`,
			Source: "iibench.py --mongo_r (default local)"},
		{Name: setTransactions, Default: "false", Client: true, Doc: "run each workload's multi-statement units as multi-document transactions (a replica set or sharded cluster only)",
			Source: "iibench.py --mongo_trx (default false)"},
		{Name: setPool, Default: "0", Client: true, Doc: "the driver's connection pool size; 0: the driver's default (100)"},
	}
}

// hintsSetting says whether the workloads' index hints are sent, as the references send them;
// def is the engine's default.
func hintsSetting(def string) engine.Setting {
	return engine.Setting{Name: setHints, Default: def, Client: true,
		Doc:    "send: the queries carry the references' index hints; omit: they carry none (the server plans them)",
		Source: "iibench.py and iibench-mongodb send hints"}
}

// concernOf reads the concern settings of m (defaults merged with overrides); a bad value is
// an error naming the setting.
func concernOf(m map[string]string) (Concern, uint64, error) {
	c := Concern{W: m[setW], Read: m[setRead], Hints: m[setHints] != "omit"}
	if h := m[setHints]; h != "send" && h != "omit" {
		return Concern{}, 0, fmt.Errorf("setting %s: %q is not send or omit", setHints, h)
	}
	var err error
	if c.Journal, err = boolSetting(m, setJournal); err != nil {
		return Concern{}, 0, err
	}
	if c.Transactions, err = boolSetting(m, setTransactions); err != nil {
		return Concern{}, 0, err
	}
	if c.W != "" && c.W != "majority" {
		if n, err := strconv.Atoi(c.W); err != nil || n < 0 {
			return Concern{}, 0, fmt.Errorf("setting %s: %q is not a number of members or majority", setW, c.W)
		}
	}
	switch c.Read {
	case "", "local", "available", "majority", "linearizable", "snapshot":
	default:
		return Concern{}, 0, fmt.Errorf("setting %s: %q is not a read concern level (local, available, majority, linearizable, snapshot)", setRead, c.Read)
	}
	pool, err := strconv.ParseUint(m[setPool], 10, 64)
	if err != nil {
		return Concern{}, 0, fmt.Errorf("setting %s: %q is not a number", setPool, m[setPool])
	}
	return c, pool, nil
}

func boolSetting(m map[string]string, name string) (bool, error) {
	v, err := strconv.ParseBool(m[name])
	if err != nil {
		return false, fmt.Errorf("setting %s: %q is not true or false", name, m[name])
	}
	return v, nil
}

// ferretName is the ferretdb engine's name.
const ferretName = "ferretdb"

// checkGaps refuses a concern that a server with info's gaps would not honour.
func checkGaps(name string, info ServerInfo, c Concern) error {
	var asked []string
	if info.IgnoresConcerns && (c.W != "" && c.W != "1" || c.Journal || c.Read != "" && c.Read != "local") {
		asked = append(asked, "write and read concerns (it ignores them: every write is acknowledged by the one server, every read is local)")
	}
	if info.IgnoresHints && c.Hints {
		asked = append(asked, "index hints (it ignores them; hints=omit sends none)")
	}
	if info.NoTransactions && c.Transactions {
		asked = append(asked, "multi-document transactions (it has none)")
	}
	if len(asked) > 0 {
		return fmt.Errorf("%s: the configuration asks for what %s %s does not do: %s", name, info.Product, info.Version, strings.Join(asked, "; "))
	}
	if c.Transactions && info.ReplicaSet == "" && !info.NoTransactions {
		return fmt.Errorf("%s: setting %s=true: multi-document transactions need a replica set or a sharded cluster; this server is a standalone", name, setTransactions)
	}
	return nil
}

// ferretGaps are FerretDB 1.24's documented gaps.
func ferretGaps(info ServerInfo) ServerInfo {
	info.IgnoresHints, info.IgnoresConcerns, info.NoTransactions = true, true, true
	info.LosesConcurrentUpdates = true
	return info
}

// DriverLosesConcurrentUpdates reports whether every server of the engine d loses concurrent
// updates of one document (ServerInfo.LosesConcurrentUpdates), known before it is opened:
// ferretdb's (the mongodb driver refuses a FerretDB).
func DriverLosesConcurrentUpdates(d engine.Driver) bool {
	return d.Family == engine.FamilyDoc && d.Name == ferretName
}

// checkMongoTLSFiles reads the TLS files of a mongodb URI's options: tlsCAFile must hold a PEM
// certificate, tlsCertificateKeyFile a PEM certificate and its key. The error names the
// option and the file (not a secret), never the URI.
func checkMongoTLSFiles(dsn string) error {
	_, query, ok := strings.Cut(dsn, "?")
	if !ok {
		return nil
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil // the driver's parse refuses it
	}
	for key, vals := range q {
		for _, f := range vals {
			var want []string
			switch strings.ToLower(key) {
			case "tlscafile":
				want = []string{"CERTIFICATE"}
			case "tlscertificatekeyfile":
				want = []string{"CERTIFICATE", "PRIVATE KEY"}
			default:
				continue
			}
			if err := checkPEMFile(f, want); err != nil {
				return fmt.Errorf("the DSN's %s: %w (a PEM file: tlsCAFile the CA that signed the server's certificate, tlsCertificateKeyFile a client certificate with its key)", key, err)
			}
		}
	}
	return nil
}

// checkPEMFile checks that the file path holds a PEM block of each kind of want (a block's
// type ends with it: "PRIVATE KEY" is also "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY").
func checkPEMFile(path string, want []string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	for {
		var blk *pem.Block
		if blk, b = pem.Decode(b); blk == nil {
			break
		}
		for _, w := range want {
			if strings.HasSuffix(blk.Type, w) {
				found[w] = true
			}
		}
	}
	for _, w := range want {
		if !found[w] {
			return fmt.Errorf("%s holds no PEM %s", path, strings.ToLower(w))
		}
	}
	return nil
}

// checkMongoDSN checks that dsn parses as a mongodb:// or mongodb+srv:// URI, without
// connecting; the error never holds the DSN.
func checkMongoDSN(dsn string) error {
	if !strings.HasPrefix(dsn, "mongodb://") && !strings.HasPrefix(dsn, "mongodb+srv://") {
		return errors.New("the DSN must be a mongodb:// or mongodb+srv:// URI")
	}
	if err := checkMongoTLSFiles(dsn); err != nil {
		return err
	}
	if strings.HasPrefix(dsn, "mongodb+srv://") {
		return nil // its parse looks up DNS records
	}
	if err := options.Client().ApplyURI(dsn).Validate(); err != nil {
		return errors.New("the DSN does not parse as a mongodb:// URI")
	}
	return nil
}

// FerretDBDriver is the ferretdb engine: a managed FerretDB 1.24 server on SQLite, or on
// PostgreSQL through a managed postgres server (setting backend), or an existing FerretDB by
// DSN. It is FerretDB, not MongoDB's storage engine: results name it so.
func FerretDBDriver() engine.Driver {
	settings := append([]engine.Setting{{Name: setBackend, Default: "sqlite", Client: true,
		Doc: "where the managed FerretDB stores: sqlite (files in its data directory) or postgresql (a managed postgres server beside it)"}},
		append(concernSettings(), hintsSetting("omit"))...)
	return engine.Driver{
		Name:        ferretName,
		Family:      engine.FamilyDoc,
		Description: "FerretDB 1.24: MongoDB's wire protocol over SQLite or PostgreSQL (not MongoDB's storage engine)",
		Settings:    settings,
		Available:   func() error { return server.Available(server.FerretDB) },
		Server:      true,
		CheckSettings: func(overrides map[string]string) error {
			m := engine.MergeSettings(settings, overrides)
			if err := checkKnown("ferretdb", settings, overrides); err != nil {
				return err
			}
			c, _, err := concernOf(m)
			if err != nil {
				return fmt.Errorf("ferretdb: %w", err)
			}
			if b := m[setBackend]; b != "sqlite" && b != "postgresql" {
				return fmt.Errorf("ferretdb: setting %s: %q is not sqlite or postgresql", setBackend, b)
			}
			if m[setBackend] == "postgresql" {
				if err := server.Available(server.Postgres); err != nil {
					return fmt.Errorf("ferretdb: backend postgresql: %w", err)
				}
			}
			return checkGaps("ferretdb", ferretGaps(ServerInfo{Product: "FerretDB", Version: "1.24"}), c)
		},
		CheckDataDir: func(dir string) error { return server.CheckDataDir(server.FerretDB, dir) },
		CheckDSN:     checkMongoDSN,
		Open: func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
			return openFerretDB(ctx, cfg, settings)
		},
	}
}

// mongodConf is the published configuration a managed mongod takes by default: the WiredTiger
// configuration of the reference's MongoDB 4.4 runs, with the cache scaled to this machine.
const mongodConf = "mytools bench/conf/nuc8i7.ub1804/mo44/mongo.conf.c5"

// mongodSettings are the managed mongod's server settings (mongod's dotted option names).
func mongodSettings() []engine.Setting {
	return []engine.Setting{
		{Name: "storage.wiredTiger.engineConfig.cacheSizeGB", Default: "1", Doc: "the WiredTiger cache",
			Source: mongodConf + ":22 (12 on the reference's 16 GB host; 1 here, as the SQL servers' caches are scaled)"},
		{Name: "storage.wiredTiger.collectionConfig.blockCompressor", Default: "none", Doc: "collections' block compression",
			Source: mongodConf + ":20"},
		{Name: "storage.wiredTiger.engineConfig.journalCompressor", Default: "snappy", Doc: "journal compression",
			Source: mongodConf + ":21"},
		{Name: "storage.syncPeriodSecs", Default: "60", Doc: "seconds between checkpoints", Source: mongodConf + ":8"},
		{Name: "operationProfiling.slowOpThresholdMs", Default: "2000", Doc: "slow operations logged", Source: mongodConf + ":13"},
	}
}

// MongoDBDriver is the mongodb engine: an existing MongoDB server (any storage engine; a
// standalone, a replica set or a sharded cluster) by DSN, with --db-pid for its CPU and IO; or,
// where mongod is installed, a managed throwaway standalone on a private socket.
func MongoDBDriver() engine.Driver {
	client := append(concernSettings(), hintsSetting("send"))
	settings := append(slices.Clone(client), mongodSettings()...)
	return engine.Driver{
		Name:        "mongodb",
		Family:      engine.FamilyDoc,
		Description: "MongoDB (or Percona Server for MongoDB): a managed mongod where one is installed, or --dsn mongodb://... (any storage engine, standalone or replica set)",
		Settings:    settings,
		Available:   func() error { return server.Available(server.Mongod) },
		Server:      true,
		CheckSettings: func(overrides map[string]string) error {
			m := engine.MergeSettings(settings, overrides)
			if _, _, err := concernOf(m); err != nil {
				return fmt.Errorf("mongodb: %w", err)
			}
			server := map[string]string{}
			for k, v := range overrides {
				if !slices.ContainsFunc(client, func(s engine.Setting) bool { return s.Name == k }) {
					server[k] = v
				}
			}
			if len(server) == 0 {
				return nil
			}
			return checkMongodSettings(m, client)
		},
		CheckDataDir: func(dir string) error { return server.CheckDataDir(server.Mongod, dir) },
		CheckDSN:     checkMongoDSN,
		Open: func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
			if cfg.DSN != "" {
				return openExisting(ctx, "mongodb", cfg, settings)
			}
			return openMongod(ctx, cfg, settings, client)
		},
	}
}

// checkMongodSettings checks the server settings of m (all but the client ones) against the
// installed mongod.
func checkMongodSettings(m map[string]string, client []engine.Setting) error {
	vars := map[string]string{}
	for k, v := range m {
		if !slices.ContainsFunc(client, func(s engine.Setting) bool { return s.Name == k }) {
			vars[k] = v
		}
	}
	if err := server.CheckSettings(server.Mongod, "", vars); err != nil {
		return fmt.Errorf("mongodb: %w", err)
	}
	return nil
}

// checkKnown refuses settings that are not the engine's: the engines of the family take no
// server variables.
func checkKnown(name string, defs []engine.Setting, overrides map[string]string) error {
	var bad []string
	for k := range overrides {
		if !slices.ContainsFunc(defs, func(s engine.Setting) bool { return s.Name == k }) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	names := make([]string, len(defs))
	for i, s := range defs {
		names[i] = s.Name
	}
	return fmt.Errorf("engine %s: unknown setting %s (accepted: %s)", name, strings.Join(bad, ", "), strings.Join(names, ", "))
}
