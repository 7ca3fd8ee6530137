package main

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/netnstest"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/testwait"
)

// This file runs the shards of a run on other hosts made on this machine: each shard in a
// network namespace of its own (internal/netnstest), reaching one managed server over a veth
// pair and TCP, as clients on separate hosts reach a server over their network. The server
// listens on 127.0.0.1 and on the pairs' host-side addresses only, with the run's password,
// which the shards get in their environment (ENGINEBENCH_DSN), never on their command line.

// remoteServer is a managed server of s for shards on hosts: it listens on their pairs (and on
// 127.0.0.1) with a password, and logs each connection with the client's address.
func remoteServer(t *testing.T, s existingServer, hosts ...*netnstest.Host) *server.Server {
	t.Helper()
	settings := maps.Clone(s.settings)
	settings["port"] = strconv.Itoa(freeTCPPort(t))
	if s.kind == server.Postgres {
		settings["log_connections"] = "on"
	} else {
		maps.Copy(settings, servertest.StatementLogSettings(server.MariaDB))
	}
	var listen []netip.Prefix
	for _, h := range hosts {
		listen = append(listen, h.Gateway)
	}
	return servertest.StartWith(t, s.kind, server.Options{Settings: settings, Listen: listen})
}

// freeTCPPort returns a TCP port that is free on 127.0.0.1 now.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tcpDSN returns the DSN of the benchmark database of srv (engine eng) over TCP at addr, with
// the server's password: a credential, for an environment variable only.
func tcpDSN(eng string, srv *server.Server, addr netip.Addr) string {
	if eng == "postgres" {
		return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable",
			addr, srv.Port(), srv.User(), srv.Password(), srv.Database())
	}
	mc := mysql.NewConfig()
	mc.Net, mc.Addr, mc.User, mc.Passwd, mc.DBName = "tcp", net.JoinHostPort(addr.String(), strconv.Itoa(srv.Port())),
		srv.User(), srv.Password(), srv.Database()
	return mc.FormatDSN()
}

// loopback is this host's 127.0.0.1.
var loopback = netip.MustParseAddr("127.0.0.1")

// openTCP opens the benchmark database of srv (engine eng) over 127.0.0.1.
func openTCP(t *testing.T, eng string, srv *server.Server) *sql.DB {
	t.Helper()
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: eng, Engine: eng, DSN: tcpDSN(eng, srv, loopback)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e.(sqldb.DB).SQL()
}

// hostArgs are the arguments of a small Insert Benchmark of 2 clients on the existing server
// of the environment's ENGINEBENCH_DSN, with extra, and its results directory. They give no
// --data-dir: the server's data directory is on another host.
func hostArgs(t *testing.T, eng string, extra ...string) ([]string, string) {
	args, out := tinyArgs(t, eng, append([]string{"--clients", "2", "--rows", "2000", "--rows-l.i1", "500",
		"--steps", "l.i0,l.x,l.i1,qr100,cleanup", "--query-seconds", "2", "--no-calibrate"}, extra...)...)
	i := slices.Index(args, "--data-dir")
	return slices.Delete(args, i, i+2), out
}

// startCmd starts the enginebench run cmd with dsn in its environment, in a directory of its
// own; it is killed at the test's end if still running.
func startCmd(t *testing.T, cmd *exec.Cmd, dsn string) *bgRun {
	t.Helper()
	cmd.Env = append(os.Environ(), "ENGINEBENCH_DSN="+dsn)
	cmd.Dir = t.TempDir()
	r := &bgRun{cmd: cmd}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	return r
}

// startOnHost starts the enginebench binary bin with args in host h, on the server at h's
// gateway (srv, of engine eng).
func startOnHost(t *testing.T, h *netnstest.Host, bin, eng string, srv *server.Server, args ...string) *bgRun {
	t.Helper()
	return startCmd(t, h.Command(bin, args...), tcpDSN(eng, srv, h.Gateway.Addr()))
}

