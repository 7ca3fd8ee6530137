package servertest

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/testwait"
)

// This process is alive; a child that exited is a zombie until it is reaped, then gone.
func TestProcState(t *testing.T) {
	if st := ProcState(os.Getpid()); st == "" || st == "Z" || !Alive(os.Getpid()) {
		t.Errorf("this process: state %q, alive %v", st, Alive(os.Getpid()))
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	testwait.Until(t, "the child to exit", time.Minute, func() bool { return ProcState(pid) == "Z" })
	if Alive(pid) {
		t.Error("a zombie is alive")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if st := ProcState(pid); st != "" || Alive(pid) {
		t.Errorf("reaped child: state %q, alive %v", st, Alive(pid))
	}
}
