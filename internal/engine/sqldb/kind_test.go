package sqldb

import "testing"

// TestDialectOf checks that each kind's dialect says its kind, its name and whether it is a
// server's, and that an unknown kind has none.
func TestDialectOf(t *testing.T) {
	for _, c := range []struct {
		k      Kind
		name   string
		server bool
	}{{SQLite, "sqlite", false}, {Postgres, "postgres", true}, {MySQL, "mysql", true}} {
		d := DialectOf(c.k)
		if d.Kind() != c.k || d.Name() != c.name || c.k.String() != c.name || d.Server() != c.server {
			t.Errorf("DialectOf(%s): kind %s, name %q, server %v; want %q, server %v",
				c.k, d.Kind(), d.Name(), d.Server(), c.name, c.server)
		}
	}
	if d := DialectOf(0); d != nil {
		t.Errorf("DialectOf(0) = %v, want nil", d)
	}
	if s := Kind(0).String(); s != "Kind(0)" {
		t.Errorf("Kind(0).String() = %q", s)
	}
}
