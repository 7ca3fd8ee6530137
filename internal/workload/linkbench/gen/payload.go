package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// maxChunk is the largest run of bytes a payload takes at once from the motif or at random.
const maxChunk = 128

// ReferenceMotifLength is the motif length of every reference payload: the reference never
// reads its motif length setting (MotifDataGenerator.init tests the key with
// Properties.contains, which looks among the values) and keeps its default.
const ReferenceMotifLength = 512

// Payload generates link or node payloads: a lognormal length, and bytes in [Start, End]
// made of chunks that are either random (probability Uniqueness) or a copy of a random window
// of a motif buffer. One payload compresses little on its own; many stored together compress
// because the motif recurs.
//
// Corrected variant: the motif has the configured Length and is drawn from a seed, the same
// for every client; lengths are at most maxLen. Reference variant: the motif has
// ReferenceMotifLength bytes whatever the setting, and each client draws its own from its own
// random stream (ForClient), as each reference thread's generator does at its first use;
// lengths are at most maxLen-1 (the reference takes its maximum as exclusive).
type Payload struct {
	m         profile.Motif
	motif     []byte
	span      uint32 // number of distinct bytes: End - Start + 1
	chunk     int
	size      *LogNormal
	perClient bool
}

// NewPayload returns a payload generator with motif settings m, lengths lognormal with the
// given median and sigma and capped by maxLen, in variant v. Its motif is drawn with seed;
// in the reference variant each client takes its own with ForClient.
func NewPayload(m profile.Motif, median, sigma float64, maxLen int, seed uint64, v Variant) (*Payload, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	if maxLen < 0 {
		return nil, fmt.Errorf("payload: maximum length %d", maxLen)
	}
	sizeMax := int64(maxLen) + 1
	if v == Reference {
		m.Length, sizeMax = ReferenceMotifLength, int64(maxLen)
	}
	size, err := NewLogNormal(0, sizeMax, median, sigma)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	p := &Payload{m: m, span: uint32(m.End - m.Start + 1), chunk: min(maxChunk, m.Length), size: size,
		perClient: v == Reference}
	p.motif = p.drawMotif(rand.New(rand.NewPCG(seed, 0x6d6f746966627566)))
	return p, nil
}

// drawMotif returns a motif of the generator's length, each byte uniform in [Start, End].
func (p *Payload) drawMotif(r *rand.Rand) []byte {
	motif := make([]byte, p.m.Length)
	for i := range motif {
		motif[i] = byte(p.m.Start + int(r.Uint32N(p.span)))
	}
	return motif
}

// ForClient returns the generator one client (a loader or a requester, with its random stream
// r) uses: in the reference variant a copy with its own motif drawn from r, in the corrected
// variant p itself.
func (p *Payload) ForClient(r *rand.Rand) *Payload {
	if !p.perClient {
		return p
	}
	c := *p
	c.motif = p.drawMotif(r)
	return &c
}

// Fill draws a payload length and writes that many bytes over dst[:0], growing it if needed,
// and returns the result. It allocates only when dst is too small.
func (p *Payload) Fill(r *rand.Rand, dst []byte) []byte {
	return p.FillN(r, dst, int(p.size.Choose(r)))
}

// FillN is Fill with the length n given.
func (p *Payload) FillN(r *rand.Rand, dst []byte, n int) []byte {
	dst = slices.Grow(dst[:0], n)[:n]
	for i := 0; i < n; i += p.chunk {
		c := dst[i:min(n, i+p.chunk)]
		if r.Float64() < p.m.Uniqueness {
			p.random(r, c)
		} else {
			k := r.IntN(len(p.motif) - len(c) + 1)
			copy(c, p.motif[k:])
		}
	}
	return dst
}

// random fills c with bytes uniform in [Start, End]: two per 64-bit draw, each 32-bit half
// scaled to the span by multiply-and-shift (its bias, span/2^32, is far below anything a
// compressor or an engine could notice).
func (p *Payload) random(r *rand.Rand, c []byte) {
	start, span := byte(p.m.Start), uint64(p.span)
	j := 0
	for ; j+1 < len(c); j += 2 {
		x := r.Uint64()
		c[j] = start + byte((x&0xffffffff)*span>>32)
		c[j+1] = start + byte((x>>32)*span>>32)
	}
	if j < len(c) {
		c[j] = start + byte((r.Uint64()&0xffffffff)*span>>32)
	}
}
