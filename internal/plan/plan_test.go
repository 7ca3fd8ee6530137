package plan

import (
	"math"
	"testing"
)

// TestSatMul: the space a run with --keep needs saturates instead of wrapping negative (an
// estimate of MaxInt64 times two configurations would pass every space check).
func TestSatMul(t *testing.T) {
	for _, tt := range []struct{ a, b, want int64 }{
		{3, 4, 12}, {0, 5, 0}, {5, 0, 0}, {math.MaxInt64, 2, math.MaxInt64}, {math.MaxInt64 / 2, 3, math.MaxInt64},
	} {
		if got := satMul(tt.a, tt.b); got != tt.want {
			t.Errorf("satMul(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
