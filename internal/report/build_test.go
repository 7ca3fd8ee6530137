package report

import (
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// pgConfigure and pgCFlags are long build values, as pg_config prints them.
const (
	pgConfigure = "'--prefix' '/opt/postgresql' '--enable-integer-datetimes' '--with-openssl' '--with-lz4' '--with-zstd'"
	pgCFlags    = "-Wall -Wmissing-prototypes -Wpointer-arith -fno-strict-aliasing -fwrapv -O2"
	shaA        = "425e94bedca7e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819"
	shaB        = "9f00c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e"
)

// pgBuild is a managed PostgreSQL's build from /opt/postgresql-17 with checksum sha.
func pgBuild(sha string) map[string]string {
	return map[string]string{"binary": "/opt/postgresql-17/bin/postgres", "sha256": sha,
		"configure": pgConfigure, "cc": "gcc", "cflags": pgCFlags}
}

// buildRun is the summary fixture's two configurations as pg-a and pg-b of version "17.11",
// with builds a and b (nil for none), and a third, sqlite, of its own version.
func buildRun(a, b map[string]string) *result.Run {
	r := fixture()
	r.Configs[0].Name, r.Configs[0].Engine, r.Configs[0].Version, r.Configs[0].Build = "pg-a", "postgres", "17.11", a
	r.Configs[1].Name, r.Configs[1].Engine, r.Configs[1].Version, r.Configs[1].Build = "pg-b", "postgres", "17.11", b
	c := fixture().Configs[0]
	c.Name = "sqlite"
	r.Configs = append(r.Configs, c)
	return r
}

// buildWarningsOf returns the page's warnings about builds.
func buildWarningsOf(p *Page) []string {
	var out []string
	for _, l := range p.Warnings() {
		if strings.Contains(l, "differ in build") {
			out = append(out, l)
		}
	}
	return out
}

func TestBuildSameVersionDifferentBuildWarns(t *testing.T) {
	b := pgBuild(shaB)
	b["cflags"] = pgCFlags + " -g"
	b["cc"] = "clang"
	r := buildRun(pgBuild(shaA), b)
	p, page := pageHTML(t, Input{Dir: "run", Run: r})
	want := `WARNING: pg-a and pg-b both say version "17.11" but differ in build: sha256 (425e94bedca7 vs 9f00c1d2e3a4), cc (gcc vs clang), cflags`
	if w := buildWarningsOf(p); !slices.Equal(w, []string{want}) {
		t.Errorf("warnings %q\nwant %q", w, want)
	}
	if !strings.Contains(page.String(), html.EscapeString(want)) {
		t.Error("the HTML page lacks the warning")
	}
	md := Markdown(r, testLayouts())
	if !strings.Contains(md, "- **WARNING:** "+strings.TrimPrefix(want, warningPrefix)) {
		t.Errorf("summary.md lacks the warning:\n%s", md)
	}
	if !strings.Contains(MarkdownPage(p), strings.TrimPrefix(want, warningPrefix)) {
		t.Error("report.md lacks the warning")
	}
}

func TestBuildNoWarning(t *testing.T) {
	moved := pgBuild(shaA)
	moved["binary"] = "/usr/local/pgsql/bin/postgres" // the same file elsewhere
	otherVersion := buildRun(pgBuild(shaA), pgBuild(shaB))
	otherVersion.Configs[1].Version = "17.12"
	unknown := buildRun(pgBuild(shaA), pgBuild(shaB))
	unknown.Configs[0].Version, unknown.Configs[1].Version = "", ""
	for name, r := range map[string]*result.Run{
		"same build":         buildRun(pgBuild(shaA), pgBuild(shaA)),
		"same file moved":    buildRun(pgBuild(shaA), moved),
		"different versions": otherVersion,
		"unknown versions":   unknown,
		"one without build":  buildRun(pgBuild(shaA), nil),
		"no builds":          buildRun(nil, nil),
		"disjoint keys":      buildRun(map[string]string{"binary": "/a/postgres"}, map[string]string{"library": "libpq"}),
	} {
		p, _ := pageHTML(t, Input{Dir: "run", Run: r})
		if w := buildWarningsOf(p); len(w) > 0 {
			t.Errorf("%s: warnings %q", name, w)
		}
	}
}

func TestBuildCells(t *testing.T) {
	lib := map[string]string{"library": "librocksdb.so.9.7.4", "library_version": "9.7.4", "zz_extra": "x"}
	r := buildRun(pgBuild(shaA), lib)
	p, page := pageHTML(t, Input{Dir: "run", Run: r})
	var bt *Table
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			if b.Table != nil && b.Table.Title == buildsTitle {
				bt = b.Table
			}
		}
	}
	if bt == nil {
		t.Fatal("no builds table in the page")
	}
	wantHeader := []string{"config", "binary", "sha256", "configure", "cc", "cflags", "library", "library_version", "zz_extra"}
	if !slices.Equal(bt.Header, wantHeader) {
		t.Errorf("header %q\nwant %q", bt.Header, wantHeader)
	}
	shortConf, shortFlags := shortBuildValue("configure", pgConfigure), shortBuildValue("cflags", pgCFlags)
	if !strings.HasSuffix(shortConf, "…") || len([]rune(shortConf)) != maxBuildCell || !strings.HasPrefix(pgConfigure, strings.TrimSuffix(shortConf, "…")) {
		t.Errorf("configure abbreviated as %q", shortConf)
	}
	wantRows := [][]string{
		{"pg-a", "/opt/postgresql-17/bin/postgres", "425e94bedca7", shortConf, "gcc", shortFlags, "-", "-", "-"},
		{"pg-b", "-", "-", "-", "-", "-", "librocksdb.so.9.7.4", "9.7.4", "x"},
		{"sqlite", "-", "-", "-", "-", "-", "-", "-", "-"},
	}
	if !slices.EqualFunc(bt.Rows, wantRows, slices.Equal) {
		t.Errorf("rows %q\nwant %q", bt.Rows, wantRows)
	}
	if got := bt.Src[0][2].String(); !strings.HasSuffix(got, "run.json: config pg-a, build.sha256") {
		t.Errorf("sha256 cell's source %q", got)
	}

	// HTML: the short value shown, the whole one folded under it.
	h := page.String()
	for _, want := range []string{
		"<summary>425e94bedca7</summary><code>" + shaA + "</code>",
		"<summary>" + html.EscapeString(shortConf) + "</summary><code>" + html.EscapeString(pgConfigure) + "</code>",
		"<summary>" + html.EscapeString(shortFlags) + "</summary><code>" + html.EscapeString(pgCFlags) + "</code>",
		">librocksdb.so.9.7.4</td>",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}

	// Markdown (report.md): the short form in the table; summary.md: a line per configuration.
	md := MarkdownPage(p)
	if !strings.Contains(md, "### Builds") || !strings.Contains(md, "| pg-a | /opt/postgresql-17/bin/postgres | 425e94bedca7 | "+shortConf+" | gcc |") ||
		strings.Contains(md, pgConfigure) || strings.Contains(md, shaA) {
		t.Errorf("report.md's builds table is not in short form:\n%s", md)
	}
	sum := Markdown(r, testLayouts())
	for _, want := range []string{
		"- pg-a: build binary /opt/postgresql-17/bin/postgres, sha256 425e94bedca7, configure " + shortConf + ", cc gcc, cflags " + shortFlags + "\n",
		"- pg-b: build library librocksdb.so.9.7.4, library_version 9.7.4, zz_extra x\n",
		"- sqlite: build -\n",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
}

// A run without builds shows none: no table, no line (the golden files hold such runs).
func TestBuildAbsentShowsNothing(t *testing.T) {
	r := buildRun(nil, nil)
	p, page := pageHTML(t, Input{Dir: "run", Run: r})
	if strings.Contains(MarkdownPage(p), "Builds") || strings.Contains(page.String(), "Builds") {
		t.Error("a page of runs without builds has a builds table")
	}
	if strings.Contains(Markdown(r, testLayouts()), ": build") {
		t.Error("summary.md of a run without builds has build lines")
	}
}

func TestShortBuildValue(t *testing.T) {
	long := "/home/someone/build/postgres-17.2-debug/tmp_install/usr/local/pgsql/bin/postgres"
	got := shortBuildValue("binary", long)
	if len([]rune(got)) != maxBuildCell || !strings.HasSuffix(got, "/bin/postgres") || !strings.HasPrefix(got, "/home/") || !strings.Contains(got, "…") {
		t.Errorf("long path abbreviated as %q", got)
	}
	if got := shortBuildValue("cc", "gcc"); got != "gcc" {
		t.Errorf("short value %q", got)
	}
}
