package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type fakeEngine struct{}

func (fakeEngine) Family() Family              { return FamilyKV }
func (fakeEngine) Version() string             { return "1" }
func (fakeEngine) Settings() map[string]string { return nil }
func (fakeEngine) Close() error                { return nil }

func driver(name string) Driver {
	return Driver{Name: name, Family: FamilyKV,
		Settings: []Setting{{Name: "size", Default: "1"}},
		CheckSettings: func(o map[string]string) error {
			if v, ok := o["size"]; ok && v != "1" && v != "2" {
				return errors.New("size must be 1 or 2")
			}
			return nil
		},
		Open: func(context.Context, Config) (Engine, error) { return fakeEngine{}, nil }}
}

func TestRegistryRejectsDuplicatesAndNamelessDrivers(t *testing.T) {
	if _, err := NewRegistry(driver("a"), driver("a")); err == nil {
		t.Error("duplicate name accepted")
	}
	if _, err := NewRegistry(Driver{Name: "x"}); err == nil {
		t.Error("driver without Open accepted")
	}
}

func TestRegistryCheck(t *testing.T) {
	unavailable := driver("gone")
	unavailable.Available = func() error { return errors.New("install libgone-dev") }
	r, err := NewRegistry(driver("a"), driver("b"), unavailable)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "a,b,gone" {
		t.Errorf("names %s, want registration order", got)
	}
	cases := []struct {
		cfg  Config
		want string // "" = ok
	}{
		{Config{Engine: "a"}, ""},
		{Config{Engine: "a", Settings: map[string]string{"size": "2"}}, ""},
		{Config{Engine: "zz"}, `unknown engine "zz" (known: a, b, gone)`},
		{Config{Engine: "a", Settings: map[string]string{"sise": "2"}}, "unknown setting sise (accepted: size)"},
		{Config{Engine: "a", Settings: map[string]string{"size": "9"}}, "size must be 1 or 2"},
		{Config{Engine: "gone"}, "install libgone-dev"},
	}
	for _, c := range cases {
		err := r.Check(c.cfg)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := r.Open(context.Background(), Config{Engine: "b", Settings: map[string]string{"size": "x"}}); err == nil {
		t.Error("Open accepted a bad setting value")
	}
}

func TestMergeSettings(t *testing.T) {
	m := MergeSettings([]Setting{{Name: "a", Default: "1"}, {Name: "b", Default: "2"}}, map[string]string{"b": "3"})
	if m["a"] != "1" || m["b"] != "3" || len(m) != 2 {
		t.Errorf("merged %v", m)
	}
}
