package result

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// MarkKilled marks r, a run killed while running, killed: its status and those of its
// running configurations, with why as its error. It reports whether r was running; a run that
// was not is left as it is.
func (r *Run) MarkKilled(why string) bool {
	if r.Status != StatusRunning {
		return false
	}
	r.Status = StatusKilled
	r.Error = why
	for i := range r.Configs {
		if c := &r.Configs[i]; c.Status == StatusRunning {
			c.Status = StatusKilled
		}
	}
	return true
}

// ReadStatus reads the status of the run in dir from its run.json's first keys only (status
// comes before the configurations), so that a run's whole record is not read to find it.
func ReadStatus(dir string) (string, error) {
	path := filepath.Join(dir, "run.json")
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("%s: not a run", path)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		if t == "status" {
			var s string
			return s, json.Unmarshal(v, &s)
		}
	}
	return "", fmt.Errorf("%s: no status", path)
}
