// Package netnstest makes other hosts on this machine for tests: a Host is a network namespace
// joined to this host's namespace by a veth pair, with an address on each side, so that a
// process run in it (Host.Command) reaches a server of this host only over that pair, as a
// client on another host would over its network, and loses it when the pair is cut (Host.Cut).
//
// It drives iproute2's ip(8) (`ip netns add`, `ip link add ... type veth peer ...`,
// `ip netns exec`): a process must be started inside the namespace, which Go's os/exec cannot
// do without switching a locked OS thread of the test process into the namespace around the
// fork, and the setup is the same handful of commands a person types.
//
// It needs root; Require skips a test without it (or fails it under CI=true). Every Host is
// removed at the end of its test, also when the test fails: its processes are killed, then its
// veth pair and its namespace are deleted. Names carry a slot (claimed atomically by creating
// the veth pair, so that parallel tests and test processes never share one) and the test
// process's id, so that New removes what a killed earlier test process left behind.
package netnstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// namePrefix begins the name of every namespace this package makes: namePrefix<slot>-<pid>.
const namePrefix = "enginebench-"

// maxSlots bounds the slots: 198.18.0.0/15 (RFC 2544's range for benchmark tests, never
// routed) holds 32768 networks of 4 addresses.
const maxSlots = 32768

// cmdTimeout bounds each ip command.
const cmdTimeout = 30 * time.Second

// Host is a network namespace joined to this host by a veth pair.
type Host struct {
	// Name is the namespace's name (`ip netns list`).
	Name string
	// Link is this host's side of the veth pair; Peer, in the namespace, its other side.
	Link, Peer string
	// Addr is the namespace's address on the pair.
	Addr netip.Addr
	// Gateway is this host's address on the pair with the pair's network (198.18.0.1/30): the
	// address a server listens on for the namespace's processes (server.Options.Listen).
	Gateway netip.Prefix

	mu      sync.Mutex
	removed bool // Remove deleted the pair: the slot, its name and link may be another Host's
}

// Require skips the test when this process cannot make namespaces (not root, no ip(8), or
// `ip netns add` refused), saying why; under CI=true it fails the test instead.
func Require(t testing.TB) {
	t.Helper()
	if err := usable(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: network namespaces: %v", err)
		}
		t.Skipf("network namespaces: %v", err)
	}
}

// usable returns why namespaces cannot be made here, or nil: it makes and deletes one.
func usable() error {
	if os.Geteuid() != 0 {
		return errors.New("the test runs as root only (it creates network namespaces and veth pairs)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("ip(8) not found (install: apt-get install iproute2)")
	}
	probe := fmt.Sprintf("%sprobe-%d-%x", namePrefix, os.Getpid(), rand.Uint64())
	if err := ip("netns", "add", probe); err != nil {
		return err
	}
	return ip("netns", "del", probe)
}

// New makes a Host for the test (Require first) and removes it at the test's end. It removes
// first the namespaces of this package that a test process no longer running left behind.
func New(t testing.TB) *Host {
	t.Helper()
	Require(t)
	if err := removeLeftovers(); err != nil {
		t.Fatal(err)
	}
	h, err := claim()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Remove(); err != nil {
			t.Errorf("remove the host %s: %v", h.Name, err)
		}
	})
	if err := h.setUp(); err != nil {
		t.Fatal(err)
	}
	return h
}

// claim creates the veth pair of the first free slot, which is the slot's claim, and returns
// the Host of the slot.
func claim() (*Host, error) {
	for slot := range maxSlots {
		h := hostOf(slot, os.Getpid())
		err := ip("link", "add", h.Link, "type", "veth", "peer", "name", h.Peer)
		if err == nil {
			return h, nil
		}
		if !strings.Contains(err.Error(), "File exists") {
			return nil, err
		}
	}
	return nil, fmt.Errorf("all %d slots are taken: delete the namespaces %s* (ip netns del)", maxSlots, namePrefix)
}

// hostOf returns the Host of slot owned by process pid (nothing is created).
func hostOf(slot, pid int) *Host {
	base := netip.AddrFrom4([4]byte{198, 18 + byte(slot>>14), byte(slot >> 6), byte(slot&63) << 2})
	return &Host{
		Name:    fmt.Sprintf("%s%d-%d", namePrefix, slot, pid),
		Link:    fmt.Sprintf("ebh%d", slot),
		Peer:    fmt.Sprintf("ebn%d", slot),
		Addr:    base.Next().Next(),
		Gateway: netip.PrefixFrom(base.Next(), 30),
	}
}

