package netnstest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/testwait"
)

// dial returns a command that, in h, connects to addr over TCP and sends a line, giving up
// after 20 seconds.
func dial(h *Host, addr string) *exec.Cmd {
	host, port, _ := net.SplitHostPort(addr)
	return h.Command("timeout", "20", "bash", "-c", fmt.Sprintf("echo hello >/dev/tcp/%s/%s", host, port))
}

// listen listens on addr (host:0) and returns the listener, closed at the test's end.
func listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// A process in a Host reaches this host on the Gateway address, over the pair, with the
// Host's own address as its source; this host's loopback is not its own; two Hosts have their
// own names and networks.
func TestHostReachesGateway(t *testing.T) {
	a, b := New(t), New(t)
	if a.Name == b.Name || a.Link == b.Link || a.Gateway.Overlaps(b.Gateway) {
		t.Fatalf("two hosts share a name or network: %+v, %+v", a, b)
	}
	if !a.Gateway.Contains(a.Addr) || a.Gateway.Addr() == a.Addr {
		t.Fatalf("host %s: address %s, gateway %s", a.Name, a.Addr, a.Gateway)
	}
	l := listen(t, net.JoinHostPort(a.Gateway.Addr().String(), "0"))
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- c.RemoteAddr().(*net.TCPAddr).IP.String() + " " + strings.TrimSpace(line)
	}()
	if out, err := dial(a, l.Addr().String()).CombinedOutput(); err != nil {
		t.Fatalf("connect from %s: %v: %s", a.Name, err, out)
	}
	if got, want := <-got, a.Addr.String()+" hello"; got != want {
		t.Errorf("the gateway's listener got %q, want %q", got, want)
	}
	lo := listen(t, "127.0.0.1:0")
	if out, err := dial(a, lo.Addr().String()).CombinedOutput(); err == nil {
		t.Errorf("a process in %s reached this host's 127.0.0.1: %s", a.Name, out)
	}
}

// A cut pair carries nothing: a connection from the Host to its gateway fails.
func TestCutHostLosesGateway(t *testing.T) {
	h := New(t)
	l := listen(t, net.JoinHostPort(h.Gateway.Addr().String(), "0"))
	h.Cut(t)
	if out, err := dial(h, l.Addr().String()).CombinedOutput(); err == nil {
		t.Errorf("connected to %s over a cut pair: %s", l.Addr(), out)
	}
}

// Remove kills the Host's processes and deletes its pair and namespace; Left then finds none.
func TestRemoveLeavesNothing(t *testing.T) {
	h := New(t)
	sleep := h.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleep.Wait() }()
	testwait.Until(t, "sleep to be in the namespace", time.Minute, func() bool {
		pids, err := h.Processes()
		return err == nil && slices.Contains(pids, sleep.Process.Pid)
	})
	if left, err := h.Left(); err != nil || len(left) != 2 {
		t.Errorf("before Remove: %v (%v), want the namespace and this host's link", left, err)
	}
	if err := h.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("sleep in the removed namespace: %v, want killed", err)
	}
	if left, err := h.Left(); err != nil || len(left) != 0 {
		t.Errorf("after Remove: %v (%v)", left, err)
	}
	if err := h.Remove(); err != nil {
		t.Errorf("Remove again: %v", err)
	}
}

// A removed Host frees its slot, and the next New of this process may take it, with the same
// name and link: removing the first Host again (as its test's cleanup does after an explicit
// Remove) must leave the new one's process running and its pair in place.
func TestRemoveAgainLeavesSlotsNextOwner(t *testing.T) {
	first := New(t)
	if err := first.Remove(); err != nil {
		t.Fatal(err)
	}
	next := New(t)
	if next.Name != first.Name {
		t.Skipf("another test took slot %s meanwhile; the next Host is %s", first.Link, next.Name)
	}
	sleep := next.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	testwait.Until(t, "sleep to be in the namespace", time.Minute, func() bool {
		pids, err := next.Processes()
		return err == nil && slices.Contains(pids, sleep.Process.Pid)
	})
	if err := first.Remove(); err != nil {
		t.Fatal(err)
	}
	pids, err := next.Processes()
	if err != nil || !slices.Contains(pids, sleep.Process.Pid) {
		t.Errorf("the next Host's process %d after the first Host's second Remove: in %v (%v)", sleep.Process.Pid, pids, err)
	}
	if left, err := next.Left(); err != nil || len(left) != 2 {
		t.Errorf("the next Host after the first Host's second Remove: %v (%v), want its namespace and link", left, err)
	}
}

// New removes a Host left behind by a test process that has ended, and not one of a process
// that runs.
func TestNewRemovesLeftovers(t *testing.T) {
	Require(t)
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	var dead *Host
	for slot := maxSlots - 1; dead == nil; slot-- { // from the end: New claims from the start
		h := hostOf(slot, ended.Process.Pid)
		if err := ip("link", "add", h.Link, "type", "veth", "peer", "name", h.Peer); err == nil {
			dead = h
		}
	}
	t.Cleanup(func() { dead.Remove() })
	if err := dead.setUp(); err != nil {
		t.Fatal(err)
	}
	live := hostOf(maxSlots-1, 1) // a namespace of a test process that runs (pid 1 always does)
	if err := ip("netns", "add", live.Name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ip("netns", "del", live.Name) })
	New(t)
	if alive(ended.Process.Pid) {
		t.Skipf("pid %d was reused meanwhile", ended.Process.Pid)
	}
	if left, err := dead.Left(); err != nil || len(left) != 0 {
		t.Errorf("the ended test's host: %v left (%v)", left, err)
	}
	if names, err := namespaces(); err != nil || !slices.Contains(names, live.Name) {
		t.Errorf("the namespace %s of a running process (pid 1) was removed: %v (%v)", live.Name, names, err)
	}
}
