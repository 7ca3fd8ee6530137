package numfmt

import (
	"math"
	"testing"
)

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 123456.7: "123457", 98.765: "98.8", 0.000123: "0.000123",
		1.5: "1.5", 2: "2", -250: "-250", 99.96: "100", 0.00001: "0.00001", 1e-10: "0", math.Inf(1): "+Inf"} {
		if got := Num(in); got != want {
			t.Errorf("Num(%g) = %q, want %q", in, got, want)
		}
	}
	if got := Num(math.NaN()); got != "NaN" {
		t.Errorf("Num(NaN) = %q", got)
	}
}

func TestCount(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 0.05: "0.05", 1.5: "1.5", 250: "250", 9999: "9999", 12000: "12k",
		12345: "12.3k", 1.5e6: "1.5M", 4.56e6: "4.56M", 2e9: "2G", 1.5e12: "1500G", -12345: "-12.3k",
		// Rounding carries into the next unit.
		9999.6: "10k", 999_600: "1M", 999_999_999: "1G", -999_600: "-1M"} {
		if got := Count(in); got != want {
			t.Errorf("Count(%g) = %q, want %q", in, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[float64]string{0: "0us", 0.5: "0.5us", 850: "850us", 4000: "4ms", 12_300: "12.3ms",
		1.2e6: "1.2s", 3.6e9: "3600s", 999.6: "1ms", 999_999.6: "1s", 999.4: "999us"} {
		if got := Duration(in); got != want {
			t.Errorf("Duration(%g) = %q, want %q", in, got, want)
		}
	}
	if got := Seconds(0.42); got != "420ms" {
		t.Errorf("Seconds(0.42) = %q", got)
	}
	if got := Duration(math.Inf(1)) + Count(math.NaN()); got != "+InfNaN" {
		t.Errorf("Duration(+Inf) and Count(NaN) = %q, want no unit", got)
	}
}

func TestBytes(t *testing.T) {
	for in, want := range map[float64]string{0: "0 B", 512: "512 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB",
		12.34 * (1 << 20): "12.3 MiB", 2 * (1 << 30): "2 GiB", 3 << 40: "3 TiB", 5 << 50: "5 PiB", 2048 << 50: "2048 PiB",
		// Rounding carries into the next unit.
		1023.6 * (1 << 10): "1 MiB", (1 << 30) - 1: "1 GiB"} {
		if got := Bytes(in); got != want {
			t.Errorf("Bytes(%g) = %q, want %q", in, got, want)
		}
	}
}

// Each form allocates only its result: the progress line calls them every second.
func TestAllocations(t *testing.T) {
	for name, f := range map[string]func(float64) string{"Num": Num, "Count": Count, "Duration": Duration} {
		if n := testing.AllocsPerRun(100, func() { _ = f(999_600.5) }); n > 1 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}