// checkCmdline fails the test if the running process of r shows secret on its command line.
func checkCmdline(t *testing.T, r *bgRun, secret string) {
	t.Helper()
	var b []byte
	// Empty for a moment while ip(8) executes the shard.
	testwait.Until(t, "the shard's command line", time.Minute, func() bool {
		var err error
		if b, err = os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", r.cmd.Process.Pid)); err != nil {
			t.Fatal(err)
		}
		return len(b) > 0
	})
	if !strings.Contains(string(b), "--shard") {
		t.Errorf("pid %d is not the shard: %q", r.cmd.Process.Pid, b)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the server's password is on the command line of pid %d", r.cmd.Process.Pid)
	}
}

// checkNoSecret fails the test if a file of the results directory out holds secret.
func checkNoSecret(t *testing.T, out, secret string) {
	t.Helper()
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the server's password", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkNoSecretIn fails the test if text (a run's output) holds secret.
func checkNoSecretIn(t *testing.T, text, secret string) {
	t.Helper()
	if strings.Contains(text, secret) {
		t.Error("a run's output holds the server's password")
	}
}

// checkLeftNothing fails the test unless no process runs in the hosts; then it removes them
// and fails the test if anything of them (namespace, veth) is left.
func checkLeftNothing(t *testing.T, hosts ...*netnstest.Host) {
	t.Helper()
	for _, h := range hosts {
		if pids, err := h.Processes(); err != nil || len(pids) > 0 {
			t.Errorf("processes %v (%v) still run in the host %s after the shards ended", pids, err, h.Name)
		}
		if err := h.Remove(); err != nil {
			t.Error(err)
		}
		if left, err := h.Left(); err != nil || len(left) > 0 {
			t.Errorf("the host %s left %v (%v)", h.Name, left, err)
		}
	}
}

// clientsSeen fails the test unless the log of srv shows a connection from each of addrs.
func clientsSeen(t *testing.T, srv *server.Server, addrs ...netip.Addr) {
	t.Helper()
	path := srv.LogPath()
	if srv.Kind() == server.MariaDB {
		path = filepath.Join(srv.DataDir(), "general.log")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		re := regexp.MustCompile(`connection received: host=` + regexp.QuoteMeta(a.String()) + ` |Connect\s+root@` + regexp.QuoteMeta(a.String()) + ` on .*TCP/IP`)
		if !re.Match(b) {
			t.Errorf("the server's log %s shows no connection from %s", path, a)
		}
	}
}

// opCounts returns the operation counts of the steps of res, summed into sum: "step op" ->
// count, units and errors; but the queries of a query step, as many as its time allowed.
func opCounts(res *result.Run, sum map[string][3]int64) {
	for _, st := range res.Configs[0].Steps {
		for name, op := range st.Ops {
			if st.Name[0] == 'q' && name == "query" {
				continue
			}
			k := st.Name + " " + name
			c := sum[k]
			sum[k] = [3]int64{c[0] + op.Count, c[1] + op.Units, c[2] + op.Errors}
		}
	}
}

// TestShardsOnHostsMatchOneProcess: two shard processes, each on a host of its own (a network
// namespace reaching one managed server over a veth pair and TCP), make the same tables, with
// the same rows and the same verification, and together the same operations in every step,
// as one process on the server's host running both clients; merged (enginebench merge), they
// are one run with that process's operation and histogram counts; the server saw each shard come
// from its host's address; the password is on no command line and in no result file; no
// process, namespace or veth is left.
func TestShardsOnHostsMatchOneProcess(t *testing.T) {
	integration(t, "makes network namespaces, starts servers and runs of the binary")
	netnstest.Require(t)
	onEachServerKind(t, shardsOnHostsMatch)
}

