// Package perf runs Linux perf on running processes: perf record for a CPU profile, converted
// to pprof, and perf stat for counters. Both start with their events disabled and are enabled
// and disabled through perf's control pipes (--control, -D -1), so that what they take is a
// step's measured time or windows of it. It needs perf 5.9 or later (--control).
package perf

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Timeouts for waits whose ctx has no earlier deadline.
const (
	// ControlTimeout bounds the wait for perf's ack of a control command, and for perf to be
	// ready after it starts.
	ControlTimeout = 30 * time.Second
	// StopTimeout bounds the wait for perf to exit after SIGINT (perf record writes out its
	// data then); perf is killed after it.
	StopTimeout = 60 * time.Second
	// ScriptTimeout bounds perf script's conversion of a recording.
	ScriptTimeout = 10 * time.Minute
)

// Outcome says whether a recording or a count stops short of Stop.
type Outcome struct {
	// Partial is set when perf ended before Stop or a sampled process exited before it.
	Partial bool
	// Note says which, in one line.
	Note string
}

// session is one perf process with its control and ack pipes and its temporary directory.
type session struct {
	cmd    *exec.Cmd
	ctl    *os.File      // writes perf's control commands
	ack    *os.File      // reads perf's acks
	acks   *bufio.Reader // on ack
	dir    string        // temporary directory, removed by close
	pids   []int
	done   chan struct{} // closed when perf has exited
	err    error         // perf's exit status, set before done is closed
	closed bool
}

// lookPerf finds the perf binary: path, or "perf" on PATH when it is empty.
func lookPerf(path string) (string, error) {
	name, where := path, "at "+path
	if path == "" {
		name, where = "perf", "on PATH"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("perf not found %s: install linux-perf", where)
	}
	return bin, nil
}

// pidList is perf's -p argument.
func pidList(pids []int) (string, error) {
	if len(pids) == 0 {
		return "", errors.New("no process to measure")
	}
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ","), nil
}

// start runs perf with the options args returns for its temporary directory (made under
// parent, or the system's when it is empty; perf's control options are added) and returns
// once perf answers a ping on its control pipe: its events are open then.
func start(ctx context.Context, perfPath, parent string, pids []int, args func(dir string) []string) (*session, error) {
	bin, err := lookPerf(perfPath)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "enginebench-perf-")
	if err != nil {
		return nil, fmt.Errorf("perf's directory: %w", err)
	}
	s := &session{dir: dir, pids: pids, done: make(chan struct{})}
	if err := s.spawn(bin, append(args(dir), "-D", "-1", "--control", "fd:3,4")); err != nil {
		s.cleanup()
		return nil, err
	}
	if err := s.command(ctx, "ping"); err != nil {
		defer s.close()
		if s.exited() {
			return nil, fmt.Errorf("perf did not start: %s", s.reason())
		}
		return nil, fmt.Errorf("perf did not start: %w", err)
	}
	return s, nil
}

// spawn starts perf, its control pipe on its fd 3 and its ack pipe on fd 4, its output in
// the file perf.stderr.
func (s *session) spawn(bin string, args []string) error {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("perf's control pipe: %w", err)
	}
	s.ctl = ctlW
	defer ctlR.Close()
	ackR, ackW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("perf's ack pipe: %w", err)
	}
	s.ack, s.acks = ackR, bufio.NewReader(ackR)
	defer ackW.Close()
	out, err := os.Create(filepath.Join(s.dir, "perf.stderr"))
	if err != nil {
		return fmt.Errorf("perf's output file: %w", err)
	}
	defer out.Close()
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), "LC_ALL=C")
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.ExtraFiles = []*os.File{ctlR, ackW}
	s.cmd.SysProcAttr = sysProcAttr()
	// The kernel kills perf when the thread that started it ends (Pdeathsig), and Go ends a
	// thread whose locked goroutine returns. perf is started and waited for by a goroutine
	// locked to its thread, so that thread lives exactly as long as perf: no other goroutine
	// can lock it and end it under perf (which killed perf in the middle of writing its data).
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := s.cmd.Start(); err != nil {
			started <- fmt.Errorf("start %s: %w", bin, err)
			return
		}
		started <- nil
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	return <-started
}

