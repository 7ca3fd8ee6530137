package perf

import "syscall"

// sysProcAttr puts perf in its own process group, so that a Ctrl-C to enginebench's terminal
// does not end it before Stop, and has the kernel kill it if the thread that started it dies
// (Go's threads live as long as the process unless a goroutine locked to one exits).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