// shardsOnHostsMatch is TestShardsOnHostsMatchOneProcess on a server of s.
func shardsOnHostsMatch(t *testing.T, s existingServer) {
	eng := s.engine
	hosts := []*netnstest.Host{netnstest.New(t), netnstest.New(t)}
	srv := remoteServer(t, s, hosts...)
	bin := buildBinary(t)
	var runs []*bgRun
	var outs []string
	for i, h := range hosts {
		args, out := hostArgs(t, eng, "--keep", "--shard", fmt.Sprintf("%d/2", i), "--shard-run", "hosts")
		runs, outs = append(runs, startOnHost(t, h, bin, eng, srv, args...)), append(outs, out)
		checkCmdline(t, runs[i], srv.Password()) // ip netns exec's, or once it has run it, the shard's
	}
	for i, r := range runs {
		if code := exitOf(t, r); code != 0 {
			t.Fatalf("shard %d: exit %d; stderr:\n%s", i, code, r.stderr.String())
		}
		checkNoSecretIn(t, r.stderr.String()+r.stdout.String(), srv.Password())
	}
	merged := filepath.Join(t.TempDir(), "merged")
	runOK(t, "merge", outs[0], outs[1], "--out", merged)
	clientsSeen(t, srv, hosts[0].Addr, hosts[1].Addr)
	checkLeftNothing(t, hosts...)
	sharded := map[string][3]int64{}
	for i, out := range outs {
		checkNoSecret(t, out, srv.Password())
		res := loadRun(t, out)
		if res.Shard == nil || res.Shard.Index != i || res.Shard.Count != 2 || res.Status != result.StatusOK {
			t.Fatalf("shard %d: run %s, shard %+v", i, res.Status, res.Shard)
		}
		last := res.Configs[0].Steps[len(res.Configs[0].Steps)-1]
		if last.Verify == nil || !last.Verify.OK || !strings.Contains(last.Verify.Detail, fmt.Sprintf("pi%d", i+1)) {
			t.Errorf("shard %d: verification after the last step: %+v", i, last.Verify)
		}
		opCounts(res, sharded)
	}
	db := openTCP(t, eng, srv)
	if got := tablesOn(t, eng, tcpDSN(eng, srv, loopback)); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable, "pi1", "pi2"}) {
		t.Fatalf("tables after the shards: %v", got)
	}
	rows := []string{digest(t, eng, db, "pi1"), digest(t, eng, db, "pi2")}
	for _, tb := range []string{"pi1", "pi2"} {
		if _, err := db.Exec("DROP TABLE " + tb); err != nil {
			t.Fatal(err)
		}
	}
	args, out := hostArgs(t, eng, "--keep")
	one := startCmd(t, exec.Command(bin, args...), tcpDSN(eng, srv, loopback))
	if code := exitOf(t, one); code != 0 {
		t.Fatalf("one process: exit %d; stderr:\n%s", code, one.stderr.String())
	}
	if whole := []string{digest(t, eng, db, "pi1"), digest(t, eng, db, "pi2")}; !slices.Equal(rows, whole) {
		t.Errorf("two shards on two hosts made %v; one process %v", rows, whole)
	}
	res := loadRun(t, out)
	last := res.Configs[0].Steps[len(res.Configs[0].Steps)-1]
	if last.Verify == nil || !last.Verify.OK || !strings.Contains(last.Verify.Detail, "pi1") || !strings.Contains(last.Verify.Detail, "pi2") {
		t.Errorf("one process: verification after the last step: %+v", last.Verify)
	}
	whole := map[string][3]int64{}
	opCounts(res, whole)
	if !maps.Equal(sharded, whole) {
		t.Errorf("operations (count, units, errors) of the shards together:\n%v\none process:\n%v", sharded, whole)
	}
	m, err := result.LoadDir(merged)
	if err != nil {
		t.Fatal(err)
	}
	compareMerged(t, m, res, merged, out)
}

