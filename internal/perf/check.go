package perf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Check returns nil when perf can sample and count processes here, else an error whose
// message is a one-line reason a user can act on: perf is missing, the kernel refuses
// (kernel.perf_event_paranoid), or what perf printed in a short trial record and count of
// a child process of its own. It is bounded by ctx (and ControlTimeout and StopTimeout).
func Check(ctx context.Context, perfPath string) error {
	bin, err := lookPerf(perfPath)
	if err != nil {
		return err
	}
	if p, err := paranoid(); err == nil && p >= 3 && os.Geteuid() != 0 {
		return fmt.Errorf("kernel.perf_event_paranoid is %d and enginebench is not root: "+
			"run it as root, or sysctl -w kernel.perf_event_paranoid=1 (needs CAP_PERFMON or root for other users' processes)", p)
	}
	// The trial samples a child that waits: this process's own threads may come and go (Go
	// ends a thread a goroutine locked), which would fail a trial that is not about them.
	child := exec.CommandContext(ctx, "sleep", "60")
	if err := child.Start(); err != nil {
		return fmt.Errorf("perf's trial: %w", err)
	}
	defer func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	}()
	self := []int{child.Process.Pid}
	r, err := StartRecord(ctx, RecordOptions{Perf: bin, PIDs: self})
	if err != nil {
		return fmt.Errorf("perf cannot sample here: %w", err)
	}
	err = r.Enable(ctx)
	r.Close()
	if err != nil {
		return fmt.Errorf("perf cannot sample here: %w", err)
	}
	st, err := StartStat(ctx, StatOptions{Perf: bin, PIDs: self, Events: []string{"task-clock"}})
	if err != nil {
		return fmt.Errorf("perf cannot count here: %w", err)
	}
	err = st.Enable(ctx)
	st.Close()
	if err != nil {
		return fmt.Errorf("perf cannot count here: %w", err)
	}
	return nil
}

// paranoid is the kernel's perf_event_paranoid setting.
func paranoid() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}