// command sends perf a control command and waits for its ack, bounded by ctx and
// ControlTimeout.
func (s *session) command(ctx context.Context, c string) error {
	if s.exited() {
		return fmt.Errorf("%s: perf has exited: %s", c, s.reason())
	}
	if _, err := io.WriteString(s.ctl, c+"\n"); err != nil {
		return fmt.Errorf("%s: %w (%s)", c, err, s.reason())
	}
	ctx, cancel := context.WithTimeout(ctx, ControlTimeout)
	defer cancel()
	if err := s.ack.SetReadDeadline(time.Time{}); err != nil {
		return fmt.Errorf("%s: %w", c, err)
	}
	unblock := context.AfterFunc(ctx, func() { _ = s.ack.SetReadDeadline(time.Unix(1, 0)) })
	defer unblock()
	line, err := s.acks.ReadString('\n')
	switch {
	case err == io.EOF:
		select { // perf closed its end: it is exiting
		case <-s.done:
		case <-time.After(time.Second):
		}
		return fmt.Errorf("%s: perf exited: %s", c, s.reason())
	case ctx.Err() != nil:
		return fmt.Errorf("%s: no ack from perf: %w", c, context.Cause(ctx))
	case err != nil:
		return fmt.Errorf("%s: read perf's ack: %w", c, err)
	case strings.Trim(line, "\x00 \n") != "ack": // perf writes "ack\n\x00"
		return fmt.Errorf("%s: perf answered %q, not ack", c, line)
	}
	return nil
}

func (s *session) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// reason is perf's output in one line, or its exit status when it printed nothing.
func (s *session) reason() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "perf.stderr"))
	line := oneLine(string(b))
	if line == "" && s.exited() && s.err != nil {
		return "perf printed nothing and ended: " + s.err.Error()
	}
	if line == "" {
		return "perf printed nothing"
	}
	return line
}

// oneLine is perf's output in one line, without its blank lines and progress messages.
func oneLine(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "", l == "Error:", strings.HasPrefix(l, "Events "), strings.HasPrefix(l, "[ perf record:"):
			continue
		}
		keep = append(keep, l)
	}
	line := strings.Join(keep, " ")
	if len(line) > 400 {
		line = line[:400] + "..."
	}
	return line
}

// limitedBuffer keeps the first 64 KiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.b = append(l.b, p[:min(len(p), max(0, 64<<10-len(l.b)))]...)
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }

// stop ends perf: SIGINT, a wait bounded by ctx and StopTimeout, then SIGKILL. It reports
// how the measurement ended short, if it did; killed says perf had to be killed.
func (s *session) stop(ctx context.Context) (out Outcome, killed bool) {
	if s.exited() {
		return s.earlyOutcome(), false
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	ctx, cancel := context.WithTimeout(ctx, StopTimeout)
	defer cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		_ = s.cmd.Process.Kill()
		<-s.done
		return Outcome{Partial: true, Note: "perf did not exit after SIGINT and was killed: " + context.Cause(ctx).Error()}, true
	}
	if sig, ok := killedBy(s.err); ok && sig != syscall.SIGINT {
		return Outcome{Partial: true, Note: fmt.Sprintf("perf was killed by %v before it ended its data", sig)}, false
	}
	// The first process is the one the caller named (a server's main process): the others, its
	// children then, come and go (a connection's backend) without ending the measurement.
	if len(s.pids) > 0 && len(exitedPIDs(s.pids[:1])) > 0 {
		return Outcome{Partial: true, Note: fmt.Sprintf("the sampled process %d exited before the end", s.pids[0])}, false
	}
	return Outcome{}, false
}

// earlyOutcome is the outcome when perf exited before stop.
func (s *session) earlyOutcome() Outcome {
	if s.err == nil {
		return Outcome{Partial: true, Note: "perf ended early: all the sampled processes had exited"}
	}
	return Outcome{Partial: true, Note: fmt.Sprintf("perf ended early (%v): %s", s.err, s.reason())}
}

// close kills perf if it runs, waits for it and removes the temporary files.
func (s *session) close() {
	if s.closed {
		return
	}
	if s.cmd != nil && s.cmd.Process != nil {
		if !s.exited() {
			_ = s.cmd.Process.Kill()
		}
		<-s.done
	}
	s.cleanup()
}

func (s *session) cleanup() {
	s.closed = true
	for _, f := range []*os.File{s.ctl, s.ack} {
		if f != nil {
			_ = f.Close()
		}
	}
	_ = os.RemoveAll(s.dir)
}

// exitedPIDs are the pids that no longer run (gone, or zombies).
func exitedPIDs(pids []int) []int {
	var gone []int
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i >= 0 && !strings.HasPrefix(string(b[i:]), ") Z") {
				continue
			}
		}
		gone = append(gone, p)
	}
	return gone
}

// killedBy returns the signal that ended a process whose Wait returned err, if one did.
func killedBy(err error) (syscall.Signal, bool) {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}
