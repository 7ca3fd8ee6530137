package store

import (
	"fmt"
	"unicode/utf8"
)

// maxErrText bounds the engine's part of an operation's error: a driver that repeats a
// statement, or the values it was given, must not flood the output, the log or run.json.
const maxErrText = 512

// opError is the error of an operation: its name, then its cause's message cut to maxErrText
// bytes. The cause stays reachable through errors.Is and errors.As.
type opError struct {
	op  string
	err error
}

// opErr returns err as the error of operation op.
func opErr(op string, err error) error { return &opError{op: op, err: err} }

func (e *opError) Error() string { return e.op + ": " + cut(e.err.Error(), maxErrText) }

func (e *opError) Unwrap() error { return e.err }

// cut returns s when it has at most n bytes, else its first n bytes (whole runes) and how
// many bytes were left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return fmt.Sprintf("%s... (%d more bytes)", s[:k], len(s)-k)
}