// TestShardOnCutHostFailsTheOther: a shard on a host whose network fails (its veth pair cut
// with `ip link set down`, a real network failure: its connections are neither closed nor
// answered) fails the step for the shard on the other host within the short --shard-timeout,
// naming it: a shard whose host is cut off before the run never arrives; one cut off in the
// middle of l.i0 gives no sign of life (its heartbeat cannot reach the server) and the other
// fails at l.x as soon as it has given none for the timeout; the cut-off shard stalls
// (--stall-timeout), does not come to the next step, and fails too. Both
// end (exit 1), and no process, namespace or veth is left.
func TestShardOnCutHostFailsTheOther(t *testing.T) {
	integration(t, "makes network namespaces, starts servers and runs of the binary")
	netnstest.Require(t)
	onEachServerKind(t, shardOnCutHost)
}

// shardOnCutHost is TestShardOnCutHostFailsTheOther on a server of s.
func shardOnCutHost(t *testing.T, s existingServer) {
	eng := s.engine
	// The first shard's host, the second shard's before the run, the second's in the run.
	hosts := []*netnstest.Host{netnstest.New(t), netnstest.New(t), netnstest.New(t)}
	srv := remoteServer(t, s, hosts...)
	bin := buildBinary(t)
	run := func(shard int, h *netnstest.Host, id string) (*bgRun, string) {
		args, out := hostArgs(t, eng, "--rows", "200000", "--shard", fmt.Sprintf("%d/2", shard), "--shard-run", id,
			"--shard-timeout", "3s", "--stall-timeout", "3s")
		return startOnHost(t, h, bin, eng, srv, args...), out
	}
	missing := func(step, id string) string {
		return fmt.Sprintf(`shard barrier before %s (run %q, table %s): shard 1 of 2 did not arrive within 3s: the step fails for every shard`,
			step, id, shard.BarrierTable)
	}

	hosts[1].Cut(t)
	first, out := run(0, hosts[0], "never")
	second, _ := run(1, hosts[1], "never")
	failed(t, "the first shard", first, out, missing("l.i0", "never"))
	// It cannot reach the server at the start: refused before any work.
	if code := exitOf(t, second); code != exitUsage || !strings.Contains(second.stderr.String(), "connect to the server") {
		t.Errorf("the cut-off shard: exit %d, want %d, saying it could not connect; stderr:\n%s", code, exitUsage, second.stderr.String())
	}
	checkNoSecretIn(t, second.stderr.String(), srv.Password())

	first, out = run(0, hosts[0], "cut")
	second, _ = run(1, hosts[2], "cut")
	second.waitForStarted(t, "l.i0")
	hosts[2].Cut(t)
	failed(t, "the first shard", first, out, fmt.Sprintf(`shard barrier before l.x (run "cut", table %s): shard 1 of 2 gave no sign of life for 3s (its heartbeat in %s): the step fails for every shard`,
		shard.BarrierTable, shard.AliveTable))
	if code := exitOf(t, second); code != exitFailed {
		t.Errorf("the shard cut off in l.i0: exit %d, want %d; stderr:\n%s", code, exitFailed, second.stderr.String())
	}
	if want := eng + " stalled: nothing completed for 3s"; !strings.Contains(second.stderr.String(), want) {
		t.Errorf("the shard cut off in l.i0 does not say %q:\n%s", want, second.stderr.String())
	}
	checkNoSecretIn(t, second.stderr.String(), srv.Password())
	checkLeftNothing(t, hosts...)
}

// failed waits for the run r, the shard called who, to end with exit status 1, and fails the
// test unless its run.json in out and its stderr say want.
func failed(t *testing.T, who string, r *bgRun, out, want string) {
	t.Helper()
	if code := exitOf(t, r); code != exitFailed {
		t.Fatalf("%s: exit %d, want %d; stderr:\n%s", who, code, exitFailed, r.stderr.String())
	}
	if res := loadRun(t, out); res.Status != result.StatusFailed || !strings.Contains(res.Error, want) {
		t.Errorf("%s: run %s: %q, want failed with %q", who, res.Status, res.Error, want)
	}
	if !strings.Contains(r.stderr.String(), want) {
		t.Errorf("%s: stderr lacks %q:\n%s", who, want, r.stderr.String())
	}
}
