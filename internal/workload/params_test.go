package workload

import (
	"slices"
	"testing"
)

type preset struct {
	name string
	size int
}

func TestFindScale(t *testing.T) {
	presets := []preset{{"tiny", 1}, {"large", 9}}
	name := func(p preset) string { return p.name }
	if p, err := FindScale(presets, name, "large", "scale"); err != nil || p.size != 9 {
		t.Errorf("FindScale(large) = %v, %v", p, err)
	}
	_, err := FindScale(presets, name, "huge", "demo scale")
	if want := `unknown demo scale "huge" (known: tiny, large)`; err == nil || err.Error() != want {
		t.Errorf("FindScale(huge): %v, want %s", err, want)
	}
}

func TestCheckPositive(t *testing.T) {
	if err := CheckPositive(Int("--a", 1), Int("--b", int64(2))); err != nil {
		t.Errorf("all positive: %v", err)
	}
	err := CheckPositive(Int("--a", 1), Int("--b", 0), Int("--c", -1))
	if want := "--b must be > 0, got 0"; err == nil || err.Error() != want {
		t.Errorf("CheckPositive: %v, want the first: %s", err, want)
	}
}

func TestOrderSteps(t *testing.T) {
	all := []string{"load", "index", "run"}
	got, err := OrderSteps([]string{"run", "load"}, all, "load", "demo steps")
	if err != nil || !slices.Equal(got, []string{"load", "run"}) {
		t.Errorf("OrderSteps = %v, %v; want [load run]", got, err)
	}
	for _, c := range []struct {
		steps []string
		want  string
	}{
		{nil, "--steps is empty"},
		{[]string{"load", "fly"}, `unknown step "fly" (demo steps: load,index,run)`},
		{[]string{"load", "run", "load"}, `step "load" given twice in --steps`},
		{[]string{"run"}, "--steps must include load: every run starts from an empty database"},
	} {
		if _, err := OrderSteps(c.steps, all, "load", "demo steps"); err == nil || err.Error() != c.want {
			t.Errorf("OrderSteps(%v): %v, want %s", c.steps, err, c.want)
		}
	}
}