// setUp makes the namespace, moves the pair's peer into it and gives both sides their
// addresses.
func (h *Host) setUp() error {
	pair := strconv.Itoa(h.Gateway.Bits())
	for _, args := range [][]string{
		{"netns", "add", h.Name},
		{"link", "set", h.Peer, "netns", h.Name},
		{"addr", "add", h.Gateway.String(), "dev", h.Link},
		{"link", "set", h.Link, "up"},
		{"-n", h.Name, "addr", "add", h.Addr.String() + "/" + pair, "dev", h.Peer},
		{"-n", h.Name, "link", "set", h.Peer, "up"},
		{"-n", h.Name, "link", "set", "lo", "up"},
	} {
		if err := ip(args...); err != nil {
			return fmt.Errorf("set up the host %s: %w", h.Name, err)
		}
	}
	return nil
}

// Command returns a command that runs name with args in the namespace (`ip netns exec`, which
// then runs the program in its own place: the command's process is the program's). Its
// environment, as exec.Cmd's, is this process's unless Env is set: give credentials there,
// never in args, which every user of the machine sees.
func (h *Host) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", h.Name, name}, args...)...)
}

// Cut sets this host's side of the pair down: the namespace loses this host as a cable pulled
// out would, its connections neither closed nor answered.
func (h *Host) Cut(t testing.TB) {
	t.Helper()
	if err := ip("link", "set", h.Link, "down"); err != nil {
		t.Fatal(err)
	}
}

// Processes returns the processes running in the namespace.
func (h *Host) Processes() ([]int, error) {
	out, err := run("netns", "pids", h.Name)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("ip netns pids %s: %q is not a process id", h.Name, f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// Left returns what of the host is still there: "namespace NAME", "link NAME" (either side of
// the pair in this host's namespace); none once Remove succeeded.
func (h *Host) Left() ([]string, error) {
	var left []string
	names, err := namespaces()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if n == h.Name {
			left = append(left, "namespace "+n)
		}
	}
	for _, l := range []string{h.Link, h.Peer} {
		if _, err := os.Stat("/sys/class/net/" + l); err == nil {
			left = append(left, "link "+l)
		}
	}
	return left, nil
}

// Remove kills the namespace's processes (and waits until they are gone, bounded), deletes the
// namespace, then the veth pair, which is the slot's claim. It is safe to call more than once:
// once the pair is gone, the slot is free, and a Host that New makes next in this process may
// have the same name and link; a later Remove of this Host then does nothing, or it would kill
// that Host's processes and cut its pair.
func (h *Host) Remove() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.removed {
		return nil
	}
	var errs []error
	if err := h.killAll(); err != nil {
		errs = append(errs, err)
	}
	if err := ip("netns", "del", h.Name); err != nil && !strings.Contains(err.Error(), "No such file") {
		errs = append(errs, err)
	}
	// The namespace's end takes the pair with it, but not at once: it may be gone, or going.
	if err := ip("link", "del", h.Link); err != nil && !gone(err) {
		errs = append(errs, err)
	} else {
		h.removed = true
	}
	return errors.Join(errs...)
}

// gone reports whether the error of `ip link del` says that the link is not there.
func gone(err error) bool {
	return strings.Contains(err.Error(), "Cannot find device") || strings.Contains(err.Error(), "No such device")
}

// killAll kills every process in the namespace and waits until none is left (or cmdTimeout).
func (h *Host) killAll() error {
	deadline := time.Now().Add(cmdTimeout)
	for {
		pids, err := h.Processes()
		if err != nil {
			if strings.Contains(err.Error(), "No such file") {
				return nil // no namespace
			}
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v in the namespace %s outlived SIGKILL for %s", pids, h.Name, cmdTimeout)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond) // a killed process needs a moment to leave; bounded above
	}
}

// leftover matches the name of a namespace of this package: its slot and its owner's pid.
var leftover = regexp.MustCompile("^" + namePrefix + `(\d+)-(\d+)$`)

// removeLeftovers removes the hosts whose owner (the test process that made them) has ended.
func removeLeftovers() error {
	names, err := namespaces()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		m := leftover.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		slot, _ := strconv.Atoi(m[1])
		pid, _ := strconv.Atoi(m[2])
		if slot >= maxSlots || alive(pid) {
			continue
		}
		if err := hostOf(slot, pid).Remove(); err != nil {
			errs = append(errs, fmt.Errorf("remove the host %s that an ended test process left: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// alive reports whether process pid runs.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// namespaces returns the names of the named network namespaces (`ip netns list`).
func namespaces() ([]string, error) {
	out, err := run("-json", "netns", "list")
	if err != nil {
		return nil, err
	}
	var list []struct {
		Name string `json:"name"`
	}
	if strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			return nil, fmt.Errorf("ip -json netns list: %w", err)
		}
	}
	names := make([]string, len(list))
	for i, n := range list {
		names[i] = n.Name
	}
	return names, nil
}

// ip runs ip(8) with args; its error holds ip's own message.
func ip(args ...string) error {
	_, err := run(args...)
	return err
}

// run runs ip(8) with args (at most cmdTimeout) and returns its standard output.
func run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "ip", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
