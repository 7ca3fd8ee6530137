package main

import (
	"context"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/registry"
)

// TestDocBadInput: a document engine's DSN that does not parse or reaches no server, and a
// configuration asking FerretDB for what it does not do, are one-line errors with exit status 2
// before any work; the DSN's password is never printed.
func TestDocBadInput(t *testing.T) {
	const pw = "m0ngosecret"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"DSN that does not parse", []string{"--engines", "mongodb", "--dsn", "mongodb://u:" + pw + "@[::1"}, "does not parse as a mongodb:// URI"},
		{"DSN of another scheme", []string{"--engines", "mongodb", "--dsn", "postgres://u:" + pw + "@h/db"}, "must be a mongodb:// or mongodb+srv:// URI"},
		{"DSN that reaches no server", []string{"--engines", "mongodb", "--dsn", "mongodb://u:" + pw + "@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300"},
			"mongodb: ping the server"},
		{"transactions on FerretDB", []string{"--engines", "ferretdb", "--set", "ferretdb.transactions=true"}, "multi-document transactions (it has none)"},
		{"a write concern FerretDB ignores", []string{"--engines", "ferretdb", "--set", "ferretdb.write_concern=majority"}, "ignores them"},
		{"hints on FerretDB", []string{"--engines", "ferretdb", "--set", "ferretdb.hints=send"}, "index hints (it ignores them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "--scale", "tiny", "--out", dir + "/r"}, c.args...)
			if !strings.Contains(strings.Join(c.args, " "), "--dsn") {
				args = append(args, "--data-dir", dir+"/d")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q: want %d and one line with %q", code, stderr, exitUsage, c.want)
			}
			if strings.Contains(stdout+stderr, pw) {
				t.Errorf("the password is printed:\n%s%s", stdout, stderr)
			}
		})
	}
}

// collectionsOn returns the collections of the benchmark database of the existing document
// server dsn.
func collectionsOn(t *testing.T, eng, dsn string) []string {
	t.Helper()
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: eng, Engine: eng, DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	names, err := e.(doc.DB).Collections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// ferretServer is an existing FerretDB on SQLite, started for a test as a user's own.
func ferretServer() existingServer {
	return existingServer{"ferretdb", server.FerretDB, map[string]string{"handler": "sqlite"}}
}
