// Package gen holds the random generators of the LinkBench workload, built from the figures
// of package profile: Zipf, uniform, geometric and lognormal samplers, the invertible
// shuffler, the deterministic out-degree of a node, the id1 (access) and id2 choosers, the
// payload generator and the op mix.
//
// Where the reference and enginebench's corrections differ, a generator takes a Variant.
//
// Every generator draws from a *rand.Rand (math/rand/v2) that the caller owns, one per
// goroutine, and allocates nothing per draw. Generators are immutable once built, so several
// goroutines may share one, each with its own *rand.Rand.
package gen

// Shuffler seeds and size. The correlated link accesses use SeedOutDegree, as the out-degree
// does, so that their rank 0 is the most-linked node; the uncorrelated link accesses (reads
// and writes alike, as in the reference) use SeedUncorrelated; node accesses use SeedNode.
const (
	ShuffleGroups = 1024

	SeedOutDegree    uint64 = 0x6c696e6b62656e31
	SeedUncorrelated uint64 = 0x756e636f72726c32
	SeedNode         uint64 = 0x6e6f646573687533
)

// Motif seeds: in the corrected variant each payload kind has its own motif buffer, the same
// for every client (in the reference variant each client draws its own: Payload.ForClient).
const (
	SeedLinkAddMotif    uint64 = 0x6d6f7469666c6131
	SeedLinkUpdateMotif uint64 = 0x6d6f7469666c7532
	SeedNodeAddMotif    uint64 = 0x6d6f7469666e6133
	SeedNodeUpdateMotif uint64 = 0x6d6f7469666e7534
)
