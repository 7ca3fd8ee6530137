package measure

import (
	"math/bits"
	"time"
	"unsafe"
)

// The geometry of a Histogram's HdrHistogram (LowestNs 1, SigFigs 3): values below 2048 ns
// have a bin each; above, every power of two [2^k, 2^(k+1)) is cut into 1024 bins of equal
// width. A Recording uses the same bins, so that it merges into a Histogram exactly
// (TestRecordingMergesExactly compares them bin for bin).
const (
	subBucketHalfMag = 10 // log2 of the bins per power of two
	subBucketHalf    = 1 << subBucketHalfMag
	subBucketMask    = 2*subBucketHalf - 1
	blockMag         = 6 // a Recording allocates its bins 64 at a time
	blockLen         = 1 << blockMag
)

// numBlocks is the number of blocks of bins that cover 0..HighestNs.
var numBlocks = binIndex(HighestNs)>>blockMag + 1

// Recording is one worker's latency record of one interval, in nanoseconds: the bins of a
// Histogram, allocated 64 at a time when a value first falls in them, plus the exact count,
// maximum and sum. A bin counts in 16 bits until it first overflows, then its block gets
// 64-bit carries. A Recording takes a few KB to a few tens of KB where a Histogram takes
// about 270 KB, so that every worker can keep its own for every operation type;
// MergeRecording adds it to a Histogram exactly. It is written here because hdrhistogram-go
// has no sparse form: its histograms allocate every count of their range at once. Record
// allocates only when a value falls in bins not used before or a block first overflows
// (Reset keeps both). It is not safe for concurrent use.
type Recording struct {
	blocks   []*block
	used     []uint64 // a bit per block that holds a value: the others are all zero
	count    int64
	max, sum int64
}

// block is 64 bins of a Recording: each bin's count is lo plus, once lo has wrapped, hi.
type block struct {
	lo [blockLen]uint16
	hi *[blockLen]int64 // the carries out of lo; nil until one is needed
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

// NewRecording returns an empty Recording.
func NewRecording() *Recording {
	return &Recording{blocks: make([]*block, numBlocks), used: make([]uint64, (numBlocks+63)/64)}
}

// Record records one value in nanoseconds, clamped as Histogram.Record clamps it.
func (r *Recording) Record(ns int64) {
	ns = max(ns, 0)
	r.max = max(r.max, ns)
	r.sum += ns
	r.count++
	i := binIndex(min(ns, HighestNs))
	bi := i >> blockMag
	b := r.blocks[bi]
	if b == nil {
		b = new(block)
		r.blocks[bi] = b
	}
	r.used[bi>>6] |= 1 << (bi & 63)
	j := i & (blockLen - 1)
	if b.lo[j]++; b.lo[j] == 0 {
		b.carry(j)
	}
}

// RecordDuration records one duration.
func (r *Recording) RecordDuration(d time.Duration) { r.Record(int64(d)) }

// Count is the number of recorded values.
func (r *Recording) Count() int64 { return r.count }

// Max is the exact largest recorded value (0 when empty).
func (r *Recording) Max() int64 { return r.max }

// Reset empties r for reuse, keeping its bins.
func (r *Recording) Reset() {
	if r.count == 0 {
		return
	}
	r.eachUsed(func(_ int, b *block) {
		b.lo = [blockLen]uint16{}
		if b.hi != nil {
			*b.hi = [blockLen]int64{}
		}
	})
	clear(r.used)
	r.count, r.max, r.sum = 0, 0, 0
}

// Bytes is the memory r holds, for the harness's own accounting.
func (r *Recording) Bytes() int {
	n := 8*len(r.blocks) + 8*len(r.used)
	for _, b := range r.blocks {
		if b != nil {
			n += int(unsafe.Sizeof(*b))
			if b.hi != nil {
				n += int(unsafe.Sizeof(*b.hi))
			}
		}
	}
	return n
}

// MergeRecording adds every value recorded in from to h, bin by bin: the result is that of
// recording the same values in h.
func (h *Histogram) MergeRecording(from *Recording) {
	if from == nil || from.count == 0 {
		return
	}
	from.eachUsed(func(bi int, b *block) {
		for j := range blockLen {
			if n := b.bin(j); n != 0 {
				// Cannot fail: the bin's lowest value is within the histogram's range.
				_ = h.h.RecordValues(binLowest(bi<<blockMag+j), n)
			}
		}
	})
	h.max = max(h.max, from.max)
	h.sum += from.sum
}

// eachUsed calls fn with the index and the block of every block that holds a value.
func (r *Recording) eachUsed(fn func(bi int, b *block)) {
	for w, bitsSet := range r.used {
		for bitsSet != 0 {
			bi := w*64 + bits.TrailingZeros64(bitsSet)
			bitsSet &= bitsSet - 1
			fn(bi, r.blocks[bi])
		}
	}
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
