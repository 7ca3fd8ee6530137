package server

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Mongod is a managed MongoDB server (mongod, or Percona Server for MongoDB's): a standalone
// that listens on its private unix socket only (net.bindIp is the socket's path, which mongod
// takes as a unix domain socket, so it opens no TCP port and no default socket in /tmp). Its
// Settings are mongod's configuration options by their dotted YAML names
// (storage.wiredTiger.engineConfig.cacheSizeGB), written to DataDir/mongod.conf.
//
// It is a standalone, not the one-member replica set the reference runs (replication.replSetName
// in mytools bench/conf/nuc8i7.ub1804/mo44/mongo.conf.c5:14-16): a replica set member is named by
// a TCP host and port, and a managed server has none. Transactions need --dsn of a replica set.
const Mongod Kind = "mongod"

// mongodSocket is the socket file's name in the socket directory.
const mongodSocket = "mongod.sock"

type mongodFlavor struct{}

func (mongodFlavor) kind() Kind           { return Mongod }
func (mongodFlavor) osUser() string       { return "mongodb" }
func (mongodFlavor) socketPrefix() string { return "eb-mongod-" }

func (mongodFlavor) socket(dir string, tcpPort int) (string, int, string) {
	return filepath.Join(dir, mongodSocket), tcpPort, ""
}

// normalize: mongod's option names are case-sensitive.
func (mongodFlavor) normalize(name string) string { return name }

func (mongodFlavor) reserved(name string) string {
	switch {
	case name == "port", strings.HasPrefix(name, "net."):
		return "the server listens on its private unix socket only"
	case name == "storage.dbPath":
		return "the data directory holds the database"
	case strings.HasPrefix(name, "systemLog."), strings.HasPrefix(name, "processManagement."):
		return "the server logs to server.log in its data directory and runs in the foreground"
	case strings.HasPrefix(name, "security."), strings.HasPrefix(name, "replication."):
		return "a managed mongod is a standalone on a private socket, with no users"
	}
	return ""
}

func (mongodFlavor) binaries() (binaries, error) {
	p, err := exec.LookPath("mongod")
	if err != nil {
		return binaries{}, fmt.Errorf("mongod not found on PATH (install MongoDB or Percona Server for MongoDB; or give an existing server with --dsn)")
	}
	return binaries{server: resolveExe(p)}, nil
}

// mongodConf is the configuration file of a managed mongod: enginebench's own lines, then the
// settings, one dotted option a line (YAML that mongod reads as nested options).
func mongodConf(s *Server, settings []setting) string {
	var b strings.Builder
	b.WriteString("# enginebench managed mongod\n")
	fmt.Fprintf(&b, "storage.dbPath: %q\n", filepath.Join(s.dataDir, "db"))
	fmt.Fprintf(&b, "net.bindIp: %q\n", s.sockPath)
	b.WriteString("net.unixDomainSocket.filePermissions: 0700\n")
	for _, st := range settings {
		fmt.Fprintf(&b, "%s: %s\n", st.name, mongodValue(st.value))
	}
	return b.String()
}

// mongodValue writes a value as YAML: numbers and booleans as they are, anything else quoted.
func mongodValue(v string) string {
	if v == "true" || v == "false" {
		return v
	}
	if _, err := fmt.Sscanf(v, "%g", new(float64)); err == nil && !strings.ContainsAny(v, " :#") {
		return v
	}
	return fmt.Sprintf("%q", v)
}

func (mongodFlavor) initialise(_ context.Context, s *Server, _ binaries, id identity, settings []setting) error {
	if s.tcpPort > 0 {
		return fmt.Errorf("mongod: setting port: a managed mongod listens on its private unix socket only")
	}
	db := filepath.Join(s.dataDir, "db")
	if err := os.Mkdir(db, 0o700); err != nil {
		return fmt.Errorf("mongod: %w", err)
	}
	if err := id.chown(db, 0o700); err != nil {
		return fmt.Errorf("mongod: %w", err)
	}
	conf := filepath.Join(s.dataDir, "mongod.conf")
	if err := os.WriteFile(conf, []byte(mongodConf(s, settings)), 0o600); err != nil {
		return fmt.Errorf("mongod: %w", err)
	}
	return id.chown(conf, 0o600)
}

func (mongodFlavor) serverArgs(s *Server) []string {
	return []string{"--config", filepath.Join(s.dataDir, "mongod.conf")}
}

func (mongodFlavor) ready(ctx context.Context, s *Server) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(SocketURI(s.sockPath)).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		return "", false, err
	}
	defer client.Disconnect(context.WithoutCancel(ctx))
	var info struct {
		Version string `bson:"version"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return "", false, err
	}
	return info.Version, true, nil
}

// startupErrors: mongod refuses a bad configuration by exiting.
func (mongodFlavor) startupErrors([]string) []string { return nil }

// checkSettings: mongod has no option to check a configuration without starting; its names are
// checked when it starts, which fails with mongod's own message.
func (mongodFlavor) checkSettings(binaries, []setting) error { return nil }
