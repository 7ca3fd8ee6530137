package profile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestOpString(t *testing.T) {
	want := []string{"ADD_LINK", "DELETE_LINK", "UPDATE_LINK", "COUNT_LINK", "MULTIGET_LINK",
		"GET_LINKS_LIST", "ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE"}
	if len(want) != NumOps {
		t.Fatalf("NumOps = %d", NumOps)
	}
	for i, w := range want {
		if got := Op(i).String(); got != w {
			t.Errorf("Op(%d) = %q, want %q", i, got, w)
		}
	}
	if got := Op(NumOps).String(); got != "Op(10)" {
		t.Errorf("out of range op: %q", got)
	}
}

const goodDat = `nlinks
0 45.5
1 77
3 90.25
10 100

link_nreads
0 50
7 100
`

func TestParseDistributions(t *testing.T) {
	d, err := ParseDistributions(strings.NewReader(goodDat), "x.dat")
	if err != nil {
		t.Fatal(err)
	}
	want := &CDF{Values: []int64{0, 1, 3, 10}, Cum: []float64{0.455, 0.77, 0.9025, 1}}
	if !reflect.DeepEqual(d.NLinks, want) {
		t.Errorf("nlinks = %+v, want %+v", d.NLinks, want)
	}
	if d.LinkReads == nil || d.LinkWrites != nil || d.NodeReads != nil || d.NodeWrites != nil {
		t.Errorf("sections: %+v", d)
	}
	for _, c := range []struct {
		u    float64
		want int64
	}{{-1, 0}, {0, 0}, {0.455, 0}, {0.4551, 1}, {0.77, 1}, {0.8, 3}, {0.95, 10}, {1, 10}, {2, 10}, {math.NaN(), 0}} {
		if got := d.NLinks.Quantile(c.u); got != c.want {
			t.Errorf("Quantile(%v) = %d, want %d", c.u, got, c.want)
		}
	}
	wantMean := 0.455*0 + (0.77-0.455)*1 + (0.9025-0.77)*3 + (1-0.9025)*10
	if got := d.NLinks.Mean(); math.Abs(got-wantMean) > 1e-12 {
		t.Errorf("Mean = %v, want %v", got, wantMean)
	}
	if n := testing.AllocsPerRun(100, func() { d.NLinks.Quantile(0.5) }); n != 0 {
		t.Errorf("Quantile allocates %v times", n)
	}
	// The last percent may be a hair under 100; it is then exactly 1.
	d, err = ParseDistributions(strings.NewReader("nlinks\n1 50\n2 99.9999995\n"), "y")
	if err != nil {
		t.Fatal(err)
	}
	if d.NLinks.Cum[1] != 1 {
		t.Errorf("last Cum = %v", d.NLinks.Cum[1])
	}
}

func TestParseDistributionsErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"unknown section", "nlinks\n0 100\nfoo\n", "f.dat:3: unknown section \"foo\""},
		{"repeated section", "nlinks\n0 100\nnlinks\n0 100\n", "f.dat:3: section nlinks appears twice"},
		{"non-integer value", "nlinks\n1.5 100\n", "f.dat:2: value \"1.5\" is not an integer"},
		{"bad percent", "nlinks\n1 abc\n", "f.dat:2: percent \"abc\" is not a number"},
		{"nan percent", "nlinks\n1 NaN\n", "f.dat:2: percent \"NaN\" is not a number"},
		{"values not increasing", "nlinks\n1 50\n1 100\n", "f.dat:3: value 1 does not increase"},
		{"values decreasing", "nlinks\n5 50\n2 100\n", "f.dat:3: value 2 does not increase"},
		{"percent decreasing", "nlinks\n1 50\n2 40\n3 100\n", "f.dat:3: percent 40 decreases"},
		{"percent above 100", "nlinks\n1 50\n2 100.5\n", "f.dat:3: percent 100.5 is outside [0, 100]"},
		{"percent below 0", "nlinks\n1 -1\n2 100\n", "f.dat:2: percent -1 is outside [0, 100]"},
		{"last not 100", "nlinks\n1 50\n2 99.9\nlink_nreads\n0 100\n", "f.dat:3: section nlinks ends at 99.9 percent, not 100"},
		{"last not 100 at eof", "link_nreads\n0 100\nnlinks\n1 50\n", "f.dat:4: section nlinks ends at 50 percent"},
		{"empty section", "nlinks\nlink_nreads\n0 100\n", "f.dat:1: section nlinks has no points"},
		{"empty section at eof", "nlinks\n0 100\nnode_nreads\n", "f.dat:3: section node_nreads has no points"},
		{"missing nlinks", "link_nreads\n0 100\n", "f.dat: no nlinks section"},
		{"empty file", "", "f.dat: no nlinks section"},
		{"point before section", "0 100\nnlinks\n0 100\n", "f.dat:1: a point before any section"},
		{"too many fields", "nlinks\n0 100 3\n", "f.dat:2: want a section name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDistributions(strings.NewReader(c.in), "f.dat")
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %q, want prefix %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	d, err := ParseDistributions(strings.NewReader(goodDat+"node_nwrites\n-3 12.3456789012\n4 100\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	// A section whose probabilities are not short decimals takes the raw float64 path.
	d.NodeReads = &CDF{Values: []int64{2, 5, 1 << 40}, Cum: []float64{1.0 / 3, 2.0 / 3, 1}}
	var buf bytes.Buffer
	if err := d.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeDistributions(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, back) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, d)
	}
	if _, err := DecodeDistributions(bytes.NewReader(buf.Bytes()[:buf.Len()/2])); err == nil {
		t.Error("a truncated stream decoded")
	}
	if _, err := DecodeDistributions(strings.NewReader("not gzip")); err == nil {
		t.Error("garbage decoded")
	}
}

