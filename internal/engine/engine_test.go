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

func TestSettingParsers(t *testing.T) {
	m := map[string]string{"n": " 12 ", "bad": "1.5", "mode": "WAL", "on": "true", "x": "maybe"}
	if v, err := IntSetting("e", m, "n", 0, 20); err != nil || v != 12 {
		t.Errorf("IntSetting n = %d, %v", v, err)
	}
	for _, c := range []struct {
		name     string
		min, max int
		want     string
	}{{"bad", 0, 9, `e: setting bad: "1.5" is not an integer`}, {"n", 0, 9, "12 is out of range [0, 9]"}} {
		if _, err := IntSetting("e", m, c.name, c.min, c.max); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("IntSetting %s: %v, want %q", c.name, err, c.want)
		}
	}
	var n, n2 int
	if err := IntSettings("e", m, []IntField{{Name: "n", Dst: &n, Min: 0, Max: 20}}); err != nil || n != 12 {
		t.Errorf("IntSettings n = %d, %v", n, err)
	}
	err := IntSettings("e", m, []IntField{{Name: "n", Dst: &n2, Min: 0, Max: 20}, {Name: "bad", Dst: &n, Min: 0, Max: 9}})
	if err == nil || !strings.Contains(err.Error(), "setting bad") || n2 != 12 {
		t.Errorf("IntSettings with a bad second field: %v (first field %d)", err, n2)
	}
	if v, err := EnumSetting("e", m, "mode", []string{"delete", "wal"}); err != nil || v != "wal" {
		t.Errorf("EnumSetting = %q, %v", v, err)
	}
	if _, err := EnumSetting("e", m, "x", []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "not one of a, b") {
		t.Errorf("EnumSetting x: %v", err)
	}
	if v, err := BoolSetting("e", m, "on"); err != nil || !v {
		t.Errorf("BoolSetting on = %v, %v", v, err)
	}
	if _, err := BoolSetting("e", m, "x"); err == nil {
		t.Error("BoolSetting accepted maybe")
	}
	var on, on2 bool
	err = BoolSettings("e", m, []BoolField{{Name: "on", Dst: &on}, {Name: "x", Dst: &on2}})
	if err == nil || !strings.Contains(err.Error(), "setting x") || !on {
		t.Errorf("BoolSettings with a bad second field: %v (first field %v)", err, on)
	}
}

func TestCheckDSN(t *testing.T) {
	open := func(context.Context, Config) (Engine, error) { return nil, nil }
	missing := func() error { return errors.New("srv not installed") }
	reg, err := NewRegistry(
		Driver{Name: "emb", Open: open},
		Driver{Name: "srv", Server: true, Available: missing, Open: open,
			Settings:      []Setting{{Name: "own", Default: "x", Client: true}, {Name: "var", Default: "1"}},
			CheckSettings: func(map[string]string) error { return nil },
			CheckDSN: func(dsn string) error {
				if dsn == "bad" {
					return errors.New("srv: the DSN is not valid")
				}
				return nil
			}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string // "" = accepted
	}{
		{Config{Engine: "emb", DSN: "x"}, "not a server"},
		{Config{Engine: "srv", DSN: "x"}, ""},
		{Config{Engine: "srv"}, "not installed"},
		{Config{Engine: "srv", DSN: "x", Settings: map[string]string{"a": "1"}}, "managed server only"},
		// A Client setting is the engine's own: accepted with a DSN; a server variable is not.
		{Config{Engine: "srv", DSN: "x", Settings: map[string]string{"own": "y"}}, ""},
		{Config{Engine: "srv", DSN: "x", Settings: map[string]string{"own": "y", "var": "2"}}, "managed server only, not to one given by --dsn: var"},
		// The driver's CheckDSN sees the DSN.
		{Config{Engine: "srv", DSN: "bad"}, "the DSN is not valid"},
	} {
		err := reg.Check(tc.cfg)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestCapMiB(t *testing.T) {
	for _, c := range []struct{ capBytes, div, min, want int64 }{
		{256 << 20, 2, 8, 128},
		{256 << 20, 64, 8, 8},
		{1 << 30, 32, 1, 32},
		{(1 << 30) + 5, 4, 1, 256},
		{0, 4, 1, 1},
	} {
		if got := CapMiB(c.capBytes, c.div, c.min); got != c.want {
			t.Errorf("CapMiB(%d, %d, %d) = %d, want %d", c.capBytes, c.div, c.min, got, c.want)
		}
	}
}
