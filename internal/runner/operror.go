package runner

import (
	"fmt"
	"unicode/utf8"
)

// MaxErrorText bounds the engine's part of an operation's error: a driver may repeat a
// statement, with its values, in its message, which must not flood the output, the log or
// run.json.
const MaxErrorText = 512

// opError is the error of an operation: its name, then its cause's text cut to MaxErrorText
// bytes. The cause stays reachable through errors.Is and errors.As.
type opError struct {
	op  string
	err error
}

// OpError returns err as the error of operation op: "op: " and err's text cut to
// MaxErrorText bytes (err's text alone for an empty op). errors.Is and errors.As see err; nil
// stays nil. Workloads wrap every error of an engine with it.
func OpError(op string, err error) error {
	if err == nil {
		return nil
	}
	return &opError{op: op, err: err}
}

func (e *opError) Error() string {
	if e.op == "" {
		return Clip(e.err.Error(), MaxErrorText)
	}
	return e.op + ": " + Clip(e.err.Error(), MaxErrorText)
}

func (e *opError) Unwrap() error { return e.err }

// Clip returns s when it has at most n bytes, else its first n bytes (whole characters) and
// how many bytes were left out.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return fmt.Sprintf("%s... (%d more bytes)", s[:k], len(s)-k)
}
