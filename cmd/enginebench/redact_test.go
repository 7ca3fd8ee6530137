package main

import (
	"slices"
	"strings"
	"testing"
)

func TestRedactArgs(t *testing.T) {
	cases := []struct {
		name     string
		in, want []string
	}{
		{"no DSN", []string{"run", "--scale", "tiny", "--config", "s.yaml", "--db-pid", "pg=42"},
			[]string{"run", "--scale", "tiny", "--config", "s.yaml", "--db-pid", "pg=42"}},
		{"--dsn URL", []string{"run", "--dsn", "postgres://u:pw@h/db"}, []string{"run", "--dsn", "<redacted>"}},
		{"--dsn=URL", []string{"run", "--dsn=postgres://u:pw@h/db"}, []string{"run", "--dsn=<redacted>"}},
		{"--dsn without a password", []string{"--dsn", "bench@unix(/run/mysqld/mysqld.sock)/bench"}, []string{"--dsn", "<redacted>"}},
		{"--dsn CONFIG=DSN", []string{"--dsn", "innodb-a2=root:pw@tcp(h:3306)/db"}, []string{"--dsn", "innodb-a2=<redacted>"}},
		{"--dsn=CONFIG=DSN", []string{"--dsn=pg=host=/tmp password=x"}, []string{"--dsn=pg=<redacted>"}},
		{"--dsn keyword/value", []string{"--dsn", "host=/tmp user=u password=x"}, []string{"--dsn", "host=<redacted>"}},
		{"--dsn keyword/value with a space", []string{"--dsn", "user=u password=x"}, []string{"--dsn", "user=<redacted>"}},
		{"--dsn with a prefix that is no name", []string{"--dsn", "u:pw@/db?x=y"}, []string{"--dsn", "<redacted>"}},
		{"several", []string{"--engines", "postgres,innodb", "--dsn", "postgres=a", "--dsn=innodb=b", "--keep"},
			[]string{"--engines", "postgres,innodb", "--dsn", "postgres=<redacted>", "--dsn=innodb=<redacted>", "--keep"}},
		{"--dsn last, without a value", []string{"run", "--dsn"}, []string{"run", "--dsn"}},
		{"a password elsewhere", []string{"--set", "pg.password=x", "--out", "u:pw@/db"},
			[]string{"--set", "pg.password=<redacted>", "--out", "u:<redacted>@/db"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := redactArgs(c.in); !slices.Equal(got, c.want) {
				t.Errorf("redactArgs(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestDSNNeverPrinted(t *testing.T) {
	const pw = "s3cretpw"
	t.Setenv("TEST_SECRET_DSN", "postgres://bench:"+pw+"@db/bench")
	cases := []struct {
		name string
		spec string
		args []string
		want string
	}{
		{"--dsn for an embedded engine", "", []string{"--engines", "sqlite", "--dsn", "postgres://u:" + pw + "@h/db"}, "is not a server"},
		{"--dsn=CONFIG=DSN", "", []string{"--engines", "sqlite", "--dsn=sqlite=u:" + pw + "@tcp(h)/db"}, "is not a server"},
		{"--dsn for several", "", []string{"--engines", "sqlite,pebble", "--dsn", "host=h password=" + pw}, "give --dsn CONFIG=DSN"},
		{"--dsn that is only a password", "", []string{"--engines", "sqlite,pebble", "--dsn", pw}, "give --dsn CONFIG=DSN"},
		{"dsn in the spec", "configs:\n  - name: a\n    engine: sqlite\n    dsn: postgres://u:" + pw + "@h/db\n", nil, "(DSN from dsn: in "},
		{"dsn_env in the spec", "configs:\n  - name: a\n    engine: sqlite\n    dsn_env: TEST_SECRET_DSN\n", nil,
			"(DSN from environment variable TEST_SECRET_DSN)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"run", "--out", dir + "/r", "--data-dir", dir + "/d"}
			if c.spec != "" {
				args = append(args, "--config", writeSpec(t, c.spec))
			}
			code, stdout, stderr := runCLI(t, append(args, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q: want %d and %q", code, stderr, exitUsage, c.want)
			}
			if strings.Contains(stdout+stderr, pw) {
				t.Errorf("the password is printed:\n%s%s", stdout, stderr)
			}
		})
	}
}
