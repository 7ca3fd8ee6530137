// Package redact keeps credentials out of output, logs, errors and result files: it finds the
// passwords of a DSN and replaces them, the DSN itself and any password-shaped text in a
// message.
package redact

import (
	"regexp"
	"slices"
	"sort"
	"strings"
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

// Secrets returns what of dsn must never be shown: the DSN itself (a malformed DSN may hide a
// password where no pattern finds it) and its passwords (URL user info, a MySQL DSN's
// user:password@, password=...).
func Secrets(dsn string) []string {
	if dsn == "" {
		return nil
	}
	out := []string{dsn}
	for _, re := range []*regexp.Regexp{urlUserRE, mysqlUserRE} {
		for _, m := range re.FindAllStringSubmatch(dsn, -1) {
			out = append(out, m[2])
		}
	}
	for _, m := range keywordRE.FindAllStringSubmatch(dsn, -1) {
		v := m[3]
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out = append(out, v)
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
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
