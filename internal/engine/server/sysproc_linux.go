package server

import "syscall"

// setPdeathsig makes the kernel kill the server when enginebench dies.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
