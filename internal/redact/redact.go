// Package redact keeps credentials out of output, logs, errors and result files: it finds the
// passwords of a DSN and replaces them, the DSN itself and any password-shaped text in a
// message, a command line or what a writer writes.
package redact

import (
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// Marker replaces what is removed.
const Marker = "<redacted>"

var (
	// urlUserRE matches SCHEME://USER:PASSWORD@ of a URL (postgres://u:pw@host/db), up to
	// the last @ of the word.
	urlUserRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*):(\S*)@`)
	// mysqlUserRE matches USER:PASSWORD@ of a MySQL DSN (u:pw@tcp(host)/db, u:pw@/db), whose
	// password may hold '@': up to the @ before the protocol or the database.
	mysqlUserRE = regexp.MustCompile(`([^\s:/@'"=()]*):(\S*)@(\w*\(|/)`)
	// keywordRE matches password=VALUE of a keyword/value DSN (password='a b'), of a URL's
	// query (?password=pw) and of variables (PGPASSWORD=pw, MYSQL_PWD=pw).
	keywordRE = regexp.MustCompile(`(?i)\b(\w*(?:password|passwd|pwd))(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&;,]*)`)
	// slashParamRE matches a parameter of a MySQL DSN whose value holds a '/'.
	slashParamRE = regexp.MustCompile(`[?&][^?&=/]+=[^&]*/[^&]*`)
	// yamlKeyRE matches a password key of YAML and the rest of its line (password: pw,
	// db_password: 'pw', # PGPASSWORD: pw in a comment): the value may be several words.
	yamlKeyRE = regexp.MustCompile(`(?im)\b(\w*(?:password|passwd|pwd))([ \t]*:[ \t]+)(\S.*)$`)
)

// Text returns s with every occurrence of each of secrets (DSNs and passwords known to the
// caller; longest first, so that a DSN goes before its password) and every password of a DSN
// or URL in it replaced.
func Text(s string, secrets ...string) string {
	sorted := slices.Clone(secrets)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, sec := range sorted {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Marker)
		}
	}
	s = urlUserRE.ReplaceAllString(s, "${1}:"+Marker+"@")
	s = mysqlUserRE.ReplaceAllString(s, "${1}:"+Marker+"@${3}")
	return keywordRE.ReplaceAllString(s, "${1}${2}"+Marker)
}

// YAML returns the text of a YAML file (a run spec) with what Text removes and every
// password of YAML's key: value form removed, in its values and in its comments alike.
func YAML(s string, secrets ...string) string {
	return yamlKeyRE.ReplaceAllString(Text(s, secrets...), "${1}${2}"+Marker)
}

// Secrets returns what of dsn must never be shown: the DSN itself (a DSN its driver cannot
// parse may hide a password anywhere) and its password as the driver reads it, parsed by the
// driver's own parser (pgconn for a PostgreSQL URL or keyword/value string, go-sql-driver for
// a MySQL DSN, net/url for any other URL), and as it is written in the DSN when that differs
// (quoted, escaped or percent-encoded).
func Secrets(dsn string) []string {
	if dsn == "" {
		return nil
	}
	out := []string{dsn}
	if pws := passwords(dsn); len(pws) > 0 && pws[0] != "" {
		out = append(out, pws[0]) // as the driver reads it
		for _, form := range pws[1:] {
			if form != pws[0] && strings.Contains(dsn, form) && !slices.Contains(out, form) {
				out = append(out, form) // as the DSN writes it
			}
		}
	}
	for _, pw := range keywordPasswords(dsn) {
		if pw != "" && !slices.Contains(out, pw) {
			out = append(out, pw)
		}
	}
	return out
}

// keywordPasswords returns the values of a DSN's password keywords and parameters, found
// whether or not its driver parses it: password=, PostgreSQL's sslpassword= (of an encrypted
// client key), MongoDB's tlsCertificateKeyFilePassword=; each as written, without its quotes,
// and percent-decoded.
func keywordPasswords(dsn string) []string {
	var out []string
	for _, m := range keywordRE.FindAllStringSubmatch(dsn, -1) {
		v := m[3]
		if n := len(v); n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n-1] == v[0] {
			v = v[1 : n-1]
			out = append(out, v, strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`).Replace(v))
			continue
		}
		out = append(out, v)
		if d, err := url.QueryUnescape(v); err == nil && d != v {
			out = append(out, d)
		}
	}
	return out
}

// passwords returns the password of dsn, read by the parser of its kind of DSN, followed by
// the forms in which a DSN may write it.
func passwords(dsn string) []string {
	scheme, _, isURL := strings.Cut(dsn, "://")
	switch {
	case isURL && (scheme == "postgres" || scheme == "postgresql"), !isURL && keywordValue(dsn):
		if cfg, err := pgconn.ParseConfig(dsn); err == nil {
			return []string{cfg.Password, keywordQuoted(cfg.Password), url.QueryEscape(cfg.Password), url.PathEscape(cfg.Password)}
		}
		if isURL { // pgconn also refuses a URL whose TLS files it cannot read
			return urlPasswords(dsn)
		}
	case isURL:
		return urlPasswords(dsn)
	default:
		// A parameter the driver refuses fails the whole DSN, and the driver's error may quote
		// its value: the password is then read from the DSN without its parameters.
		// A parameter whose value holds a '/' (a file: enginebench's tls-ca=) moves the last
		// '/' the driver looks for: it is taken out too.
		for _, d := range []string{dsn, withoutParams(dsn), withoutParams(slashParamRE.ReplaceAllString(dsn, ""))} {
			if cfg, err := mysql.ParseDSN(d); err == nil {
				return []string{cfg.Passwd}
			}
		}
	}
	return nil
}

// urlPasswords returns the password of the URL dsn, as net/url reads it and as it is written.
func urlPasswords(dsn string) []string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return nil
	}
	pw, _ := u.User.Password()
	_, raw, _ := strings.Cut(u.User.String(), ":")
	return []string{pw, raw}
}

// keywordValue reports whether dsn is a keyword/value connection string (host=h user=u): it
// starts with a keyword and '='. A MySQL DSN's first '=' ends a parameter after its '?'.
func keywordValue(dsn string) bool {
	key, _, ok := strings.Cut(dsn, "=")
	key = strings.TrimSpace(key)
	return ok && key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}

// withoutParams returns a MySQL DSN without its parameters: go-sql-driver/mysql reads them
// after the first '?' that follows the last '/'.
func withoutParams(dsn string) string {
	slash := strings.LastIndexByte(dsn, '/')
	if slash < 0 {
		return dsn
	}
	if q := strings.IndexByte(dsn[slash:], '?'); q >= 0 {
		return dsn[:slash+q]
	}
	return dsn
}

// keywordQuoted returns pw as a keyword/value connection string writes it in quotes, its
// backslashes and quotes escaped.
func keywordQuoted(pw string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
}

// Error returns err with its message redacted (see Text), or err itself when its message
// holds nothing to remove. errors.Is and errors.As still see the errors it wraps.
func Error(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := Text(msg, secrets...)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// redactedError is an error whose message had secrets removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
