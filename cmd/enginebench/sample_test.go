package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/sample"
)

// TestSampleBadInput: a missing or dead process, a bad pid file, a missing data directory, a
// negative duration and a sample directory that holds files are refused before any work: one
// line, exit 2, nothing written.
func TestSampleBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	me := strconv.Itoa(os.Getpid())
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	noPID := strconv.Itoa(pidMax(t) + 1)
	for _, c := range []struct {
		want string
		args []string
	}{
		{"give the DBMS's main process: --pid PID or --pid-file FILE", []string{"--data-dir", dir}},
		{"--pid and --pid-file name the same process", []string{"--pid", me, "--pid-file", file("a.pid", me), "--data-dir", dir}},
		{"give the DBMS's data directory: --data-dir DIR", []string{"--pid", me}},
		{"--pid " + noPID + ": no such process on this host", []string{"--pid", noPID, "--data-dir", dir}},
		{"--pid-file " + file("dead.pid", noPID+"\n/var/lib/x\n") + ": process " + noPID + ": no such process on this host",
			[]string{"--pid-file", filepath.Join(dir, "dead.pid"), "--data-dir", dir}},
		{`its first line "garbage" is not a process id`, []string{"--pid-file", file("bad.pid", "garbage\n"), "--data-dir", dir}},
		{"--pid-file: open " + filepath.Join(dir, "none.pid") + ": no such file", []string{"--pid-file", filepath.Join(dir, "none.pid"), "--data-dir", dir}},
		{"--data-dir " + filepath.Join(dir, "nodir") + ": no such directory", []string{"--pid", me, "--data-dir", filepath.Join(dir, "nodir")}},
		{"--data-dir " + filepath.Join(dir, "a.pid") + ": no such directory", []string{"--pid", me, "--data-dir", filepath.Join(dir, "a.pid")}},
		{"--duration -1s: want a duration of 0", []string{"--pid", me, "--data-dir", dir, "--duration", "-1s"}},
		{"results directory " + full + " is not empty", []string{"--pid", me, "--data-dir", dir, "--out", full}},
		{`invalid argument "x" for "--pid"`, []string{"--pid", "x", "--data-dir", dir}},
		{`unknown command "extra"`, []string{"--pid", me, "--data-dir", dir, "extra"}},
	} {
		t.Run(c.want, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "sample")
			args := append([]string{"sample"}, c.args...)
			if !slices.Contains(args, "--out") {
				args = append(args, "--out", out)
			}
			runBad(t, c.want, args...)
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the refused sample made %s", out)
			}
		})
	}
}

// pidMax returns the largest process id of this host.
func pidMax(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSampleOnManagedPostgres: `enginebench sample` (the binary, a child process) beside a real
// PostgreSQL under load records rows that show the server's CPU and the data directory's size;
// a SIGTERM stops it with status 0, a complete samples.csv and sample.json's ended.
func TestSampleOnManagedPostgres(t *testing.T) {
	integration(t, "starts a server")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	out := filepath.Join(t.TempDir(), "sample")
	r := startRun(t, "sample", "--pid-file", filepath.Join(srv.DataDir(), "postmaster.pid"), "--data-dir", srv.DataDir(), "--out", out)

	ctx, cancel := context.WithCancel(context.Background())
	loaded := make(chan error, 1)
	go func() { loaded <- loadPostgres(ctx, srv.DSN()) }()
	defer func() {
		cancel()
		if err := <-loaded; err != nil {
			t.Errorf("load: %v", err)
		}
	}()

	var rows []map[string]string
	r.waitFor(t, "a row with the server's CPU and the data directory's size", func() bool {
		rows = readSamples(t, out, false)
		return slices.ContainsFunc(rows, func(row map[string]string) bool {
			cpu, err1 := strconv.ParseFloat(row[measure.KeyDBCPU], 64)
			gb, err2 := strconv.ParseFloat(row[measure.KeyDBGB2], 64)
			return err1 == nil && err2 == nil && cpu > 0 && gb > 0
		})
	})
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitOf(t, r); code != 0 {
		t.Fatalf("sample: exit %d after SIGTERM, want 0; stderr:\n%s", code, r.stderr.String())
	}
	final := readSamples(t, out, true)
	if len(final) <= len(rows) {
		t.Errorf("%d rows after SIGTERM, %d before: want the last row up to the signal", len(final), len(rows))
	}
	var meta sample.Meta
	if b, err := os.ReadFile(filepath.Join(out, sample.MetaFile)); err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("sample.json: %v: %s", err, b)
	}
	last, _ := strconv.ParseInt(final[len(final)-1][sample.TimeColumn], 10, 64)
	if meta.Kind != sample.Kind || meta.DBMSPID != srv.PID() || meta.DataDir != srv.DataDir() || meta.Ended == nil || meta.Ended.UnixMilli() < last {
		t.Errorf("sample.json: %+v; want the server's pid %d, its data directory and ended at or after the last row (%d)", meta, srv.PID(), last)
	}
	if dev, err := measure.DeviceOf(srv.DataDir()); err == nil && meta.Device != dev.Name {
		t.Errorf("device %q, want %q", meta.Device, dev.Name)
	}
}

// readSamples returns samples.csv's rows in out as maps by column; it fails the test if a
// line is not complete, except, while the sampler runs (complete false), a last line still
// being written.
func readSamples(t *testing.T, out string, complete bool) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, sample.SamplesFile))
	if err != nil {
		if complete {
			t.Fatal(err)
		}
		return nil
	}
	text := string(b)
	if !strings.HasSuffix(text, "\n") {
		if complete {
			t.Fatalf("samples.csv does not end with a newline: %q", text)
		}
		text = text[:strings.LastIndex(text, "\n")+1]
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil
	}
	header := strings.Split(lines[0], ",")
	if header[0] != sample.TimeColumn || !slices.Contains(header, measure.KeyDBCPU) || !slices.Contains(header, measure.KeyDBGB2) {
		t.Fatalf("header %q", lines[0])
	}
	var rows []map[string]string
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(header) {
			t.Fatalf("row %q: %d fields, the header has %d", l, len(f), len(header))
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = f[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// loadPostgres inserts rows into a table of the server dsn until ctx ends.
func loadPostgres(ctx context.Context, dsn string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE sampled (id bigint, pad text)"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	for ctx.Err() == nil {
		_, err := db.ExecContext(ctx, "INSERT INTO sampled SELECT g, md5(g::text) FROM generate_series(1, 20000) g")
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("insert: %w", err)
		}
	}
	return nil
}
