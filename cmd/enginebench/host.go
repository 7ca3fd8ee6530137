package main

import (
	"fmt"
	"syscall"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

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
