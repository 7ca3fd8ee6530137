package workload

// Mix64 is SplitMix64's finalizer: a bijection of 64-bit values in which every bit of x
// reaches every bit of the result, so that neighbouring inputs (a row's key and the next)
// give unrelated outputs. The workloads seed each row's generator from the run's seed and the
// row's key with it, so that verification can make any row again.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
