package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// TestFerretDBStoresOnEachBackend starts a managed FerretDB on SQLite and on PostgreSQL (a
// managed postgres server reached through its private socket), writes a document through its
// private socket and reads it back, and checks that Stop leaves no socket behind.
func TestFerretDBStoresOnEachBackend(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	for _, backend := range []string{"sqlite", "postgresql"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			settings := map[string]string{"handler": backend}
			if backend == "postgresql" {
				servertest.Require(t, server.Postgres)
				pg := servertest.Start(t, server.Postgres, nil)
				settings["postgresql-url"] = server.FerretPostgresURL(pg)
			}
			srv := servertest.Start(t, server.FerretDB, settings)
			if !strings.HasPrefix(srv.Version(), "1.24") {
				t.Errorf("version %q, want FerretDB 1.24.x", srv.Version())
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			client, err := mongo.Connect(options.Client().ApplyURI(srv.DSN()))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Disconnect(ctx)
			coll := client.Database(server.Database).Collection("t")
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 7}, {Key: "v", Value: "x"}}); err != nil {
				t.Fatalf("insert: %v", err)
			}
			var got struct{ V string }
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 7}}).Decode(&got); err != nil || got.V != "x" {
				t.Fatalf("find: %+v %v", got, err)
			}
			if err := srv.Alive(); err != nil {
				t.Fatal(err)
			}
			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(srv.SocketDir()); !os.IsNotExist(err) {
				t.Errorf("socket directory %s left after Stop: %v", srv.SocketDir(), err)
			}
		})
	}
}

// TestFerretDBRefusesPortAndManagedFlags checks that a managed FerretDB takes no TCP port and
// none of the flags enginebench sets itself, and that an unknown flag is refused by name.
func TestFerretDBRefusesPortAndManagedFlags(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	for _, c := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"listen-addr": "0.0.0.0:27017"}, "managed by enginebench"},
		{map[string]string{"no-such-flag": "1"}, `unknown server setting "no-such-flag"`},
	} {
		err := server.CheckSettings(server.FerretDB, "", c.settings)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckSettings(%v) = %v, want %q", c.settings, err, c.want)
		}
	}
	_, err := server.Start(context.Background(), server.FerretDB, server.Options{DataDir: servertest.DataDir(t), Settings: map[string]string{"port": "27999"}})
	if err == nil || !strings.Contains(err.Error(), "TLS and a client CA") {
		t.Errorf("Start with a port = %v, want a refusal", err)
	}
}

// TestUnreachableBinaryRefused checks that a server binary its unprivileged user cannot reach
// (ferretdb under root's 0700 home, where go install puts it) is refused with a clear error
// instead of a failed exec.
func TestUnreachableBinaryRefused(t *testing.T) {
	servertest.Require(t, server.FerretDB)
	if os.Geteuid() != 0 {
		t.Skip("as another user than root the server runs as that user, who reaches the binary")
	}
	bin, err := exec.LookPath("ferretdb")
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ferretdb"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	_, err = server.Start(context.Background(), server.FerretDB, server.Options{DataDir: servertest.DataDir(t)})
	if err == nil || !strings.Contains(err.Error(), "cannot reach its binary") {
		t.Errorf("Start with an unreachable binary: %v, want a refusal naming it", err)
	}
}
