package redact

import (
	"io"
	"strings"
)

// NewWriter returns a writer that writes through to w with what Text removes, and secrets,
// removed from each write.
func NewWriter(w io.Writer, secrets []string) io.Writer { return writer{w: w, secrets: secrets} }

// writer is the writer of NewWriter.
type writer struct {
	w       io.Writer
	secrets []string
}

func (r writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, Text(string(p), r.secrets...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Args returns the command line args for output and records: the value of every flag (FLAG
// VALUE or FLAG=VALUE) replaced by value(VALUE), and what Text removes removed from every
// other argument, also from those after "--".
func Args(args []string, flag string, value func(string) string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, rest := range args[i:] {
				out = append(out, Text(rest))
			}
			return out
		case a == flag && i+1 < len(args):
			out = append(out, a, value(args[i+1]))
			i++
		case strings.HasPrefix(a, flag+"="):
			out = append(out, flag+"="+value(strings.TrimPrefix(a, flag+"=")))
		default:
			out = append(out, Text(a))
		}
	}
	return out
}
