package servertest

import "github.com/prometheus/procfs"

// ProcState returns the state letter of process pid as /proc shows it (R, S, T, Z, ...), ""
// when the process is gone.
func ProcState(pid int) string {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return ""
	}
	st, err := p.Stat()
	if err != nil {
		return ""
	}
	return st.State
}

// Alive reports whether pid is a live process: neither gone nor a zombie.
func Alive(pid int) bool {
	switch ProcState(pid) {
	case "", "Z", "X":
		return false
	}
	return true
}
