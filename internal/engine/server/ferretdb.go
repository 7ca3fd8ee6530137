package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// FerretDB is a managed FerretDB server (github.com/FerretDB/FerretDB, 1.24): one process that
// speaks MongoDB's wire protocol and stores in SQLite (files under DataDir/sqlite) or in
// PostgreSQL (Settings "handler" = "postgresql" and "postgresql-url": a server the caller
// started, reached through its private socket, which is why FerretDB runs as the postgres
// user). Its Settings are FerretDB's own flags without the leading "--"; it listens on its
// private unix socket, and on 127.0.0.1's TCP port only with TLS and a client CA (Options.TLS):
// FerretDB 1.24 has no authentication of its own on SQLite, so a plain TCP port would let
// anyone on the host in, while with mutual TLS only the holder of a client key gets in.

// ferretSocket is the socket file's name in the socket directory.
const ferretSocket = "ferretdb.sock"

// ferretInstall says how to get the ferretdb binary.
const ferretInstall = "(build it: make deps, which runs go install of github.com/FerretDB/FerretDB/cmd/ferretdb v1.24)"

type ferretFlavor struct{}

func (ferretFlavor) kind() Kind { return FerretDB }

// osUser: on PostgreSQL FerretDB connects to the managed postgres server's private socket,
// which only the postgres user reaches.
func (ferretFlavor) osUser() string       { return "postgres" }
func (ferretFlavor) socketPrefix() string { return "eb-ferret-" }

func (ferretFlavor) socket(dir string, tcpPort int) (string, int, string) {
	return filepath.Join(dir, ferretSocket), tcpPort, ""
}

func (ferretFlavor) normalize(name string) string { return strings.ToLower(name) }

func (ferretFlavor) reserved(name string) string {
	switch name {
	case "listen-addr", "listen-unix", "listen-tls", "listen-tls-cert-file", "listen-tls-key-file", "listen-tls-ca-file", "port":
		return "the server listens on its private unix socket, and with Options.TLS on 127.0.0.1 (the setting port)"
	case "state-dir", "sqlite-url":
		return "the data directory holds the server's state and its SQLite files"
	case "debug-addr", "telemetry", "mode", "log-format":
		return "a managed server has no debug listener, no telemetry, the normal mode and a text log"
	case "setup-database", "setup-username", "setup-password":
		return "the socket is private; no user is set up"
	}
	return ""
}

// ferretPaths are where ferretdb is looked for: PATH, then where go install puts it.
func ferretPaths() []string {
	var out []string
	if p, err := exec.LookPath("ferretdb"); err == nil {
		out = append(out, p)
	}
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		out = append(out, filepath.Join(gobin, "ferretdb"))
	}
	if gopath := os.Getenv("GOPATH"); gopath != "" {
		out = append(out, filepath.Join(strings.Split(gopath, ":")[0], "bin", "ferretdb"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, "go", "bin", "ferretdb"))
	}
	return out
}

func (ferretFlavor) binaries() (binaries, error) {
	for _, p := range ferretPaths() {
		if isExecutable(p) {
			return binaries{server: resolveExe(p)}, nil
		}
	}
	return binaries{}, fmt.Errorf("ferretdb not found on PATH, in $GOBIN or in $GOPATH/bin %s", ferretInstall)
}

// initialise makes the state and SQLite directories, owned by the server's user, and keeps
// the settings for the command line.
func (ferretFlavor) initialise(_ context.Context, s *Server, _ binaries, id identity, settings []setting) error {
	s.flags = settings
	for _, d := range []string{"state", "sqlite"} {
		p := filepath.Join(s.dataDir, d)
		if err := os.Mkdir(p, 0o700); err != nil {
			return fmt.Errorf("ferretdb: %w", err)
		}
		if err := id.chown(p, 0o700); err != nil {
			return fmt.Errorf("ferretdb: %w", err)
		}
	}
	return nil
}

func (ferretFlavor) serverArgs(s *Server) []string {
	args := []string{"--listen-addr=", "--listen-unix=" + s.sockPath,
		"--state-dir=" + filepath.Join(s.dataDir, "state"),
		"--sqlite-url=file:" + filepath.Join(s.dataDir, "sqlite") + "/",
		"--debug-addr=-", "--telemetry=disable", "--log-format=text"}
	if t := s.tls; t != nil && s.tcpPort > 0 { // checkTLS: a port comes with TLS and a client CA
		args = append(args, fmt.Sprintf("--listen-tls=127.0.0.1:%d", s.tcpPort),
			"--listen-tls-cert-file="+t.cert, "--listen-tls-key-file="+t.key, "--listen-tls-ca-file="+t.ca)
	}
	for _, st := range s.flags {
		args = append(args, "--"+st.name+"="+st.value)
	}
	return args
}

// SocketURI is the mongodb:// URI of a FerretDB or mongod server's unix socket at path.
func SocketURI(path string) string {
	return "mongodb://" + url.QueryEscape(path) + "/?directConnection=true"
}

func (ferretFlavor) ready(ctx context.Context, s *Server) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	opts := options.Client().ApplyURI(SocketURI(s.sockPath)).SetServerSelectionTimeout(2 * time.Second)
	client, err := mongo.Connect(opts)
	if err != nil {
		return "", false, err
	}
	defer client.Disconnect(context.WithoutCancel(ctx))
	var info struct {
		FerretDBVersion string `bson:"ferretdbVersion"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return "", false, err
	}
	return strings.TrimPrefix(info.FerretDBVersion, "v"), true, nil
}

// ferretErrorRE matches FerretDB's error lines in its text log.
var ferretErrorRE = regexp.MustCompile(`level=(ERROR|DPANIC|PANIC|FATAL)`)

// startupErrors: FerretDB logs a backend it cannot reach as errors and still listens.
func (ferretFlavor) startupErrors(log []string) []string {
	var out []string
	for _, l := range log {
		if ferretErrorRE.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// ferretFlagRE matches a flag of ferretdb --help.
var ferretFlagRE = regexp.MustCompile(`^\s+(?:-\w, )?--(?:\[no-\])?([a-z0-9-]+)`)

// checkSettings checks the names against the flags of ferretdb --help.
func (ferretFlavor) checkSettings(bins binaries, settings []setting) error {
	if len(settings) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bins.server, "--help").Output()
	if err != nil {
		return fmt.Errorf("ferretdb: %s --help: %w", bins.server, err)
	}
	known := make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := ferretFlagRE.FindStringSubmatch(sc.Text()); m != nil {
			known[m[1]] = true
		}
	}
	var bad []string
	for _, st := range settings {
		if !known[strings.ToLower(st.name)] {
			bad = append(bad, st.name)
		}
	}
	if len(bad) > 0 {
		return unknownSettings(FerretDB, bad)
	}
	return nil
}

// FerretPostgresURL is the postgresql-url setting of a FerretDB that stores in pg, a managed
// postgres server: its database Database over its private socket, as its superuser.
func FerretPostgresURL(pg *Server) string {
	q := url.Values{"host": {pg.SocketDir()}, "port": {fmt.Sprint(pg.Port())}}
	return "postgres://" + pg.User() + "@/" + Database + "?" + q.Encode()
}
