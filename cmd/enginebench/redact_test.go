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

func TestRedactText(t *testing.T) {
	cases := []struct {
		in, want string
		secrets  []string
	}{
		{"postgres://u:pw@h:5432/db?sslmode=disable", "postgres://u:<redacted>@h:5432/db?sslmode=disable", nil},
		{"connect postgresql://u:p@ss@h/db: refused", "connect postgresql://u:<redacted>@h/db: refused", nil},
		{"postgres://u@h/db", "postgres://u@h/db", nil},
		{"root:pw@tcp(127.0.0.1:3306)/db", "root:<redacted>@tcp(127.0.0.1:3306)/db", nil},
		{"root:p@ss:w/rd@tcp(h)/db", "root:<redacted>@tcp(h)/db", nil},
		{"open u:pw@/db failed", "open u:<redacted>@/db failed", nil},
		{"host=/tmp user=u password=secret dbname=x", "host=/tmp user=u password=<redacted> dbname=x", nil},
		{"host=h password = 'a b' port=5", "host=h password = <redacted> port=5", nil},
		{"PGPASSWORD=x psql; MYSQL_PWD=y mysql", "PGPASSWORD=<redacted> psql; MYSQL_PWD=<redacted> mysql", nil},
		{"postgres://u@h/db?password=x&sslmode=y", "postgres://u@h/db?password=<redacted>&sslmode=y", nil},
		{"dial tcp 127.0.0.1:3306: connect: connection refused", "dial tcp 127.0.0.1:3306: connect: connection refused", nil},
		{"Access denied for user 'root'@'localhost' (using password: YES)", "Access denied for user 'root'@'localhost' (using password: YES)", nil},
		{"l.i0 at 12:30 ok; see /tmp/a:3", "l.i0 at 12:30 ok; see /tmp/a:3", nil},
		{"cannot reach db.example:5432 as bench", "cannot reach <redacted> as bench", []string{"db.example:5432", "x"}},
		{"dsn host=h sslmode=disable", "dsn <redacted>", []string{"host=h", "host=h sslmode=disable"}},
	}
	for _, c := range cases {
		if got := redactText(c.in, c.secrets...); got != c.want {
			t.Errorf("redactText(%q, %q) = %q, want %q", c.in, c.secrets, got, c.want)
		}
	}
}

func TestDSNSecrets(t *testing.T) {
	cases := []struct {
		dsn  string
		want []string
	}{
		{"", nil},
		{"postgres://u:pw@h/db", []string{"postgres://u:pw@h/db", "pw"}},
		{"u:p@ss@tcp(h)/db", []string{"u:p@ss@tcp(h)/db", "p@ss"}},
		{"host=h password='a b'", []string{"host=h password='a b'", "a b"}},
		{"host=/run/db user=bench", []string{"host=/run/db user=bench"}},
	}
	for _, c := range cases {
		if got := dsnSecrets(c.dsn); !slices.Equal(got, c.want) {
			t.Errorf("dsnSecrets(%q) = %q, want %q", c.dsn, got, c.want)
		}
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
