package verdict

import (
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// TestEnvStep judges a step's environment from its usage: each check against its threshold,
// at and above it, with the message naming the figure and the step.
func TestEnvStep(t *testing.T) {
	quiet := map[string]float64{
		measure.KeySeconds: 10, measure.KeyCPUAll: 20, measure.KeySteal: 0.2, measure.KeyOtherCPU: 1,
		measure.KeyPSICPUSome: 5, measure.KeyPSIIOFull: 1, measure.KeyPSIMemorySome: 0,
		measure.KeySwapIn: 0, measure.KeySwapOut: 0, measure.KeyFreqStartMHz: 3000, measure.KeyFreqMinMHz: 2900,
		measure.KeyThrottles: 0,
	}
	got := states(Step(&result.Step{Name: "qr100", Usage: quiet}, nil))
	for _, c := range []string{"steal", "other_cpu", "psi_cpu", "psi_io", "psi_memory", "swap", "freq_drop", "throttle"} {
		def := Defaults()[c]
		if v := got[c]; v.State != result.VerdictOK || v.Value == nil || v.Threshold == nil || *v.Threshold != def {
			t.Errorf("quiet step: %s %+v, want ok at its default threshold %g", c, v, def)
		}
	}
	noisy := map[string]float64{
		measure.KeySeconds: 10, measure.KeyCPUAll: 20, measure.KeySteal: 1.4, measure.KeyOtherCPU: 5,
		measure.KeyPSICPUSome: 9.5, measure.KeyPSIIOFull: 9.5, measure.KeyPSIMemorySome: 2,
		measure.KeySwapIn: 3, measure.KeySwapOut: 7, measure.KeyFreqStartMHz: 3000, measure.KeyFreqMinMHz: 2000,
		measure.KeyThrottles: 2,
	}
	want := map[string]string{
		"steal": "steal 7.0% of the CPUs during qr100: figures may be noisy", "other_cpu": "other processes' CPU 25% of the CPUs",
		"psi_cpu": "CPU pressure (some) 95% of the time", "psi_io": "IO pressure (full) 95% of the time",
		"psi_memory": "memory pressure (some) 20% of the time", "swap": "3 pages in, 7 out (1.0 a second)",
		"freq_drop": "down 33% (3000 to 2000 MHz)", "throttle": "2 thermal throttle events",
	}
	got = states(Step(&result.Step{Name: "qr100", Usage: noisy}, nil))
	for check, msg := range want {
		if v := got[check]; v.State != result.VerdictFlag || !strings.Contains(v.Message, msg) || !strings.Contains(v.Message, "during qr100") {
			t.Errorf("noisy step: %s %s %q, want flagged with %q", check, v.State, v.Message, msg)
		}
	}
	// A raised threshold passes the same figure.
	th, err := Parse([]string{"steal=10,swap=2"})
	if err != nil {
		t.Fatal(err)
	}
	got = states(Step(&result.Step{Name: "qr100", Usage: noisy}, th))
	if got["steal"].State != result.VerdictOK || got["swap"].State != result.VerdictOK {
		t.Errorf("steal=10, swap=2: steal %s, swap %s, want both ok", got["steal"].State, got["swap"].State)
	}
}

// TestEnvStepAbsent: a sensor the host lacks is unmeasured with why, never a pass; a step
// without usage has no environment verdicts.
func TestEnvStepAbsent(t *testing.T) {
	u := map[string]float64{measure.KeySeconds: 10, measure.KeyCPUAll: 20, measure.KeySteal: 0}
	got := states(Step(&result.Step{Name: "l.i0", Usage: u}, nil))
	for _, check := range []string{"other_cpu", "psi_cpu", "psi_io", "psi_memory", "swap", "freq_drop", "throttle"} {
		if v := got[check]; v.State != result.VerdictUnmeasured || v.Message == "" || v.Value != nil {
			t.Errorf("%s: %+v, want unmeasured with a reason", check, v)
		}
	}
	if got["steal"].State != result.VerdictOK {
		t.Errorf("steal %+v, want ok", got["steal"])
	}
	if vs := Step(&result.Step{Name: "l.i0"}, nil); len(vs) != 0 {
		t.Errorf("a step without usage: %+v, want no verdicts", vs)
	}
}

// TestEnvStepTooShort: a step shorter than MinShareSeconds has its shares of the CPUs
// unmeasured, saying why, however large they read: /proc/stat's ticks are too coarse for it.
func TestEnvStepTooShort(t *testing.T) {
	u := map[string]float64{measure.KeySeconds: 0.02, measure.KeyCPUAll: 0.04, measure.KeySteal: 0, measure.KeyOtherCPU: 0.02}
	got := states(Step(&result.Step{Name: "l.i0", Usage: u}, nil))
	for _, check := range []string{"steal", "other_cpu"} {
		if v := got[check]; v.State != result.VerdictUnmeasured || !strings.Contains(v.Message, "too coarse") {
			t.Errorf("%s of a 20 ms step: %+v, want unmeasured, too coarse", check, v)
		}
	}
}