// cdfFigures are figures of one section of a reference Distribution.dat, taken once from the
// reference's file (the project does not carry it): the number of points, the first and last
// point, the mean, and the SHA-256 of every point written as "value cum\n" (cum in Go's
// shortest round-trip form). The full check against the reference files is a one-off,
// documented in the package comment.
type cdfFigures struct {
	points   int
	firstV   int64
	firstCum float64
	lastV    int64
	lastCum  float64
	mean     float64
	sha256   string
}

// referenceFigures are the figures of the reference's Distribution-2011.dat (fb2011) and
// Distribution-2017.dat (fb2017), section by section.
var referenceFigures = map[string]map[string]cdfFigures{
	"fb2011": {
		"nlinks":       {19951, 0, 0.4533160573, 961963, 1, 4.0972855115987805, "96795e293b36ffcafa1a220bbe7f8876cc2c42f0f41c4e08e2dbe142ed9e9d84"},
		"link_nreads":  {3988, 0, 0.9557464021, 95718, 1, 0.6476064206004146, "318a596a15cedb1a0e8c17229db78e3261a97ae54dcdd18eedc09857eb950df2"},
		"link_nwrites": {3941, 0, 0.9675363142000001, 75879, 1, 0.23067893120031602, "8767a11206d69cc492a6c29ceecaac26b7b3651243e1cf9c3a2b710148f8fc3d"},
		"node_nreads":  {1089, 0, 0.9520274962, 23831, 1, 0.1492270178006866, "d359d4955371a8fc51a96e1ee2c989a960db259791a8c96012a9491a8ecd776a"},
		"node_nwrites": {1477, 0, 0.9522282911000001, 25125, 1, 0.12636460170084196, "f3b4a169d3f109481c4b4c54646c1f91d5a50c449b643f4e242f523290dc57e8"},
	},
	"fb2017": {
		"nlinks":       {23616, 1, 0.797470123808, 4181357, 1, 3.852637996596112, "10b9f8993c6c4d561347bee3a734360d2c16dd3d9a7c32fcbb8b63c34efc8faf"},
		"link_nreads":  {2824, 0, 0.993866035259, 150782, 1, 0.03754333399562659, "2016fd14dbe80fe8c4491ebde9fa4e53e94a05d1d4ffe17d619a80295749fe04"},
		"link_nwrites": {2108, 0, 0.9981108963149999, 84506, 1, 0.015720609361419724, "e03fa308adde1884af73fd072bc50b6a05e6a3073114594bccd4dc7acb2dc9ae"},
		"node_nreads":  {163, 0, 0.979011922515, 2195, 1, 0.04666096706305678, "b3eb577df9ac0779a4cce2383905af780056b8979044573c3d405567f4f40d31"},
		"node_nwrites": {654, 0, 0.9968371933589999, 17234, 1, 0.007654664081361062, "126cd0b5cfc1b4c3d07103663e1781771475256ff7aaf961abbc26a7c2657aad"},
	},
}

// figuresOf computes the figures of c as referenceFigures records them.
func figuresOf(c *CDF) cdfFigures {
	h := sha256.New()
	for i, v := range c.Values {
		fmt.Fprintf(h, "%d %s\n", v, strconv.FormatFloat(c.Cum[i], 'g', -1, 64))
	}
	n := len(c.Values)
	return cdfFigures{n, c.Values[0], c.Cum[0], c.Values[n-1], c.Cum[n-1], c.Mean(), hex.EncodeToString(h.Sum(nil))}
}

// TestEmbeddedMatchesReference checks every section of the embedded CDFs against the figures
// of the reference's Distribution.dat files: a lost, moved or changed point changes the hash.
func TestEmbeddedMatchesReference(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range sectionNames {
			want, ok := referenceFigures[name][sec]
			got := *p.Dist.section(sec)
			if ok != (got != nil) {
				t.Fatalf("%s section %s: reference has it %v, embedded %v", name, sec, ok, got != nil)
			}
			if !ok {
				continue
			}
			g := figuresOf(got)
			if math.Abs(g.mean-want.mean) <= 1e-12*want.mean {
				g.mean = want.mean // the mean is a sum of products: allow for its rounding
			}
			if g != want {
				t.Errorf("%s section %s:\n got %+v\nwant %+v", name, sec, g, want)
			}
		}
	}
}

