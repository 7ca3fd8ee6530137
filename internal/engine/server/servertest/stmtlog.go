package servertest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
)

// The protocol a logged statement came by.
const (
	Text    = "text"    // a text query: MySQL COM_QUERY, the PostgreSQL simple protocol
	Prepare = "prepare" // MySQL COM_STMT_PREPARE (PostgreSQL logs no parse step)
	Execute = "execute" // a server-side prepared statement executed: MySQL COM_STMT_EXECUTE, the PostgreSQL extended protocol
)

// Statement is one statement a server logged: the protocol it came by and its text as logged
// (MariaDB logs an executed statement with its values; PostgreSQL with its placeholders).
type Statement struct {
	Protocol string
	SQL      string
}

// generalLog is the MariaDB general log's file name in the data directory.
const generalLog = "general.log"

// StatementLogSettings returns the server settings that make a server of kind log every
// statement it receives into its data directory, for StatementLog to read.
func StatementLogSettings(kind server.Kind) map[string]string {
	if kind == server.MariaDB {
		return map[string]string{"general_log": "ON", "general_log_file": generalLog, "log_output": "FILE"}
	}
	return map[string]string{"log_statement": "all"}
}

// StatementLog reads the statements logged by the server of kind whose data directory is
// dataDir, started with StatementLogSettings.
type StatementLog struct {
	kind server.Kind
	path string
	off  int64
}

// NewStatementLog returns a reader of the statements that the server of kind in dataDir logs
// from now on.
func NewStatementLog(t testing.TB, kind server.Kind, dataDir string) *StatementLog {
	t.Helper()
	l := &StatementLog{kind: kind, path: filepath.Join(dataDir, server.LogFile)}
	if kind == server.MariaDB {
		l.path = filepath.Join(dataDir, generalLog)
	}
	l.Next(t) // skip what was logged before
	return l
}

// Next returns the statements logged since the last call (or since NewStatementLog).
func (l *StatementLog) Next(t testing.TB) []Statement {
	t.Helper()
	f, err := os.Open(l.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("statement log: %v", err)
	}
	defer f.Close()
	if _, err := f.Seek(l.off, 0); err != nil {
		t.Fatalf("statement log: %v", err)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var read int64
	for sc.Scan() {
		lines = append(lines, sc.Text())
		read += int64(len(sc.Bytes())) + 1
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("statement log: %v", err)
	}
	l.off += read
	if l.kind == server.MariaDB {
		return parseGeneralLog(lines)
	}
	return parsePostgresLog(lines)
}

// mariaLine is a general log entry: [time] thread id, command, argument.
var mariaLine = regexp.MustCompile(`^(?:\d{6}\s+\d{1,2}:\d\d:\d\d)?\s+\d+ (Query|Prepare|Execute|Connect|Quit|Init DB|Close stmt|Reset stmt|Field List|Statistics|Ping|Change user|Long Data)\t(.*)$`)

// parseGeneralLog returns the Query, Prepare and Execute entries of MariaDB general log
// lines; a line that starts no entry continues the one before.
func parseGeneralLog(lines []string) []Statement {
	var out []Statement
	cur := -1
	for _, ln := range lines {
		m := mariaLine.FindStringSubmatch(ln)
		if m == nil {
			if cur >= 0 {
				out[cur].SQL += "\n" + ln
			}
			continue
		}
		cur = -1
		proto := map[string]string{"Query": Text, "Prepare": Prepare, "Execute": Execute}[m[1]]
		if proto != "" {
			out = append(out, Statement{Protocol: proto, SQL: m[2]})
			cur = len(out) - 1
		}
	}
	return out
}

// pgLine is a PostgreSQL log line with the default prefix (time, zone, [pid]) and its level.
var pgLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[\d+\] (?:\S+ )?([A-Z]+):  (.*)$`)

// pgExecute is the message of a statement executed through the extended protocol.
var pgExecute = regexp.MustCompile(`^execute [^:]*: (.*)$`)

// parsePostgresLog returns the statements of PostgreSQL log lines (log_statement=all); a line
// that starts no entry continues the one before.
func parsePostgresLog(lines []string) []Statement {
	var out []Statement
	cur := -1
	for _, ln := range lines {
		m := pgLine.FindStringSubmatch(ln)
		if m == nil {
			if cur >= 0 {
				out[cur].SQL += "\n" + ln
			}
			continue
		}
		cur = -1
		if m[1] != "LOG" {
			continue
		}
		msg := m[2]
		switch {
		case strings.HasPrefix(msg, "statement: "):
			out = append(out, Statement{Protocol: Text, SQL: strings.TrimPrefix(msg, "statement: ")})
		case pgExecute.MatchString(msg):
			out = append(out, Statement{Protocol: Execute, SQL: pgExecute.FindStringSubmatch(msg)[1]})
		default:
			continue
		}
		cur = len(out) - 1
	}
	return out
}

var (
	shapeString = regexp.MustCompile(`'(?:[^'\\]|''|\\.)*'`)
	shapeNumber = regexp.MustCompile(`(^|[^\w$.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b`)
	shapeParam  = regexp.MustCompile(`\$\d+`)
	shapeSpace  = regexp.MustCompile(`\s+`)
	shapeList   = regexp.MustCompile(`\?(?:\s*,\s*\?)+`)
)

