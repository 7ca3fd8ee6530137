package kv

// Kinds of write in an OpBuffer.
const (
	OpSet    = 0
	OpDelete = 1
)

// OpBuffer collects a batch's writes for an engine that applies a batch in one call into its C
// library: the keys and values, copied, one after the other in Bytes, and five int64s per write
// in Ops: its kind (OpSet or OpDelete), its key's offset and length, its value's offset and
// length. Neither holds a Go pointer, so both can be passed to C as they are.
type OpBuffer struct {
	buf []byte
	ops []int64
}

// Set adds key = value, copying both.
func (b *OpBuffer) Set(key, value []byte) {
	k := len(b.buf)
	b.buf = append(append(b.buf, key...), value...)
	b.ops = append(b.ops, OpSet, int64(k), int64(len(key)), int64(k+len(key)), int64(len(value)))
}

// Delete adds the deletion of key, copying it.
func (b *OpBuffer) Delete(key []byte) {
	k := len(b.buf)
	b.buf = append(b.buf, key...)
	b.ops = append(b.ops, OpDelete, int64(k), int64(len(key)), 0, 0)
}

// Len returns the number of writes.
func (b *OpBuffer) Len() int { return len(b.ops) / 5 }

// Reset empties the buffer, keeping its memory.
func (b *OpBuffer) Reset() { b.buf, b.ops = b.buf[:0], b.ops[:0] }

// Release drops the buffer's memory.
func (b *OpBuffer) Release() { b.buf, b.ops = nil, nil }

// Bytes returns the keys and values.
func (b *OpBuffer) Bytes() []byte { return b.buf }

// Ops returns the writes, five int64s each.
func (b *OpBuffer) Ops() []int64 { return b.ops }

// Op returns write i: whether it is a delete, its key and its value (nil for a delete).
func (b *OpBuffer) Op(i int) (del bool, key, value []byte) {
	op := b.ops[5*i : 5*i+5]
	key = b.buf[op[1] : op[1]+op[2] : op[1]+op[2]]
	if op[0] == OpDelete {
		return true, key, nil
	}
	return false, key, b.buf[op[3] : op[3]+op[4] : op[3]+op[4]]
}
