package runner

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestOpError: an engine's message is cut to MaxErrorText bytes on a character boundary,
// saying how much was left out, after the operation's name; the cause stays reachable; a short
// message is kept whole; nil stays nil.
func TestOpError(t *testing.T) {
	cause := &fs.PathError{Op: "write", Path: "/x", Err: errors.New("syntax error near VALUES (" + strings.Repeat("123456, ", 20000) + ")")}
	err := OpError("insert links", cause)
	var pe *fs.PathError
	if !errors.Is(err, cause) || !errors.As(err, &pe) || len(err.Error()) > MaxErrorText+40 ||
		!strings.HasPrefix(err.Error(), "insert links: write /x: syntax error near") || !strings.HasSuffix(err.Error(), "more bytes)") {
		t.Errorf("error of %d bytes: %.200s", len(err.Error()), err)
	}
	if got := OpError("x", errors.New("short")).Error(); got != "x: short" {
		t.Errorf("a short error: %q", got)
	}
	long := errors.New(strings.Repeat("é", 1000))
	if got := OpError("", long).Error(); !strings.HasPrefix(got, "éé") || len(got) > MaxErrorText+40 {
		t.Errorf("no operation: %.100q", got)
	}
	if OpError("x", nil) != nil {
		t.Error("OpError of nil is not nil")
	}
	if got := Clip("ééé", 3); got != "é... (4 more bytes)" {
		t.Errorf("cut in a character: %q", got)
	}
}
