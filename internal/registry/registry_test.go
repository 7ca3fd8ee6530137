package registry

import (
	"testing"

	"github.com/enginebench/enginebench/internal/workload"
)

// TestEveryWorkloadComplete checks that each entry has what the command line, the report and
// merge need: a unique name, flags, a constructor that builds it at each of its scales, and a
// report layout of its own.
func TestEveryWorkloadComplete(t *testing.T) {
	ws := Workloads()
	if len(ws) == 0 {
		t.Fatal("no workload")
	}
	layouts := map[any]string{}
	for _, w := range ws {
		t.Run(w.Name, func(t *testing.T) {
			if w.Name == "" || w.Title == "" || w.Flags == nil || w.New == nil || w.Report == nil || len(w.Scales) == 0 {
				t.Fatalf("incomplete entry %+v", w.Descriptor)
			}
			if other, ok := layouts[w.Report]; ok {
				t.Errorf("the report layout of %s is %s's", w.Name, other)
			}
			layouts[w.Report] = w.Name
			for _, scale := range w.Scales {
				b, err := w.New(workload.Options{Scale: scale})
				if err != nil {
					t.Fatalf("scale %s: %v", scale, err)
				}
				if b.Name() != w.Name || b.Scale() != scale || b.Clients() <= 0 {
					t.Errorf("scale %s: built %s at %s with %d clients", scale, b.Name(), b.Scale(), b.Clients())
				}
			}
			if _, err := w.New(workload.Options{Scale: "no-such-scale"}); err == nil {
				t.Error("an unknown scale was accepted")
			}
		})
	}
}

// TestLookup checks that every name finds its own entry, and that the report reads a run of
// another name, or none, as the default workload's.
func TestLookup(t *testing.T) {
	names := Names()
	if Default().Name != names[0] {
		t.Errorf("default %s, want the first, %s", Default().Name, names[0])
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s is listed twice", n)
		}
		seen[n] = true
		w, ok := Lookup(n)
		if !ok || w.Name != n || Of(n).Name != n {
			t.Errorf("Lookup(%q) = %s, %v", n, w.Name, ok)
		}
		if Layouts()(n) != w.Report {
			t.Errorf("Layouts()(%q) is not its entry's layout", n)
		}
	}
	for _, n := range []string{"", "no-such-workload"} {
		if _, ok := Lookup(n); ok {
			t.Errorf("Lookup(%q) found a workload", n)
		}
		if Of(n).Name != Default().Name || Layouts()(n) != Default().Report {
			t.Errorf("%q does not read as the default workload", n)
		}
	}
}

// TestSeedsRecorded checks that a workload built without --seed records its descriptor's seed,
// and with one, the given seed: the help names the descriptor's.
func TestSeedsRecorded(t *testing.T) {
	for _, w := range Workloads() {
		b, err := w.New(workload.Options{Scale: w.Scales[0]})
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Params()["seed"]; got != w.Seed {
			t.Errorf("%s: seed %v, want the descriptor's %d", w.Name, got, w.Seed)
		}
		seed := uint64(7)
		if b, err = w.New(workload.Options{Scale: w.Scales[0], Seed: &seed}); err != nil || b.Params()["seed"] != seed {
			t.Errorf("%s: --seed 7 gave %v, %v", w.Name, b.Params()["seed"], err)
		}
	}
}
