package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// withServers is the insert fixture with its first configuration's DBMS on this host and its
// second's on an unknown host, over TLS, with a round trip and the client's share measured.
func withServers(t *testing.T) Input {
	in := loadFixture(t, "insert")
	r := in.Run
	r.Configs[0].Server = &result.ServerLink{DBMSHost: result.DBMSThisHost, Address: "/tmp/eb-pg-1/.s.PGSQL.5432",
		RoundTrip: &result.RoundTrip{Statement: "SELECT 1", Samples: 100, MinUs: 31, P50Us: 42, P99Us: 90, MaxUs: 120}}
	r.Configs[1].Server = &result.ServerLink{DBMSHost: result.DBMSUnknown, Address: "db1.example:5432", TLS: "TLSv1.3 TLS_AES_256_GCM_SHA384",
		RoundTrip: &result.RoundTrip{Statement: "SELECT 1", Samples: 100, MinUs: 810, P50Us: 950, P99Us: 2100, MaxUs: 4000}}
	s := stepOf(t, r, "sqlite-full", "qr100")
	s.Resources = &result.Resources{ClientCPUPct: ptr(37.5)}
	s.Efficiency = &result.Efficiency{ClientCPUpq: ptr(61)}
	return in
}

// The servers' tables: every server's link, and for the one not on this host the rate of each
// step beside the client's share ("-" where it was not measured); the header line and the
// hosts table say this host is the client's.
func TestServerTables(t *testing.T) {
	in := withServers(t)
	r := in.Run
	s := Build(r, testLayouts())
	local := row(t, s, serversTitle, "sqlite-normal")
	if want := []string{"sqlite-normal", "this host", "/tmp/eb-pg-1/.s.PGSQL.5432", "none", numfmt.Duration(42), numfmt.Duration(90), numfmt.Duration(120), "100 x SELECT 1"}; !slices.Equal(local, want) {
		t.Errorf("local server row\n got %q\nwant %q", local, want)
	}
	remote := row(t, s, serversTitle, "sqlite-full")
	if remote[1] != "unknown" || remote[3] != "TLSv1.3 TLS_AES_256_GCM_SHA384" || remote[4] != numfmt.Duration(950) {
		t.Errorf("remote server row %q", remote)
	}
	rt := tableByTitle(s.Tables, remoteTitle)
	if rt == nil {
		t.Fatal("no table of the servers not on this host")
	}
	steps := findConfig(r, "sqlite-full").Steps
	var rated int
	for _, st := range steps {
		if st.Primary != "" {
			rated++
		}
	}
	if len(rt.Rows) != rated {
		t.Errorf("%d rows, want one per rated step of sqlite-full (%d): %q", len(rt.Rows), rated, rt.Rows)
	}
	q := row(t, s, remoteTitle, "sqlite-full", "qr100")
	if want := []string{"37.5", "61", numfmt.Duration(950)}; !slices.Equal(q[4:], want) {
		t.Errorf("qr100: %q, want client%%, client_cpupq and round trip %q", q, want)
	}
	if l := row(t, s, remoteTitle, "sqlite-full", "l.i0"); l[4] != missing || l[5] != missing {
		t.Errorf("l.i0 without a measured share: %q, want -", l)
	}
	var text bytes.Buffer
	if err := WriteBrief(&text, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "sqlite-full: the DBMS is not on this host (db1.example:5432, TLSv1.3 TLS_AES_256_GCM_SHA384)") {
		t.Errorf("the brief summary does not say where the DBMS was:\n%s", text.String())
	}
	p := newPage(t, Options{}, in)
	var hosts *Table
	for i := range p.Sections {
		if h := findTable(&p.Sections[i], "Hosts"); h != nil {
			hosts = h
		}
	}
	if hosts == nil {
		t.Fatal("the page has no Hosts table")
	}
	if !strings.Contains(hosts.Rows[0][1], "(the client; the DBMS of sqlite-full: unknown host)") {
		t.Errorf("hosts row %q does not name the client's host", hosts.Rows[0])
	}
	if !slices.ContainsFunc(p.Sections, func(s Section) bool { return s.ID == "servers" }) {
		t.Error("the page has no Servers section")
	}
}

// A run without server links (embedded engines, runs made before links were recorded) has
// none of these tables, lines or sections.
func TestNoServerTables(t *testing.T) {
	in := loadFixture(t, "insert")
	s := Build(in.Run, testLayouts())
	if tableByTitle(s.Tables, serversTitle) != nil || tableByTitle(s.Tables, remoteTitle) != nil {
		t.Error("servers' tables without servers")
	}
	p := newPage(t, Options{}, in)
	if slices.ContainsFunc(p.Sections, func(s Section) bool { return s.ID == "servers" }) {
		t.Error("a Servers section without servers")
	}
}
