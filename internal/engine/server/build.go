package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// buildTimeout bounds each program that buildOf runs (pg_config).
const buildTimeout = 10 * time.Second

// Build's keys (docs/servers.md, Versions and builds).
const (
	BuildBinary    = "binary"    // the server binary's path, symlinks resolved
	BuildSHA256    = "sha256"    // its checksum
	BuildConfigure = "configure" // pg_config --configure
	BuildCompiler  = "cc"        // pg_config --cc
	BuildCFlags    = "cflags"    // pg_config --cflags
	// BuildDebugSymbols says whether the binary has DWARF debug info: "yes", "separate" (a
	// .gnu_debuglink to a file of its own) or "no".
	BuildDebugSymbols = "debug_symbols"
	// BuildFramePointers says whether its functions keep frame pointers, which a profiler
	// needs for call stacks without DWARF: "yes" or "no", with how it was told (the
	// -f[no-]omit-frame-pointer of the build's flags, or the prologues of its functions).
	BuildFramePointers = "frame_pointers"
)

// buildOf returns the provenance of the server binary of bins: its path and sha256, and for
// PostgreSQL what the pg_config beside it says of the build (left out where there is none).
func buildOf(ctx context.Context, k flavor, bins binaries) map[string]string {
	b := map[string]string{BuildBinary: bins.server}
	if sum, err := fileSHA256(bins.server); err == nil {
		b[BuildSHA256] = sum
	}
	defer func() { maps.Copy(b, elfFacts(bins.server, b[BuildCFlags])) }()
	if k.kind() != Postgres {
		return b
	}
	pgConfig := filepath.Join(filepath.Dir(bins.server), "pg_config")
	if !isExecutable(pgConfig) {
		return b
	}
	for key, flag := range map[string]string{BuildConfigure: "--configure", BuildCompiler: "--cc", BuildCFlags: "--cflags"} {
		cctx, cancel := context.WithTimeout(ctx, buildTimeout)
		out, err := exec.CommandContext(cctx, pgConfig, flag).Output()
		cancel()
		if v := strings.TrimSpace(string(out)); err == nil && v != "" {
			b[key] = v
		}
	}
	return b
}

// elfFacts returns what the ELF binary at path says of its debug info and frame pointers
// (BuildDebugSymbols, BuildFramePointers); cflags are the build's flags when known. What cannot
// be told is left out.
func elfFacts(path, cflags string) map[string]string {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{BuildDebugSymbols: "no"}
	switch {
	case f.Section(".debug_info") != nil:
		out[BuildDebugSymbols] = "yes"
	case f.Section(".gnu_debuglink") != nil:
		out[BuildDebugSymbols] = "separate"
	}
	switch flags := strings.Fields(cflags); {
	case f.Section(".go.buildinfo") != nil && f.Machine == elf.EM_X86_64:
		out[BuildFramePointers] = "yes (Go on amd64 keeps them)"
	case slices.Contains(flags, "-fno-omit-frame-pointer"):
		out[BuildFramePointers] = "yes (-fno-omit-frame-pointer)"
	case slices.Contains(flags, "-fomit-frame-pointer"):
		out[BuildFramePointers] = "no (-fomit-frame-pointer)"
	default:
		if fp, n := framePointers(f); n > 0 {
			out[BuildFramePointers] = fmt.Sprintf("%s (the prologues of %d of %d functions set one up)", map[bool]string{true: "yes", false: "no"}[float64(fp) > framePointerShare*float64(n)], fp, n)
		}
	}
	return out
}

// prologueFunctions is how many functions framePointers reads at most, and prologueBytes how
// far into each it looks for the frame's setup (a compiler may first test for an early return).
const (
	prologueFunctions = 2000
	prologueBytes     = 64
)

// framePointerShare is the share of functions setting up a frame pointer above which a binary is
// taken to keep them: leaf functions have none even so, and a binary built without them has
// almost none.
const framePointerShare = 0.2

// framePointers counts, among at most prologueFunctions function symbols of an x86-64 binary
// (its symbol table, else its dynamic symbols), those whose first prologueBytes set up a frame
// pointer (push %rbp; mov %rsp,%rbp), and returns that count and how many it read; 0, 0 for
// another architecture or a binary without function symbols.
func framePointers(f *elf.File) (fp, n int) {
	if f.Machine != elf.EM_X86_64 {
		return 0, 0
	}
	syms, err := f.Symbols()
	if err != nil || len(syms) == 0 {
		if syms, err = f.DynamicSymbols(); err != nil {
			return 0, 0
		}
	}
	text := f.Section(".text")
	if text == nil {
		return 0, 0
	}
	code := make([]byte, prologueBytes)
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Value < text.Addr || s.Value >= text.Addr+text.Size {
			continue
		}
		c := code[:min(uint64(len(code)), s.Size, text.Addr+text.Size-s.Value)]
		if _, err := text.ReadAt(c, int64(s.Value-text.Addr)); err != nil {
			continue
		}
		if bytes.Contains(c, []byte{0x55, 0x48, 0x89, 0xe5}) { // push %rbp; mov %rsp,%rbp
			fp++
		}
		if n++; n == prologueFunctions {
			break
		}
	}
	return fp, n
}

// fileSHA256 returns the hex sha256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
