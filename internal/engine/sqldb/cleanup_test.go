package sqldb

import "testing"

// TestPGVacuumByVersion checks the reference's VACUUM per server version: INDEX_CLEANUP only
// from PostgreSQL 12 on (bench/ibench/iq.sh, vac_pg).
func TestPGVacuumByVersion(t *testing.T) {
	for v, want := range map[int]string{
		110022: "VACUUM (VERBOSE, ANALYZE)",
		120000: "VACUUM (VERBOSE, ANALYZE, INDEX_CLEANUP ON)",
		150018: "VACUUM (VERBOSE, ANALYZE, INDEX_CLEANUP ON)",
	} {
		if got := pgVacuum(v); got != want {
			t.Errorf("pgVacuum(%d) = %q, want %q", v, got, want)
		}
	}
}
