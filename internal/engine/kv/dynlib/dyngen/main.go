// Command dyngen writes the trampolines through which a package calls a C library that package
// dynlib loads at run time (x86-64 Linux, GNU assembler syntax).
//
// It builds the package named by -from (go list -export), reads the host objects that cgo
// compiled into its archive, and collects every undefined symbol that starts with -prefix: the
// library's functions that the package's C code and cgo wrappers call. For each it writes a
// global function of that name that jumps through one entry of a table; the table starts out
// pointing at stubs that report a call made before the library was loaded and abort, and
// dynlib.Library.Load fills it with the library's addresses. The table and the names (one
// NUL-terminated string each, ended by an empty one) are hidden symbols
// enginebench_<name>_table and enginebench_<name>_names.
//
// Run it with go generate in the package that defines the trampolines, e.g.
//
//	//go:generate go run ../dynlib/dyngen -from github.com/linxGnu/grocksdb -prefix rocksdb_ -name rocksdb -soname librocksdb.so.7.8 -build "rocksdb && cgo" -o rocksdb_trampolines_linux_amd64.S
//
// The symbols are read from the compiled objects rather than from the library's header because
// only those the package really calls must (and should) be defined: a symbol left out would
// make the linker take it from the library again and record the library as needed, which the
// packages' tests catch.
package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

func main() {
	from := flag.String("from", ".", "the package whose compiled cgo objects call the library (an import path or a directory)")
	tags := flag.String("tags", "", "build tags for go list, as for go build -tags")
	prefix := flag.String("prefix", "", "the prefix of the library's function names, e.g. rocksdb_")
	name := flag.String("name", "", "a short name of the library for the table's symbols, e.g. rocksdb")
	soname := flag.String("soname", "", "the library's file name, for the message of an early call")
	build := flag.String("build", "", "the //go:build expression of the output (its file name should end in _linux_amd64.S)")
	out := flag.String("o", "", "the output file")
	flag.Parse()
	if *prefix == "" || *out == "" || *soname == "" || !regexp.MustCompile(`^[a-z0-9_]+$`).MatchString(*name) {
		fmt.Fprintln(os.Stderr, "dyngen: -prefix, -name (lower case letters, digits, _), -soname and -o are required")
		os.Exit(2)
	}
	if err := run(*from, *tags, *prefix, *name, *soname, *build, *out); err != nil {
		fmt.Fprintln(os.Stderr, "dyngen:", err)
		os.Exit(1)
	}
}

func run(from, tags, prefix, name, soname, build, out string) error {
	from, archive, err := exportFile(from, tags)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	syms, err := undefined(data, prefix)
	if err != nil {
		return fmt.Errorf("%s (%s): %w", from, archive, err)
	}
	if len(syms) == 0 {
		return fmt.Errorf("%s calls no function named %s*", from, prefix)
	}
	var b bytes.Buffer
	regen := "go generate"
	if tags != "" {
		regen += " -tags " + strconv.Quote(tags)
	}
	err = asmTemplate.Execute(&b, map[string]any{
		"From": from, "Prefix": prefix, "Name": name, "Soname": soname, "Build": build,
		"Regen": regen, "Syms": syms,
	})
	if err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// exportFile builds the package and returns its import path and the path of its archive.
func exportFile(pkg, tags string) (path, archive string, err error) {
	args := []string{"list", "-export", "-f", "{{.ImportPath}} {{.Export}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -export %s: %w", pkg, err)
	}
	path, archive, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
	if archive == "" {
		return "", "", fmt.Errorf("go list -export %s: no archive", pkg)
	}
	return path, archive, nil
}

