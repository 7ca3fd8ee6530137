package redact

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
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
		if got := Text(c.in, c.secrets...); got != c.want {
			t.Errorf("Text(%q, %q) = %q, want %q", c.in, c.secrets, got, c.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	cases := []struct {
		dsn  string
		want []string
	}{
		{"", nil},
		{"postgres://u:pw@h/db", []string{"postgres://u:pw@h/db", "pw"}},
		{"u:p@ss@tcp(h)/db", []string{"u:p@ss@tcp(h)/db", "p@ss"}},
		{"host=h password='a b'", []string{"host=h password='a b'", "a b"}},
		{"host=/run/db user=bench", []string{"host=/run/db user=bench"}},
		// The driver's reading first, then the form the DSN writes when it differs.
		{"postgres://u:p%40ss@h/db", []string{"postgres://u:p%40ss@h/db", "p@ss", "p%40ss"}},
		{`host=h password='it\'s'`, []string{`host=h password='it\'s'`, "it's", `it\'s`}},
		{"redis://u:s%3Acret@h/0", []string{"redis://u:s%3Acret@h/0", "s:cret", "s%3Acret"}},
		// A parameter the MySQL driver refuses (its error quotes the value) hides no password.
		{"u:pw@tcp(h:1)/db?timeout=pw", []string{"u:pw@tcp(h:1)/db?timeout=pw", "pw"}},
		{"u:p?w@tcp(h:1)/db?timeout=x", []string{"u:p?w@tcp(h:1)/db?timeout=x", "p?w"}},
		// A DSN its driver refuses is a secret as a whole.
		// Its password keywords are still read.
		{"host='unterminated password=pw", []string{"host='unterminated password=pw", "pw"}},
		// The password of an encrypted client key is one too, whether the DSN parses or not.
		{"host=h sslmode=verify-full sslkey=/k.pem sslpassword='k p'", []string{"host=h sslmode=verify-full sslkey=/k.pem sslpassword='k p'", "k p"}},
		{"postgres://u:pw@h/db?sslpassword=k%26p&sslkey=/nonexistent", []string{"postgres://u:pw@h/db?sslpassword=k%26p&sslkey=/nonexistent", "pw", "k%26p", "k&p"}},
		{"mongodb://h/?tls=true&tlsCertificateKeyFilePassword=kp", []string{"mongodb://h/?tls=true&tlsCertificateKeyFilePassword=kp", "kp"}},
		// A file path with '/' in a MySQL DSN's parameters (enginebench's tls-ca=) hides no password.
		{"u:pw@tcp(h:1)/db?tls-ca=/etc/ca.pem&tls=true", []string{"u:pw@tcp(h:1)/db?tls-ca=/etc/ca.pem&tls=true", "pw"}},
	}
	for _, c := range cases {
		if got := Secrets(c.dsn); !slices.Equal(got, c.want) {
			t.Errorf("Secrets(%q) = %q, want %q", c.dsn, got, c.want)
		}
	}
}

func TestSecretsAndError(t *testing.T) {
	tests := []struct {
		dsn  string
		want []string // passwords that must be found
	}{
		{"postgres://bench:pa55word@db.example:5432/bench?sslmode=disable", []string{"pa55word"}},
		{"host=/tmp user=bench password=pa55word dbname=bench", []string{"pa55word"}},
		{"host=/tmp password='pa ss\\'word' dbname=bench", []string{"pa ss\\'word"}},
		{"bench:pa55word@unix(/tmp/my.sock)/bench", []string{"pa55word"}},
		{"bench:pa55@word@tcp(127.0.0.1:3306)/bench", []string{"pa55@word"}},
		{"postgres://db.example/bench?password=pa55word&sslmode=disable", []string{"pa55word"}},
		{"bench@unix(/tmp/my.sock)/bench", nil},
	}
	for _, tt := range tests {
		s := Secrets(tt.dsn)
		if len(s) == 0 || s[0] != tt.dsn {
			t.Errorf("Secrets(%q) = %q: the DSN itself is missing", tt.dsn, s)
		}
		for _, pw := range tt.want {
			msg := Text("connect to "+tt.dsn+" failed; password "+pw+" rejected", s...)
			if strings.Contains(msg, pw) || strings.Contains(msg, tt.dsn) {
				t.Errorf("redacted message %q still holds the password %q", msg, pw)
			}
		}
	}
	base := &codeError{code: 1045, msg: "Access denied for s3cret"}
	err := Error(fmt.Errorf("open: %w", base), []string{"s3cret"})
	var me *codeError
	if strings.Contains(err.Error(), "s3cret") || !errors.As(err, &me) {
		t.Errorf("Error = %q (errors.As %v)", err, errors.As(err, &me))
	}
	if plain := errors.New("nothing secret"); Error(plain, []string{"s3cret"}) != plain {
		t.Error("Error wrapped an error without secrets")
	}
}

// codeError is a driver-like error type that errors.As must still find through Error.
type codeError struct {
	code int
	msg  string
}

func (e *codeError) Error() string { return fmt.Sprintf("Error %d: %s", e.code, e.msg) }

// TestYAML: a file's copy loses every password, also in comments and in YAML's key: value
// form, and every secret the caller knows (a DSN's password written again in a comment).
func TestYAML(t *testing.T) {
	in := `# connect with: psql postgres://bench:urlpw1@db/bench
# password=kwpw2
# password: yamlpw3 and more words
# MYSQL_PWD=envpw4 mysql -u root
# mysql: root:mypw6@tcp(db:3306)/bench
workload: insert   # PGPASSWORD: "quoted pw7"
configs:
  - name: a
    engine: srv
    settings:
      db_password: 'pw8'
      cache_mb: 64 # the old password hunter9 expired
`
	out := YAML(in, "hunter9")
	for _, pw := range []string{"urlpw1", "kwpw2", "yamlpw3", "more words", "envpw4", "mypw6", "pw7", "pw8", "hunter9"} {
		if strings.Contains(out, pw) {
			t.Errorf("YAML keeps %q:\n%s", pw, out)
		}
	}
	for _, keep := range []string{"workload: insert", "cache_mb: 64", "  - name: a", "db_password: <redacted>", "# password: <redacted>"} {
		if !strings.Contains(out, keep) {
			t.Errorf("YAML lost %q:\n%s", keep, out)
		}
	}
}

func TestArgs(t *testing.T) {
	hide := func(string) string { return "HIDDEN" }
	cases := []struct{ in, want []string }{
		{[]string{"run", "--scale", "tiny"}, []string{"run", "--scale", "tiny"}},
		{[]string{"--dsn", "postgres://u:pw@h/db", "--keep"}, []string{"--dsn", "HIDDEN", "--keep"}},
		{[]string{"--dsn=a", "--dsnx=u:pw@/db"}, []string{"--dsn=HIDDEN", "--dsnx=u:<redacted>@/db"}},
		{[]string{"run", "--dsn"}, []string{"run", "--dsn"}},
		{[]string{"--out", "u:pw@/db", "--", "--dsn", "password=x"}, []string{"--out", "u:<redacted>@/db", "--", "--dsn", "password=<redacted>"}},
	}
	for _, c := range cases {
		if got := Args(c.in, "--dsn", hide); !slices.Equal(got, c.want) {
			t.Errorf("Args(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b, []string{"s3cret"})
	p := []byte("connect postgres://u:pw@h/db with s3cret\n")
	if n, err := w.Write(p); n != len(p) || err != nil {
		t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(p))
	}
	if want := "connect postgres://u:<redacted>@h/db with <redacted>\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
