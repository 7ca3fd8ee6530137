//go:build !linux

package perf

import "syscall"

// sysProcAttr is nil: perf runs on Linux only.
func sysProcAttr() *syscall.SysProcAttr { return nil }