// undefined returns the sorted names with prefix that some ELF member of the Unix archive data
// (a Go package archive: its Go objects are not ELF and are skipped) uses without defining.
func undefined(data []byte, prefix string) ([]string, error) {
	members, err := arMembers(data)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, m := range members {
		f, err := elf.NewFile(bytes.NewReader(m))
		if err != nil {
			continue // a Go object or the package definition
		}
		syms, err := f.Symbols()
		f.Close()
		if errors.Is(err, elf.ErrNoSymbols) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, s := range syms {
			if s.Section == elf.SHN_UNDEF && strings.HasPrefix(s.Name, prefix) {
				set[s.Name] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// arMembers splits a Unix ar archive (the format of Go's package archives) into its members.
// It is written here because the Go library has no reader of ar archives (cmd/internal/archive
// is internal to the Go command).
func arMembers(data []byte) ([][]byte, error) {
	const magic, headerSize = "!<arch>\n", 60
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, errors.New("not an ar archive")
	}
	var members [][]byte
	for off := len(magic); off < len(data); {
		if off+headerSize > len(data) {
			return nil, errors.New("truncated ar header")
		}
		h := data[off : off+headerSize]
		size, err := strconv.Atoi(strings.TrimSpace(string(h[48:58])))
		if err != nil || size < 0 || off+headerSize+size > len(data) {
			return nil, fmt.Errorf("bad ar member size %q", h[48:58])
		}
		off += headerSize
		members = append(members, data[off:off+size])
		off += size + size%2
	}
	return members, nil
}

// asmTemplate is the output. Every trampoline is one indirect jump, as a call through the PLT
// is. Stubs and names use local labels (.L), so only the trampolines, the table and the names
// are symbols. The stubs write their message with write(2), which needs no state, and abort.
var asmTemplate = template.Must(template.New("asm").Parse(`// Code generated by dyngen from the undefined {{.Prefix}}* symbols of {{.From}}; DO NOT EDIT.
// Regenerate it with {{.Regen}} in this directory (see internal/engine/kv/dynlib).
{{if .Build}}
//go:build {{.Build}}
{{end}}
// Trampolines of the {{len .Syms}} functions of {{.Soname}} that {{.From}} calls: each is a global
// function of the library function's name that jumps through its entry of
// enginebench_{{.Name}}_table, which dynlib.Library.Load fills with dlsym once the library is
// loaded with dlopen. Until then every entry holds a stub that says which function was called
// too early and aborts.

	.section .note.GNU-stack,"",@progbits

	.text
{{range $i, $s := .Syms}}
	.globl {{$s}}
	.type {{$s}}, @function
{{$s}}:
	jmp *enginebench_{{$.Name}}_table+{{$i}}*8(%rip)
	.size {{$s}}, .-{{$s}}
{{- end}}

// The stubs: %rsi, %rdx = the name of the function called and its length.
{{range $i, $s := .Syms}}
.Lunloaded{{$i}}:
	leaq .Lname{{$i}}(%rip), %rsi
	movl $(.Lend{{$i}}-.Lname{{$i}}), %edx
	jmp .Lunloaded
{{- end}}

.Lunloaded:
	andq $-16, %rsp
	movq %rsi, %rbx
	movq %rdx, %r12
	movl $2, %edi
	leaq .Lmsg1(%rip), %rsi
	movl $(.Lmsg1end-.Lmsg1), %edx
	call write@PLT
	movl $2, %edi
	movq %rbx, %rsi
	movq %r12, %rdx
	call write@PLT
	movl $2, %edi
	leaq .Lmsg2(%rip), %rsi
	movl $(.Lmsg2end-.Lmsg2), %edx
	call write@PLT
	call abort@PLT

	.section .rodata
.Lmsg1:
	.ascii "enginebench: "
.Lmsg1end:
.Lmsg2:
	.ascii " was called before {{.Soname}} was loaded (a bug: an engine calls its library only once its available() succeeded)\n"
.Lmsg2end:

	.globl enginebench_{{.Name}}_names
	.hidden enginebench_{{.Name}}_names
enginebench_{{.Name}}_names:
{{- range $i, $s := .Syms}}
.Lname{{$i}}:
	.ascii "{{$s}}"
.Lend{{$i}}:
	.byte 0
{{- end}}
	.byte 0

	.data
	.balign 8
	.globl enginebench_{{.Name}}_table
	.hidden enginebench_{{.Name}}_table
enginebench_{{.Name}}_table:
{{- range $i, $s := .Syms}}
	.quad .Lunloaded{{$i}}
{{- end}}
`))
