package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// maxChunk is the largest run of bytes a payload takes at once from the motif or at random.
const maxChunk = 128

// Payload generates link or node payloads: a lognormal length, and bytes in [Start, End]
// made of chunks that are either random (probability Uniqueness) or a copy of a random window
// of a shared motif buffer of Length bytes. One payload compresses little on its own; many
// stored together compress because the motif recurs.
type Payload struct {
	m     profile.Motif
	motif []byte
	span  uint32 // number of distinct bytes: End - Start + 1
	chunk int
	size  *LogNormal
}

// NewPayload returns a payload generator with motif settings m, lengths lognormal with the
// given median and sigma and at most maxLen, and a motif buffer of m.Length bytes drawn with
// seed (the reference drew it from its first caller's generator and ignored the configured
// length, using 512 bytes always: its bug 3).
func NewPayload(m profile.Motif, median, sigma float64, maxLen int, seed uint64) (*Payload, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	if maxLen < 0 {
		return nil, fmt.Errorf("payload: maximum length %d", maxLen)
	}
	size, err := NewLogNormal(0, int64(maxLen)+1, median, sigma)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	p := &Payload{m: m, span: uint32(m.End - m.Start + 1), chunk: min(maxChunk, m.Length), size: size}
	r := rand.New(rand.NewPCG(seed, 0x6d6f746966627566))
	p.motif = make([]byte, m.Length)
	for i := range p.motif {
		p.motif[i] = byte(m.Start + int(r.Uint32N(p.span)))
	}
	return p, nil
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