func TestEmbeddedSize(t *testing.T) {
	for name, data := range map[string][]byte{"fb2011.cdf": fb2011CDF, "fb2017.cdf": fb2017CDF} {
		if len(data) == 0 || len(data) > 200<<10 {
			t.Errorf("%s is %d bytes", name, len(data))
		}
	}
}

func TestLookup(t *testing.T) {
	if got := Names(); !reflect.DeepEqual(got, []string{"fb2011", "fb2017"}) {
		t.Errorf("Names() = %v", got)
	}
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if p.Name != name || p.Source == "" {
			t.Errorf("%s: name %q source %q", name, p.Name, p.Source)
		}
		// A fresh copy each time: changing one does not change the next.
		p.Mix[AddLink] = -1
		p.Dist.NLinks.Values[0] = 12345
		q, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if q.Mix[AddLink] < 0 || q.Dist.NLinks.Values[0] == 12345 {
			t.Errorf("%s: Lookup returned a shared profile", name)
		}
	}
	p11, _ := Lookup("fb2011")
	p17, _ := Lookup("fb2017")
	if p11.Mix[GetLinksList] != 50.7119145 || p17.Mix[GetNode] != 43.9869 {
		t.Errorf("mix: %v / %v", p11.Mix, p17.Mix)
	}
	if p11.LinkDataMedian != 8 || p11.NodeDataMedian != 128 || p17.LinkDataMedian != 23 || p17.NodeDataMedian != 168 {
		t.Error("payload medians")
	}
	if m := p11.Dist.NLinks.Mean(); math.Abs(m-4.1) > 0.05 {
		t.Errorf("fb2011 mean out-degree %v, want about 4.1", m)
	}
	if q := p11.Dist.NLinks.Quantile(0.99); q != 15 {
		t.Errorf("fb2011 99th percentile out-degree %d, want 15", q)
	}
	_, err := Lookup("fb2099")
	if err == nil || !strings.Contains(err.Error(), "fb2011, fb2017") {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(p *Profile)
		want   string
	}{
		{"mix sum", func(p *Profile) { p.Mix[GetNode] += 0.001 }, "mix sums to"},
		{"mix negative", func(p *Profile) { p.Mix[GetNode] += p.Mix[DeleteNode] + 1; p.Mix[DeleteNode] = -1 }, "mix: DELETE_NODE is -1"},
		{"zipf shape", func(p *Profile) { p.ReadCorr.Shape = 0 }, "link read (correlated) access: zipf shape 0"},
		{"zipf shape 1", func(p *Profile) { p.NodeRead.Shape = 1 }, "node read access: zipf shape 1"},
		{"access func", func(p *Profile) { p.NodeDelete.Func = "real" }, "unknown function \"real\""},
		{"read blend", func(p *Profile) { p.ReadUncorrBlend = 101 }, "read blend 101"},
		{"write blend", func(p *Profile) { p.WriteUncorrBlend = -1 }, "write blend -1"},
		{"history", func(p *Profile) { p.HistoryPct = 200 }, "history percent"},
		{"multiget min", func(p *Profile) { p.MultigetMin = 0 }, "multiget sizes"},
		{"multiget max", func(p *Profile) { p.MultigetMax = 0 }, "multiget sizes"},
		{"multiget p", func(p *Profile) { p.MultigetP = 1 }, "multiget probability 1"},
		{"median", func(p *Profile) { p.NodeDataMedian = 0 }, "payload medians"},
		{"sigma", func(p *Profile) { p.DataSigma = -1 }, "payload sigma"},
		{"motif bytes", func(p *Profile) { p.LinkAddMotif.End = 256 }, "link add payload: bytes [32, 256]"},
		{"motif order", func(p *Profile) { p.NodeUpdateMotif.Start = 220 }, "node update payload: bytes [220, 220]"},
		{"uniqueness", func(p *Profile) { p.NodeAddMotif.Uniqueness = 1.5 }, "uniqueness 1.5"},
		{"motif length", func(p *Profile) { p.LinkUpdateMotif.Length = 0 }, "motif length 0"},
		{"link types", func(p *Profile) { p.LinkTypes = 0 }, "0 link types"},
		{"no nlinks", func(p *Profile) { p.Dist.NLinks = nil }, "no nlinks distribution"},
		{"no dist", func(p *Profile) { p.Dist = nil }, "no nlinks distribution"},
		{"bad cdf", func(p *Profile) { p.Dist.NodeReads.Cum[0] = 2 }, "distribution node_nreads"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Lookup("fb2011")
			if err != nil {
				t.Fatal(err)
			}
			c.change(p)
			err = p.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "profile fb2011: ") {
				t.Errorf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
}
