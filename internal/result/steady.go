package result

// Steady is the steady-state check of a step (docs/results.md, Steady state): a trend test of
// the per-second rates of its primary operation over its measured time, and the time the rate
// took to settle.
type Steady struct {
	// Op is the operation whose rates were tested (the step's primary_op).
	Op string `json:"op"`
	// Intervals is the number of whole intervals tested (the last, cut short by the step's end,
	// and a warm-up's are not), and Seconds their time.
	Intervals int     `json:"intervals"`
	Seconds   float64 `json:"seconds"`
	// MedianPerSec is the median of their rates.
	MedianPerSec float64 `json:"median_per_sec"`
	// MeanOf is the number of intervals each tested point is the mean of: 1, or more in a step
	// longer than the test's 1,000 points.
	MeanOf int `json:"mean_of"`
	// S is the Mann-Kendall statistic of the rates (pairs rising minus pairs falling), PValue
	// the two-sided p-value of no trend by the block bootstrap, and Block the bootstrap's
	// block length in points.
	S      float64 `json:"mk_s"`
	PValue float64 `json:"p_value"`
	Block  int     `json:"bootstrap_block"`
	// SlopePerSec is the Theil-Sen slope of the rates: units a second, per second.
	SlopePerSec float64 `json:"slope_per_sec"`
	// ChangePct is how far the slope moves the rate over Seconds, as a percentage of
	// MedianPerSec: negative when it fell.
	ChangePct float64 `json:"change_pct"`
	// SettleSeconds is the time from the step's start after which the rate (smoothed over 5
	// intervals) stayed within SettleBandPct percent of its final level (the median of the last
	// quarter of the step's whole intervals, warm-up included); nil when it never did.
	SettleSeconds *float64 `json:"settle_seconds,omitempty"`
	SettleBandPct float64  `json:"settle_band_pct"`
}

// Warmup is the warm-up a step left out of its figures (--exclude-warmup): its first
// intervals, kept in the per-second series but not counted in the step's ops, rates,
// latencies, usage or efficiency.
type Warmup struct {
	// AskedSeconds is the warm-up asked for; Seconds the one left out, from the step's start
	// to the end of its last warm-up interval (the first tick at or after AskedSeconds).
	AskedSeconds float64 `json:"asked_seconds"`
	Seconds      float64 `json:"seconds"`
	// Intervals is the number of leading intervals of the step's series in the warm-up.
	Intervals int `json:"intervals"`
}