// Shape returns a statement's shape: lower case, one space for any run of white space, every
// literal and placeholder a ?, a list of n ?s "?*n" and n equal tuples "(...)*n". Statements
// that differ only in their values have the same shape; a different number of rows or ids per
// statement gives another.
func Shape(sql string) string {
	s := shapeString.ReplaceAllString(sql, "?")
	s = shapeParam.ReplaceAllString(s, "?")
	s = shapeNumber.ReplaceAllString(s, "${1}?")
	s = strings.TrimSpace(shapeSpace.ReplaceAllString(strings.ToLower(s), " "))
	s = shapeList.ReplaceAllStringFunc(s, func(m string) string {
		return fmt.Sprintf("?*%d", strings.Count(m, "?"))
	})
	return collapseTuples(s)
}

// collapseTuples writes each run of equal parenthesised tuples "(x), (x), (x)" as "(x)*3",
// also where a tuple holds parentheses of its own ("(from_unixtime(?),?)").
func collapseTuples(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		end := matchParen(s, i)
		if end < 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		// A run of tuples separated by commas: s[i:end], then ", (" ... .
		tuples, next := []string{s[i:end]}, end
		for {
			j := next
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j >= len(s) || s[j] != ',' {
				break
			}
			j++
			for j < len(s) && s[j] == ' ' {
				j++
			}
			e := matchParen(s, j)
			if e < 0 {
				break
			}
			tuples, next = append(tuples, s[j:e]), e
		}
		if len(tuples) == 1 {
			b.WriteByte('(') // a lone group: collapse what it holds
			b.WriteString(collapseTuples(s[i+1 : end-1]))
			b.WriteByte(')')
			i = end
			continue
		}
		b.WriteString(runs(tuples))
		i = next
	}
	return b.String()
}

// matchParen returns the index after the parenthesis that closes the one at s[i], or -1 when
// s[i] is not '(' or it is not closed.
func matchParen(s string, i int) int {
	if i >= len(s) || s[i] != '(' {
		return -1
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// runs writes tuples with each run of equal ones (but for spaces) as "(x)*n".
func runs(tuples []string) string {
	var parts []string
	cur, n := tuples[0], 1
	for _, tp := range tuples[1:] {
		if strings.ReplaceAll(tp, " ", "") == strings.ReplaceAll(cur, " ", "") {
			n++
			continue
		}
		parts = append(parts, times(cur, n))
		cur, n = tp, 1
	}
	parts = append(parts, times(cur, n))
	return strings.Join(parts, ", ")
}

func times(tuple string, n int) string {
	if n == 1 {
		return tuple
	}
	return fmt.Sprintf("%s*%d", tuple, n)
}

// Shapes counts statements by protocol and shape: "text: select ... where x >= ?" -> n.
func Shapes(stmts []Statement) map[string]int {
	m := map[string]int{}
	for _, s := range stmts {
		m[s.Protocol+": "+Shape(s.SQL)]++
	}
	return m
}

// FormatShapes lists shape counts one a line, sorted, for test failure messages.
func FormatShapes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%8d  %s\n", m[k], k)
	}
	return b.String()
}
