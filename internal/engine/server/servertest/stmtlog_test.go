package servertest

import (
	"reflect"
	"strings"
	"testing"
)

func TestShape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT  price,dateandtime FROM pi1 FORCE INDEX (pi1_pdc) WHERE (price >= 42)\n ORDER BY price LIMIT 10",
			"select price,dateandtime from pi1 force index (pi1_pdc) where (price >= ?) order by price limit ?"},
		{"insert into pi2 (a,b) values ('2026-11-23 10:00:00',1,2.50,'it''s'),\n('x',-3,4,'y'),('z',5,6e3,'w')",
			"insert into pi2 (a,b) values (?*4)*3"},
		{"SELECT id FROM t WHERE id IN ($1,$2,$3)", "select id from t where id in (?*3)"},
		{"delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= 7 order by transactionid asc limit 50)",
			"delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= ? order by transactionid asc limit ?)"},
		{"INSERT INTO t VALUES (1,2),(3,4),(5)", "insert into t values (?*2)*2, (?)"},
		{"execute pdc_query_ps (17)", "execute pdc_query_ps (?)"},
		{"INSERT INTO t (a,b) VALUES (FROM_UNIXTIME(1),2),(FROM_UNIXTIME(3), 4)", "insert into t (a,b) values (from_unixtime(?),?)*2"},
		{"select count(*) from (select a from t where a in (1,2)) x", "select count(*) from (select a from t where a in (?*2)) x"},
	}
	for _, c := range cases {
		if got := Shape(c.in); got != c.want {
			t.Errorf("Shape(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if Shape("select a from t limit 10") == Shape("select a from t1 limit 10") {
		t.Error("a table's number is taken for a value")
	}
}

func TestParseGeneralLog(t *testing.T) {
	lines := strings.Split(strings.Join([]string{
		"/usr/sbin/mariadbd, Version: 10.11.14-MariaDB-0+deb12u2-log (Debian 12). started with:",
		"Tcp port: 0  Unix socket: /tmp/eb-my-1/mysqld.sock",
		"Time\t\t    Id Command\tArgument",
		"261123 22:10:01\t    5 Connect\troot@localhost on ib using Socket",
		"\t\t    5 Query\tinsert into pi1 values (1),",
		"(2)",
		"\t\t    6 Prepare\tSELECT a FROM t WHERE b = ?",
		"261123 22:10:02\t    6 Execute\tSELECT a FROM t WHERE b = 3",
		"\t\t    6 Close stmt\t",
		"\t\t    5 Quit\t",
	}, "\n"), "\n")
	want := []Statement{
		{Text, "insert into pi1 values (1),\n(2)"},
		{Prepare, "SELECT a FROM t WHERE b = ?"},
		{Execute, "SELECT a FROM t WHERE b = 3"},
	}
	if got := parseGeneralLog(lines); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestParsePostgresLog(t *testing.T) {
	lines := []string{
		"2026-11-23 22:10:01.123 UTC [4242] LOG:  statement: SELECT 1",
		"2026-11-23 22:10:01.124 UTC [4242] LOG:  execute stmtcache_ab12: SELECT a FROM t",
		"\tWHERE b = $1",
		"2026-11-23 22:10:01.124 UTC [4242] DETAIL:  parameters: $1 = '3'",
		"2026-11-23 22:10:01.125 UTC [4243] LOG:  execute <unnamed>: DELETE FROM t WHERE a < $1",
		"2026-11-23 22:10:01.126 UTC [4243] ERROR:  relation \"x\" does not exist",
		"2026-11-23 22:10:01.126 UTC [4243] STATEMENT:  select * from x",
		"2026-11-23 22:10:02.000 UTC [4200] LOG:  checkpoint starting: immediate force wait",
	}
	want := []Statement{
		{Text, "SELECT 1"},
		{Execute, "SELECT a FROM t\n\tWHERE b = $1"},
		{Execute, "DELETE FROM t WHERE a < $1"},
	}
	if got := parsePostgresLog(lines); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestShapesCounts(t *testing.T) {
	m := Shapes([]Statement{{Text, "select 1"}, {Text, "SELECT 2"}, {Execute, "select 3"}})
	if m["text: select ?"] != 2 || m["execute: select ?"] != 1 || len(m) != 2 {
		t.Errorf("shapes %v", m)
	}
}
