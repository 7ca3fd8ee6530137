package merge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// Rules are what merging a workload's shards needs to know of the workload.
type Rules struct {
	// WholeVerify says that each shard verifies the whole database (iiBench's: every
	// shard checks the table with every shard's ledger), so that the same verification on
	// every shard is the run's, once.
	WholeVerify bool
}

// verify combines the shards' verifications of the step of a run: ok only when every shard
// verified and each was ok. Under rules.WholeVerify, when every shard's verification is ok
// with the same detail, the merged one is that detail, once. Otherwise the detail lists each
// shard's, the failures first, after what the shards checked together (Verify.Checked summed:
// a LinkBench shard checks its own chunks' part of the checked id1s).
func verify(rules Rules, present []part) *result.Verify {
	var failed, passed []string
	var checked map[string]int64
	verified := false
	for _, p := range present {
		v := p.st.Verify
		switch {
		case v == nil:
			failed = append(failed, fmt.Sprintf("shard %d: not verified", p.shard))
			continue
		case !v.OK:
			failed = append(failed, fmt.Sprintf("shard %d: FAILED: %s", p.shard, v.Detail))
		default:
			passed = append(passed, fmt.Sprintf("shard %d: %s", p.shard, v.Detail))
		}
		verified = true
		for k, n := range v.Checked {
			if checked == nil {
				checked = map[string]int64{}
			}
			checked[k] += n
		}
	}
	if !verified {
		return nil
	}
	if rules.WholeVerify && len(failed) == 0 {
		if d := present[0].st.Verify.Detail; allDetails(present, d) {
			return &result.Verify{OK: true, Detail: d}
		}
	}
	details := append(failed, passed...)
	if checked != nil {
		details = append([]string{"checked by the " + fmt.Sprint(len(present)) + " shards together: " + checkedText(checked)}, details...)
	}
	return &result.Verify{OK: len(failed) == 0, Detail: strings.Join(details, "; "), Checked: checked}
}

// allDetails reports whether every shard's verification has detail d.
func allDetails(present []part, d string) bool {
	for _, p := range present {
		if p.st.Verify.Detail != d {
			return false
		}
	}
	return true
}

// checkedText says what checked counts, by kind: "12000 links, 2000 counts, 1000 nodes", in
// the kinds' order of names.
func checkedText(checked map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(checked)) {
		parts = append(parts, fmt.Sprintf("%d %s", checked[k], k))
	}
	return strings.Join(parts, ", ")
}
