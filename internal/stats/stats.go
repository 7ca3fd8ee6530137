// Package stats holds the statistics enginebench judges its figures by: a trend test of a
// step's per-second rates, confidence intervals of ratios between repeated configurations,
// and change points in a history of runs. Each function names the published method it follows.
package stats
