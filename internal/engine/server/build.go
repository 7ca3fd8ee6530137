package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
)

// buildOf returns the provenance of the server binary of bins: its path and sha256, and for
// PostgreSQL what the pg_config beside it says of the build (left out where there is none).
func buildOf(ctx context.Context, k flavor, bins binaries) map[string]string {
	b := map[string]string{BuildBinary: bins.server}
	if sum, err := fileSHA256(bins.server); err == nil {
		b[BuildSHA256] = sum
	}
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
