package server

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
)

// maxLogScan bounds how much of the end of a log is read for error messages.
const maxLogScan = 1 << 20

// tailLines returns the last n lines of the file at path, reading no further back than offset
// from (and no more than maxLogScan bytes). A missing file has no lines.
func tailLines(path string, from int64, n int) []string {
	lines := readLog(path, from)
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// readLog returns the lines of the file at path from offset from, at most its last
// maxLogScan bytes (then the first, partial line is dropped).
func readLog(path string, from int64) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	start, partial := from, false
	if fi.Size()-start > maxLogScan {
		start, partial = fi.Size()-maxLogScan, true
	}
	if start < 0 || start > fi.Size() {
		start = 0
	}
	b, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return nil
	}
	if partial {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return splitLines(string(b))
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// relevantLog returns the lines of the server's log since the server process started that
// explain a failure (see relevantLines).
func (s *Server) relevantLog() []string {
	return relevantLines(s.kind, readLog(s.logPath, s.logStart))
}

// maxRelevant is how many log lines an error message carries at most.
const maxRelevant = 10

// relevantLines picks the lines of a server's (or its initialisation program's) output that
// say what went wrong: PostgreSQL's FATAL/PANIC/ERROR lines and its complaints about
// parameters, with their DETAIL and HINT lines; MariaDB's [ERROR] lines. Timestamps are cut
// off. Without such lines it returns the last lines of the output.
func relevantLines(kind Kind, lines []string) []string {
	var out []string
	prev := false
	for _, l := range lines {
		msg := stripTimestamp(l)
		var keep bool
		switch kind {
		case Postgres:
			keep = strings.Contains(msg, "FATAL:") || strings.Contains(msg, "PANIC:") ||
				strings.Contains(msg, "ERROR:") || strings.Contains(msg, "error:") ||
				strings.Contains(msg, `parameter "`) ||
				(prev && (strings.HasPrefix(msg, "DETAIL:") || strings.HasPrefix(msg, "HINT:")))
		case FerretDB:
			keep = ferretErrorRE.MatchString(msg)
		case Mongod:
			keep = strings.Contains(msg, `"s":"E"`) || strings.Contains(msg, `"s":"F"`)
		default:
			keep = mariaBadLine(msg)
		}
		if keep {
			out = append(out, msg)
		}
		prev = keep
	}
	if len(out) == 0 {
		out = lines
		for i, l := range out {
			out[i] = stripTimestamp(l)
		}
	}
	if len(out) > maxRelevant {
		out = out[len(out)-maxRelevant:]
	}
	return out
}

// timestampRE matches the timestamps that start PostgreSQL's ("2024-05-01 10:00:00.123 UTC
// [123] ") and MariaDB's ("2024-05-01 10:00:00 0 ") log lines.
var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]\s?\d{1,2}:\d\d:\d\d(\.\d+)?( [A-Z][A-Za-z0-9+-]{1,5})?( \[\d+\]| \d+)? +`)

func stripTimestamp(l string) string {
	return timestampRE.ReplaceAllString(l, "")
}
