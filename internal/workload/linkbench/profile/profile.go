// Package profile holds the figures of the LinkBench workload profiles: the operation mix,
// the access distributions, the payload settings and the empirical CDFs (out-degree and
// accesses), for the original 2011 Facebook workload (fb2011) and its 2017 refresh (fb2017).
//
// The settings are Go literals below, each with the reference file it comes from. The CDFs
// are embedded in a compact binary form (fb2011.cdf, fb2017.cdf) that go generate writes from
// the reference's Distribution.dat files, which the project does not carry:
//
//	go generate ./internal/workload/linkbench/profile
//
// reads them from ../shared/reference/linkbench beside the repository. The encoding is
// deterministic, so the one-off check that the embedded CDFs still hold every point of the
// reference files is to run go generate there and see `git diff --exit-code` pass. The tests
// need no reference file: they check the embedded CDFs against figures of the reference files
// (point counts, end points, means and a hash of every point) kept in profile_test.go.
package profile

//go:generate go run ./internal/gencdf -in2011 ../../../../../shared/reference/linkbench/Distribution-2011.dat -in2017 ../../../../../shared/reference/linkbench/Distribution-2017.dat -out .

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
)

// Op is a request-phase operation.
type Op int

// The operations, in the order of the reference's cumulative op table.
const (
	AddLink Op = iota
	DeleteLink
	UpdateLink
	CountLink
	MultigetLink
	GetLinksList
	AddNode
	UpdateNode
	DeleteNode
	GetNode
)

// NumOps is the number of operations.
const NumOps = int(GetNode) + 1

var opNames = [NumOps]string{
	"ADD_LINK", "DELETE_LINK", "UPDATE_LINK", "COUNT_LINK", "MULTIGET_LINK",
	"GET_LINKS_LIST", "ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE",
}

