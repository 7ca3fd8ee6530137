package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// identity is the OS user the server's processes run as.
type identity struct {
	name     string
	uid, gid int
	// drop is true when enginebench runs as root and the server runs as uid/gid instead.
	drop bool
}

func (id identity) String() string {
	return fmt.Sprintf("user %q (uid %d)", id.name, id.uid)
}

// serverIdentity returns the user the server runs as: when enginebench runs as root, the
// user preferred (the package's own user: postgres, mysql) when it exists, else nobody;
// otherwise the current user.
func serverIdentity(preferred string) (identity, error) {
	if os.Geteuid() != 0 {
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return identity{name: name, uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	for _, n := range []string{preferred, "nobody"} {
		u, err := user.Lookup(n)
		if err != nil {
			var unknown user.UnknownUserError
			if errors.As(err, &unknown) {
				continue
			}
			return identity{}, fmt.Errorf("look up user %s: %w", n, err)
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return identity{name: n, uid: uid, gid: gid, drop: true}, nil
	}
	return identity{}, fmt.Errorf("running as root, but neither user %s nor nobody exists to run the server as", preferred)
}

// sysProcAttr starts a process in a process group of its own, killed when the thread that
// started it (enginebench) dies, as id.
func sysProcAttr(id identity) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(a)
	if id.drop {
		// No supplementary groups: only the user's own uid and primary gid.
		a.Credential = &syscall.Credential{Uid: uint32(id.uid), Gid: uint32(id.gid), Groups: []uint32{}}
	}
	return a
}

// chown gives path to id (when the server runs as another user) with mode.
func (id identity) chown(path string, mode fs.FileMode) error {
	if !id.drop {
		return nil
	}
	if err := os.Chown(path, id.uid, id.gid); err != nil {
		return fmt.Errorf("give %s to %s: %w", path, id, err)
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	return nil
}

// checkReach returns an error when id (a user enginebench switches to) cannot search every
// directory from / down to dir: the server could not reach its files. Mode bits only; ACLs
// are not considered.
func (id identity) checkReach(dir string) error {
	if !id.drop {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	p := string(filepath.Separator)
	parts := strings.Split(strings.Trim(abs, string(filepath.Separator)), string(filepath.Separator))
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			if parts[i] == "" {
				continue
			}
			p = filepath.Join(p, parts[i])
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		var bit fs.FileMode
		switch {
		case int(st.Uid) == id.uid:
			bit = 0o100
		case int(st.Gid) == id.gid:
			bit = 0o010
		default:
			bit = 0o001
		}
		if fi.Mode().Perm()&bit == 0 {
			return fmt.Errorf("no search permission for it on %s (mode %s, owner uid %d); make it searchable (e.g. chmod o+x %s) or use a directory elsewhere",
				p, fi.Mode().Perm(), st.Uid, p)
		}
	}
	return nil
}

// maxSocketPath is the longest unix socket path Linux accepts (sun_path is 108 bytes with
// the terminating NUL).
const maxSocketPath = 107

// OwnerFile is the file in a server's socket directory that names the enginebench process that
// made it, so that what a killed run left behind can be told from a running one's: lines
// "pid=N" (enginebench's PID), "start=N" (its start time in clock ticks after boot, field 22 of
// /proc/N/stat, against PID reuse) and "datadir=PATH" (the server's data directory).
const OwnerFile = "enginebench.owner"

// SocketDirPrefixes returns the name prefixes of the directories enginebench makes under the
// temporary directory (os.TempDir, or /tmp when that path is too long for a socket): the
// managed servers' socket directories (with OwnerFile) and the short-lived directory of
// PostgreSQL's settings check (under os.TempDir).
func SocketDirPrefixes() []string {
	return []string{pgFlavor{}.socketPrefix(), mariaFlavor{}.socketPrefix(), pgCheckPrefix}
}

// makeSocketDir creates a short private directory for the server's socket, owned by id, with
// OwnerFile for the server of dataDir. It is under the temporary directory, or /tmp when that
// would make the socket path too long.
func makeSocketDir(prefix string, id identity, dataDir string) (string, error) {
	base := os.TempDir()
	// Room for the directory's random suffix and the longest socket (lock) file name.
	if len(base)+len(prefix)+len("/1234567890/.s.PGSQL.65535.lock") > maxSocketPath {
		base = "/tmp"
	}
	if err := id.checkReach(base); err != nil {
		return "", fmt.Errorf("the server runs as %s, which cannot reach the socket's directory %s: %w", id, base, err)
	}
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return "", fmt.Errorf("socket directory: %w", err)
	}
	if err := writeOwner(dir, dataDir); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("socket directory: %w", err)
	}
	if err := id.chown(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("socket directory: %w", err)
	}
	return dir, nil
}

// writeOwner writes OwnerFile into dir.
func writeOwner(dir, dataDir string) error {
	var start uint64
	if p, err := procfs.Self(); err == nil {
		if st, err := p.Stat(); err == nil {
			start = st.Starttime
		}
	}
	content := fmt.Sprintf("pid=%d\nstart=%d\ndatadir=%s\n", os.Getpid(), start, dataDir)
	if err := os.WriteFile(filepath.Join(dir, OwnerFile), []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", OwnerFile, err)
	}
	return nil
}

// checkPortFree returns an error when TCP port is in use on the local address addr, or when
// addr is not an address of this host.
func checkPortFree(addr string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("TCP port %d on %s is already in use", port, addr)
		}
		return fmt.Errorf("TCP port %d on %s is not usable: %w", port, addr, err)
	}
	if err := l.Close(); err != nil {
		return fmt.Errorf("TCP port %d: %w", port, err)
	}
	return nil
}

// checkSocketFree returns an error when a server already accepts connections on the unix
// socket path.
func checkSocketFree(path string) error {
	if len(path) > maxSocketPath {
		return fmt.Errorf("unix socket path %s is longer than %d bytes", path, maxSocketPath)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return nil
	}
	_ = c.Close()
	return fmt.Errorf("unix socket %s is already in use", path)
}
