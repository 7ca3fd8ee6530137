package measure

import (
	"math/bits"
	"time"
	"unsafe"
)

// The geometry of a latency record, that of an HdrHistogram of LowestNs 1 and SigFigs 3:
// values below 2048 ns have a bin each; above, every power of two [2^k, 2^(k+1)) is cut into
// 1024 bins of equal width. Recordings and Histograms use the HdrHistogram's bins, so that their
// percentiles are the library's (TestHistogramMatchesHdrHistogram compares them).
const (
	subBucketHalfMag = 10 // log2 of the bins per power of two
	subBucketHalf    = 1 << subBucketHalfMag
	subBucketMask    = 2*subBucketHalf - 1
	blockMag         = 6 // bins are allocated 64 at a time
	blockLen         = 1 << blockMag
	spareBlocks      = 8 // released blocks a Recording may keep for reuse, whatever it holds
)

// numBlocks is the number of blocks of bins that cover 0..HighestNs.
var numBlocks = binIndex(HighestNs)>>blockMag + 1

// Recording is one worker's latency record of one interval, in nanoseconds: the bins of a
// Histogram, allocated 64 at a time when a value first falls in them, plus the exact count,
// maximum and sum. A bin counts in 16 bits until it first overflows, then its block gets
// 64-bit carries. A Recording takes a few KB to a few tens of KB (about 1 KB empty), so that
// every worker can keep its own for every operation type; MergeRecording adds it to a
// Histogram exactly. It is written here because hdrhistogram-go has no sparse form: its
// histograms allocate every count of their range at once (about 270 KB). Reset keeps the
// blocks that held a value in the interval and releases the others, keeping aside for reuse
// up to twice as many as it kept (at least spareBlocks): a Recording reused for hours holds at
// most three times the blocks its latencies reached in the last interval, not every block a
// rare latency ever reached, and the blocks of a tail that moves from one interval to the next
// are mostly reused, not reallocated. Record allocates only when a value falls in a block not held and none is
// spare, or when a block first overflows. It is not safe for concurrent use.
type Recording struct {
	index    []uint16 // per block of bins: 1 + its place in blocks; 0 until it is allocated
	blocks   []*block // the allocated blocks, in the order they were first needed
	used     []uint64 // a bit per block that holds a value: the others are all zero
	spare    []*block // released blocks, zero and without carries, for reuse
	count    int64
	max, sum int64
}

// block is 64 bins of a Recording: each bin's count is lo plus hi, once lo has wrapped.
type block struct {
	lo [blockLen]uint16
	hi *[blockLen]int64 // the carries out of lo; nil until one is needed
	bi uint16           // the block's index among the blocks of bins
}

// carry adds the 1<<16 that bin j's lo wrapped from.
func (b *block) carry(j int) {
	if b.hi == nil {
		b.hi = new([blockLen]int64)
	}
	b.hi[j] += 1 << 16
}

// bin returns the count of bin j.
func (b *block) bin(j int) int64 {
	n := int64(b.lo[j])
	if b.hi != nil {
		n += b.hi[j]
	}
	return n
}

// add adds n (> 0) to the count of bin j.
func (b *block) add(j int, n int64) {
	total := b.bin(j) + n
	b.lo[j] = uint16(total)
	if rest := total - int64(b.lo[j]); rest != 0 || b.hi != nil {
		if b.hi == nil {
			b.hi = new([blockLen]int64)
		}
		b.hi[j] = rest
	}
}

// NewRecording returns an empty Recording.
func NewRecording() *Recording {
	r := newRecording()
	return &r
}

func newRecording() Recording {
	return Recording{index: make([]uint16, numBlocks), used: make([]uint64, (numBlocks+63)/64)}
}

// Record records one value in nanoseconds, clamped as Histogram.Record clamps it.
func (r *Recording) Record(ns int64) {
	ns = max(ns, 0)
	r.max = max(r.max, ns)
	r.sum += ns
	r.count++
	i := binIndex(min(ns, HighestNs))
	bi := i >> blockMag
	k := r.index[bi] // r.block(bi), written out: it does not inline
	if k == 0 {
		k = r.grow(bi)
	}
	r.used[bi>>6] |= 1 << (bi & 63)
	b := r.blocks[k-1]
	j := i & (blockLen - 1)
	if b.lo[j]++; b.lo[j] == 0 {
		b.carry(j)
	}
}

// block returns block bi, allocated if it was not, marked as holding a value.
func (r *Recording) block(bi int) *block {
	k := r.index[bi]
	if k == 0 {
		k = r.grow(bi)
	}
	r.used[bi>>6] |= 1 << (bi & 63)
	return r.blocks[k-1]
}

// grow allocates block bi, or takes a spare one, and returns 1 + its place in r.blocks.
func (r *Recording) grow(bi int) uint16 {
	var b *block
	if n := len(r.spare); n > 0 {
		b, r.spare[n-1] = r.spare[n-1], nil
		r.spare = r.spare[:n-1]
	} else {
		b = new(block)
	}
	b.bi = uint16(bi)
	r.blocks = append(r.blocks, b)
	r.index[bi] = uint16(len(r.blocks))
	return r.index[bi]
}

