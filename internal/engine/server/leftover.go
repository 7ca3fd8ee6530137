package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
)

// StaleSocketDirs returns the directories enginebench made under the temporary directories
// (SocketDirPrefixes) that no live enginebench process owns any more: their OwnerFile names a
// process that is gone (or whose PID now belongs to another process), or, without an
// OwnerFile (a directory still being set up, or the settings check's), they are older than
// grace. A killed run leaves them; a running one's are never returned.
func StaleSocketDirs(now time.Time, grace time.Duration) []string {
	var out []string
	for _, base := range socketBases() {
		entries, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || !hasSocketPrefix(e.Name()) {
				continue
			}
			dir := filepath.Join(base, e.Name())
			if socketDirStale(dir, now, grace) {
				out = append(out, dir)
			}
		}
	}
	return out
}

// socketBases returns where makeSocketDir and the settings check put their directories.
func socketBases() []string {
	base := os.TempDir()
	if len(base)+len(pgCheckPrefix)+len("/1234567890/.s.PGSQL.65535.lock") > maxSocketPath {
		return []string{base, "/tmp"}
	}
	return []string{base}
}

func hasSocketPrefix(name string) bool {
	for _, p := range SocketDirPrefixes() {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// socketDirStale reports whether dir's owner is gone (see StaleSocketDirs).
func socketDirStale(dir string, now time.Time, grace time.Duration) bool {
	b, err := os.ReadFile(filepath.Join(dir, OwnerFile))
	if err != nil {
		st, err := os.Stat(dir)
		return err == nil && now.Sub(st.ModTime()) > grace
	}
	pid, start := 0, uint64(0)
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "pid":
			pid, _ = strconv.Atoi(v)
		case "start":
			start, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	return !ownerAlive(pid, start)
}

// ownerAlive reports whether process pid runs and started at start (clock ticks after boot,
// as in OwnerFile); a zombie has ended.
func ownerAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	st, err := p.Stat()
	if err != nil {
		return false
	}
	return st.State != "Z" && (start == 0 || st.Starttime == start)
}
