package insertbench

import (
	"testing"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// TestTextStatementValues checks that a text statement gets its values written in its places,
// in order, for both dialects' placeholders (Bind's ? and $N, including $10 and above).
func TestTextStatementValues(t *testing.T) {
	const q = "SELECT a FROM t WHERE id IN (?,?,?,?,?,?,?,?,?,?,?) AND x >= ? LIMIT 10"
	vals := []int64{1, 22, 333, -4, 5, 6, 7, 8, 9, 10, 11, 1 << 40}
	want := "SELECT a FROM t WHERE id IN (1,22,333,-4,5,6,7,8,9,10,11) AND x >= 1099511627776 LIMIT 10"
	for _, d := range []sqldb.Dialect{sqldb.DialectOf(sqldb.MySQL), sqldb.DialectOf(sqldb.Postgres)} {
		bound := sqldb.Bind(d, q)
		ts := parseText(bound)
		if len(ts) != len(vals)+1 {
			t.Fatalf("%s: %q has %d places, want %d", d.Name(), bound, len(ts)-1, len(vals))
		}
		if got := string(ts.append([]byte("old"), vals)); got != "old"+want {
			t.Errorf("%s: got %q, want %q", d.Name(), got, "old"+want)
		}
	}
	if got := string(parseText("DELETE FROM t WHERE id >= 5 LIMIT 3").append(nil, nil)); got != "DELETE FROM t WHERE id >= 5 LIMIT 3" {
		t.Errorf("a statement without places changed: %q", got)
	}
}