// recordN records n (> 0) values of ns at once, clamped as Record clamps them.
func (r *Recording) recordN(ns, n int64) {
	ns = max(ns, 0)
	r.max = max(r.max, ns)
	r.sum += ns * n
	r.count += n
	i := binIndex(min(ns, HighestNs))
	r.block(i>>blockMag).add(i&(blockLen-1), n)
}

// RecordDuration records one duration.
func (r *Recording) RecordDuration(d time.Duration) { r.Record(int64(d)) }

// Count is the number of recorded values.
func (r *Recording) Count() int64 { return r.count }

// Max is the exact largest recorded value (0 when empty).
func (r *Recording) Max() int64 { return r.max }

// Reset empties r for reuse, keeping the blocks of bins that held a value and releasing the
// others, of which it keeps up to twice as many as it kept (at least spareBlocks), without
// carries, for reuse.
func (r *Recording) Reset() {
	inUse := 0
	for _, w := range r.used {
		inUse += bits.OnesCount64(w)
	}
	spares := max(2*inUse, spareBlocks)
	if len(r.spare) > spares { // a wider interval's spares
		clear(r.spare[spares:])
		r.spare = r.spare[:spares]
	}
	kept := r.blocks[:0]
	for _, b := range r.blocks {
		bi := int(b.bi)
		if r.used[bi>>6]&(1<<(bi&63)) == 0 { // held no value: release it (it is all zero)
			r.index[bi] = 0
			if len(r.spare) < spares {
				b.hi = nil
				r.spare = append(r.spare, b)
			}
			continue
		}
		b.lo = [blockLen]uint16{}
		if b.hi != nil {
			*b.hi = [blockLen]int64{}
		}
		kept = append(kept, b)
		r.index[bi] = uint16(len(kept))
	}
	clear(r.blocks[len(kept):]) // the released blocks not kept as spares go to the collector
	r.blocks = kept
	clear(r.used)
	r.count, r.max, r.sum = 0, 0, 0
}

// Bytes is the memory r holds, for the harness's own accounting.
func (r *Recording) Bytes() int {
	n := int(unsafe.Sizeof(*r)) + 2*cap(r.index) + 8*cap(r.blocks) + 8*cap(r.used) + 8*cap(r.spare)
	for _, bs := range [][]*block{r.blocks, r.spare} {
		for _, b := range bs {
			n += int(unsafe.Sizeof(*b))
			if b.hi != nil {
				n += int(unsafe.Sizeof(*b.hi))
			}
		}
	}
	return n
}

// merge adds every value recorded in from to r, bin by bin.
func (r *Recording) merge(from *Recording) {
	if from == nil || from.count == 0 {
		return
	}
	from.eachUsed(func(bi int, fb *block) bool {
		b := r.block(bi)
		for j := range blockLen {
			if n := fb.bin(j); n != 0 {
				b.add(j, n)
			}
		}
		return true
	})
	r.count += from.count
	r.max = max(r.max, from.max)
	r.sum += from.sum
}

// eachUsed calls fn with the index and the block of every block that holds a value, in the
// order of their values, until fn returns false.
func (r *Recording) eachUsed(fn func(bi int, b *block) bool) {
	for w, bitsSet := range r.used {
		for bitsSet != 0 {
			bi := w*64 + bits.TrailingZeros64(bitsSet)
			bitsSet &= bitsSet - 1
			if !fn(bi, r.blocks[r.index[bi]-1]) {
				return
			}
		}
	}
}

// eachBin calls fn with the index and the count of every bin that holds a value, in the order
// of their values, until fn returns false.
func (r *Recording) eachBin(fn func(i int, n int64) bool) {
	r.eachUsed(func(bi int, b *block) bool {
		for j := range blockLen {
			if n := b.bin(j); n != 0 && !fn(bi<<blockMag+j, n) {
				return false
			}
		}
		return true
	})
}

// binIndex is the bin of value v (0 <= v <= HighestNs), as the HdrHistogram numbers its counts.
func binIndex(v int64) int {
	bucket := 64 - bits.LeadingZeros64(uint64(v)|subBucketMask) - (subBucketHalfMag + 1)
	sub := int(v >> bucket)
	return (bucket+1)<<subBucketHalfMag + sub - subBucketHalf
}

// binLowest is the lowest value of bin i.
func binLowest(i int) int64 {
	bucket := i>>subBucketHalfMag - 1
	sub := i&(subBucketHalf-1) + subBucketHalf
	if bucket < 0 {
		bucket, sub = 0, sub-subBucketHalf
	}
	return int64(sub) << bucket
}

// binHighest is the highest value of bin i.
func binHighest(i int) int64 {
	if i < 2*subBucketHalf {
		return int64(i) // one value per bin
	}
	return binLowest(i) + 1<<(i>>subBucketHalfMag-1) - 1
}
