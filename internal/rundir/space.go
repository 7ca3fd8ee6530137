package rundir

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// checkDataRoot checks that the locked data root is empty and writable with need bytes free.
func checkDataRoot(dir string, need int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	if slices.ContainsFunc(entries, func(e os.DirEntry) bool { return !strings.HasPrefix(e.Name(), runlock.FileName) }) {
		return fmt.Errorf("data directory %s is not empty", dir)
	}
	return checkDataSpace(dir, need)
}

// checkDataSpace checks that files can be created in the data directory dir and that its
// filesystem has about need bytes free.
func checkDataSpace(dir string, need int64) error {
	if err := result.ProbeWrite(dir, 0); err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil {
		free := int64(st.Bavail) * int64(st.Bsize)
		if free < need {
			return fmt.Errorf("data directory %s has %s free; this run needs about %s (choose another --data-dir or a smaller --scale)",
				dir, numfmt.Bytes(float64(free)), numfmt.Bytes(float64(need)))
		}
	}
	return nil
}

// checkConfigDirs checks that each managed configuration's data directory can be created and
// that its engine can use it (a managed server's user must reach it). Each is removed again:
// Execute creates it when its configuration starts, so an interrupted or refused run leaves
// no empty directory of a configuration that never ran.
func checkConfigDirs(dirs []ConfigDir) error {
	for _, c := range dirs {
		if err := os.Mkdir(c.Path, 0o755); err != nil {
			return fmt.Errorf("data directory %s: %w", c.Path, err)
		}
		var err error
		if c.Check != nil {
			if err = c.Check(c.Path); err != nil {
				err = &badinput.Error{Err: err}
			}
		}
		if rerr := os.Remove(c.Path); err == nil && rerr != nil {
			err = fmt.Errorf("data directory %s: %w", c.Path, rerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
