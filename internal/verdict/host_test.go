package verdict

import (
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/result"
)

// states returns the state of each check among vs by name.
func states(vs []result.Verdict) map[string]result.Verdict {
	m := map[string]result.Verdict{}
	for _, v := range vs {
		m[v.Check] = v
	}
	return m
}

// TestHostSamples judges the host samples of package host: the tuned-for-throughput Xeon
// (powersave on one CPU, turbo and SMT on, THP always) is flagged where its author would have
// turned things off; the virtual machine has no cpufreq, so its governor and boost are
// unmeasured, never passed.
func TestHostSamples(t *testing.T) {
	xeon := host.Reader{Proc: "../host/testdata/xeon/proc", Sys: "../host/testdata/xeon/sys"}.Read("")
	vm := host.Reader{Proc: "../host/testdata/arm64-vm/proc", Sys: "../host/testdata/arm64-vm/sys"}.Read("")
	for _, c := range []struct {
		name string
		h    result.Host
		want map[string]string
	}{
		{"xeon", xeon, map[string]string{CheckGovernor: result.VerdictFlag, CheckBoost: result.VerdictFlag, CheckSMT: result.VerdictFlag,
			CheckTHP: result.VerdictFlag, CheckScheduler: result.VerdictUnmeasured, CheckWriteCache: result.VerdictUnmeasured, CheckDiscard: result.VerdictUnmeasured}},
		{"arm64-vm", vm, map[string]string{CheckGovernor: result.VerdictUnmeasured, CheckBoost: result.VerdictUnmeasured, CheckSMT: result.VerdictOK,
			CheckTHP: result.VerdictOK, CheckScheduler: result.VerdictUnmeasured, CheckWriteCache: result.VerdictUnmeasured, CheckDiscard: result.VerdictUnmeasured}},
	} {
		got := states(Host(&c.h, nil))
		if len(got) != len(HostChecks()) {
			t.Errorf("%s: verdicts of %d checks, want %d", c.name, len(got), len(HostChecks()))
		}
		for check, want := range c.want {
			v := got[check]
			if v.State != want {
				t.Errorf("%s: %s %s (%q), want %s", c.name, check, v.State, v.Message, want)
			}
			if v.State != result.VerdictOK && v.Message == "" {
				t.Errorf("%s: %s %s without a message", c.name, check, v.State)
			}
		}
	}
	if m := states(Host(&xeon, nil))[CheckGovernor].Message; !strings.Contains(m, "powersave") || strings.Contains(m, "performance,") {
		t.Errorf("governor message %q: want the governor that is not performance", m)
	}
}

// TestHostDevice judges the data device's settings, as package host reads them from its
// sample devices: the SATA disk (write through, no discard) and the NVMe one (write back,
// discard), with and without the discard mount option, and a fairness scheduler.
func TestHostDevice(t *testing.T) {
	r := host.Reader{Proc: "../host/testdata/xeon/proc", Sys: "../host/testdata/xeon/sys"}
	withDevice := func(name, sched string, opts ...string) result.Host {
		d := r.Device(name)
		if sched != "" {
			d.Scheduler = sched
		}
		return result.Host{DataDevice: name, Filesystem: "ext4", DeviceScheduler: d.Scheduler, DeviceWriteCache: d.WriteCache,
			DeviceDiscardMaxBytes: d.DiscardMaxBytes, MountOptions: opts}
	}
	for _, c := range []struct {
		name                        string
		h                           result.Host
		scheduler, cache, discarded string
	}{
		{"sda discard", withDevice("sda", "", "discard", "rw"), result.VerdictOK, result.VerdictFlag, result.VerdictOK}, // the disk takes no discard
		{"nvme discard", withDevice("nvme0n1", "", "discard", "rw"), result.VerdictOK, result.VerdictOK, result.VerdictFlag},
		{"nvme nodiscard", withDevice("nvme0n1", "", "rw"), result.VerdictOK, result.VerdictOK, result.VerdictOK},
		{"nvme bfq", withDevice("nvme0n1", "bfq", "rw"), result.VerdictFlag, result.VerdictOK, result.VerdictOK},
	} {
		got := states(Host(&c.h, nil))
		for check, want := range map[string]string{CheckScheduler: c.scheduler, CheckWriteCache: c.cache, CheckDiscard: c.discarded} {
			if got[check].State != want {
				t.Errorf("%s: %s %s (%q), want %s", c.name, check, got[check].State, got[check].Message, want)
			}
		}
	}
}