// String returns the reference's name of the op, e.g. "GET_LINKS_LIST".
func (o Op) String() string {
	if o >= 0 && int(o) < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Access is a distribution of which id an operation touches: Func "zipf" (with Shape in
// (0, 1); the most popular id is rank 0 before shuffling) or "uniform" (Shape unused).
type Access struct {
	Func  string
	Shape float64
}

// Access functions.
const (
	Zipf    = "zipf"
	Uniform = "uniform"
)

// Motif configures the payload generator: bytes are drawn from [Start, End] (End
// inclusive), either at random (a chunk with probability Uniqueness) or copied from a motif
// buffer of Length bytes. (The reference variant ignores Length, as the reference does: see
// package gen.)
type Motif struct {
	Start, End int
	Uniqueness float64
	Length     int
}

// Profile is a complete LinkBench workload profile. Percentages are in percent.
type Profile struct {
	Name   string
	Source string // where the figures come from

	Mix        [NumOps]float64 // percent of requests per op; sums to 100
	HistoryPct float64         // percent of GET_LINKS_LIST calls that page into history
	LinkTypes  int             // number of link types; a node's links are split over them (package gen)

	// Which id1 a link read touches: ReadUncorr (uncorrelated with out-degree) for
	// ReadUncorrBlend percent of reads, else ReadCorr (rank 0 = the most-linked node).
	ReadCorr, ReadUncorr Access
	ReadUncorrBlend      float64
	// The same for link writes, with their own blend. The reference reads its uncorrelated
	// write settings and blend under the read_uncorr_ prefix (a typo); its variant does too
	// (gen.NewLinkWrites).
	WriteCorr, WriteUncorr Access
	WriteUncorrBlend       float64
	// Which node a node read, update or delete touches.
	NodeRead, NodeUpdate, NodeDelete Access

	// Number of id2s of a MULTIGET_LINK: geometric with probability MultigetP from
	// MultigetMin up to MultigetMax (gen.NewMultigetSize: exclusive in the reference variant,
	// inclusive in the corrected).
	MultigetMin, MultigetMax int
	MultigetP                float64

	// Payload sizes: lognormal with these medians (bytes) and DataSigma (of the log).
	LinkDataMedian, NodeDataMedian, DataSigma float64
	// Payload bytes of new and updated links and nodes. (The names carry "Motif" because
	// NodeUpdate is the node update access above.)
	LinkAddMotif, LinkUpdateMotif, NodeAddMotif, NodeUpdateMotif Motif

	// Dist holds the empirical CDFs; NLinks gives every node's out-degree.
	Dist *Distributions
}

// The embedded CDFs, written by internal/gencdf (go generate).
var (
	//go:embed fb2011.cdf
	fb2011CDF []byte
	//go:embed fb2017.cdf
	fb2017CDF []byte
)

// lazyDist decodes embedded distributions once.
type lazyDist struct {
	data []byte
	once sync.Once
	dist *Distributions
	err  error
}

func (l *lazyDist) get() (*Distributions, error) {
	l.once.Do(func() { l.dist, l.err = DecodeDistributions(bytes.NewReader(l.data)) })
	return l.dist, l.err
}

type builtin struct {
	settings func() Profile
	dist     *lazyDist
}

var builtins = map[string]*builtin{
	"fb2011": {settings: fb2011, dist: &lazyDist{data: fb2011CDF}},
	"fb2017": {settings: fb2017, dist: &lazyDist{data: fb2017CDF}},
}

// Names returns the names of the built-in profiles, sorted.
func Names() []string {
	names := make([]string, 0, len(builtins))
	for name := range builtins {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Lookup returns a fresh copy of the named built-in profile ("fb2011", "fb2017"), its
// distributions included, which the caller may change.
func Lookup(name string) (*Profile, error) {
	b, ok := builtins[name]
	if !ok {
		return nil, fmt.Errorf("unknown LinkBench profile %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	dist, err := b.dist.get()
	if err != nil {
		return nil, fmt.Errorf("profile %s: embedded distributions: %w", name, err)
	}
	p := b.settings()
	p.Dist = dist.clone()
	return &p, nil
}

// Validate checks that the profile's figures make sense.
func (p *Profile) Validate() error {
	if err := p.validate(); err != nil {
		return fmt.Errorf("profile %s: %w", p.Name, err)
	}
	return nil
}

// validate checks every part of the profile in turn.
func (p *Profile) validate() error {
	for _, check := range []func() error{p.validateMix, p.validateAccesses, p.validatePayloads, p.validateDist} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateMix checks the operation mix, the history percent and the link types.
func (p *Profile) validateMix() error {
	sum := 0.0
	for i, pct := range p.Mix {
		if !(pct >= 0) || math.IsInf(pct, 0) {
			return fmt.Errorf("mix: %s is %v percent", Op(i), pct)
		}
		sum += pct
	}
	if math.Abs(sum-100) > 1e-5 {
		return fmt.Errorf("mix sums to %v percent, not 100", sum)
	}
	if !pctOK(p.HistoryPct) {
		return fmt.Errorf("history percent %v outside [0, 100]", p.HistoryPct)
	}
	if p.LinkTypes < 1 {
		return fmt.Errorf("%d link types: need at least 1", p.LinkTypes)
	}
	return nil
}

// validateAccesses checks the access distributions, their blends and the multiget sizes.
func (p *Profile) validateAccesses() error {
	for _, a := range []struct {
		name string
		acc  Access
	}{
		{"link read (correlated)", p.ReadCorr}, {"link read (uncorrelated)", p.ReadUncorr},
		{"link write (correlated)", p.WriteCorr}, {"link write (uncorrelated)", p.WriteUncorr},
		{"node read", p.NodeRead}, {"node update", p.NodeUpdate}, {"node delete", p.NodeDelete},
	} {
		if err := a.acc.Validate(); err != nil {
			return fmt.Errorf("%s access: %w", a.name, err)
		}
	}
	if !pctOK(p.ReadUncorrBlend) {
		return fmt.Errorf("read blend %v outside [0, 100]", p.ReadUncorrBlend)
	}
	if !pctOK(p.WriteUncorrBlend) {
		return fmt.Errorf("write blend %v outside [0, 100]", p.WriteUncorrBlend)
	}
	if p.MultigetMin < 1 || p.MultigetMax < p.MultigetMin {
		return fmt.Errorf("multiget sizes [%d, %d): need 1 <= min <= max", p.MultigetMin, p.MultigetMax)
	}
	if !(p.MultigetP > 0 && p.MultigetP < 1) {
		return fmt.Errorf("multiget probability %v outside (0, 1)", p.MultigetP)
	}
	return nil
}

// validatePayloads checks the payload sizes and motifs.
func (p *Profile) validatePayloads() error {
	if !(p.LinkDataMedian > 0) || !(p.NodeDataMedian > 0) || math.IsInf(p.LinkDataMedian, 0) || math.IsInf(p.NodeDataMedian, 0) {
		return fmt.Errorf("payload medians %v (links) and %v (nodes): need > 0", p.LinkDataMedian, p.NodeDataMedian)
	}
	if !(p.DataSigma >= 0) || math.IsInf(p.DataSigma, 0) {
		return fmt.Errorf("payload sigma %v: need >= 0", p.DataSigma)
	}
	for _, m := range []struct {
		name  string
		motif Motif
	}{{"link add", p.LinkAddMotif}, {"link update", p.LinkUpdateMotif}, {"node add", p.NodeAddMotif}, {"node update", p.NodeUpdateMotif}} {
		if err := m.motif.Validate(); err != nil {
			return fmt.Errorf("%s payload: %w", m.name, err)
		}
	}
	return nil
}

// validateDist checks the distributions: nlinks, and every section present.
func (p *Profile) validateDist() error {
	if p.Dist == nil || p.Dist.NLinks == nil {
		return fmt.Errorf("no nlinks distribution")
	}
	for _, name := range sectionNames {
		if c := *p.Dist.section(name); c != nil {
			if err := c.validate(); err != nil {
				return fmt.Errorf("distribution %s: %w", name, err)
			}
		}
	}
	return nil
}

func pctOK(x float64) bool { return x >= 0 && x <= 100 }

// Validate checks an access distribution: a known function, and for zipf a shape in (0, 1)
// (the Gray et al. sampler needs shape < 1; every reference profile uses 0.6 to 0.8).
func (a Access) Validate() error {
	switch a.Func {
	case Zipf:
		if !(a.Shape > 0 && a.Shape < 1) {
			return fmt.Errorf("zipf shape %v outside (0, 1)", a.Shape)
		}
	case Uniform:
	default:
		return fmt.Errorf("unknown function %q (want %s or %s)", a.Func, Zipf, Uniform)
	}
	return nil
}

// Validate checks motif settings: 0 <= Start < End <= 255, Uniqueness in [0, 1], Length > 0.
func (m Motif) Validate() error {
	if m.Start < 0 || m.Start >= m.End || m.End > 255 {
		return fmt.Errorf("bytes [%d, %d]: need 0 <= start < end <= 255", m.Start, m.End)
	}
	if !(m.Uniqueness >= 0 && m.Uniqueness <= 1) {
		return fmt.Errorf("uniqueness %v outside [0, 1]", m.Uniqueness)
	}
	if m.Length <= 0 {
		return fmt.Errorf("motif length %d: need > 0", m.Length)
	}
	return nil
}
