//go:build !linux

package server

import "syscall"

// setPdeathsig does nothing where there is no parent-death signal.
func setPdeathsig(*syscall.SysProcAttr) {}
