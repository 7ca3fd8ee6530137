package gen

// Variant says which of two behaviours a generator has where the reference and enginebench
// differ (docs/fidelity.md, LinkBench, "Distributions and random choices").
type Variant int

const (
	// Reference reproduces the maintained fork (mdcallag/linkbench) with its default settings,
	// bug for bug: the out-degree quantile 1 - r/n with at least one link per type, the fork's
	// id2 chooser (neverChange=false), the write access as the reference reads it (the
	// read_uncorr_ typo), multiget sizes rounded up, and 512-byte motifs drawn by each client.
	Reference Variant = iota
	// Corrected has enginebench's corrections of each of those.
	Corrected
)

// String returns "reference" or "corrected".
func (v Variant) String() string {
	if v == Corrected {
		return "corrected"
	}
	return "reference"
}
