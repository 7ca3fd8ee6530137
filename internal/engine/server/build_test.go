package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestElfFacts: a C program built with -g and frame pointers says so, one built without either
// says that, whether by its flags or by its functions' prologues; a Go binary (this test's)
// keeps frame pointers.
func TestElfFacts(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "f.c")
	// Functions that call others: a leaf function has no frame pointer even so.
	code := "#include <stdio.h>\n" +
		"__attribute__((noinline)) int f1(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * 3; printf(\"%d\\n\", s); return s; }\n" +
		"__attribute__((noinline)) int f2(int *a, int n) { int s = f1(a, n); for (int i = 0; i < n; i++) s ^= a[i] + 7; puts(\"f2\"); return s; }\n" +
		"__attribute__((noinline)) int f3(int *a, int n) { return f2(a, n) + f1(a, n - 1); }\n" +
		"int main(int c, char **v) { int a[4] = {c, 2, 3, 4}; return f3(a, 4) + (v != 0); }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, flags ...string) string {
		bin := filepath.Join(dir, name)
		if out, err := exec.Command(cc, append(flags, "-o", bin, src)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return bin
	}
	with := build("with", "-O2", "-g", "-fno-omit-frame-pointer")
	without := build("without", "-O2", "-fomit-frame-pointer")
	for _, c := range []struct {
		bin, cflags, debug, fp string
	}{
		{with, "", "yes", "yes (the prologues of"},
		{without, "", "no", "no (the prologues of"},
		{with, "-O2 -fno-omit-frame-pointer", "yes", "yes (-fno-omit-frame-pointer)"},
		{without, "-O2 -fomit-frame-pointer", "no", "no (-fomit-frame-pointer)"},
	} {
		got := elfFacts(c.bin, c.cflags)
		if got[BuildDebugSymbols] != c.debug || !strings.HasPrefix(got[BuildFramePointers], c.fp) {
			t.Errorf("%s (cflags %q): %v, want debug symbols %s, frame pointers %s...", filepath.Base(c.bin), c.cflags, got, c.debug, c.fp)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got := elfFacts(self, ""); !strings.HasPrefix(got[BuildFramePointers], "yes (Go") {
		t.Errorf("this test's binary: %v, want Go's frame pointers", got)
	}
	if got := elfFacts(src, ""); got != nil {
		t.Errorf("a C source file: %v, want nothing told", got)
	}
}
