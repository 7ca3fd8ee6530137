package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Order-preserving key encoding: the byte order (bytes.Compare) of encoded tuples equals the
// order of the tuples, column by column, when tuples of one key range share a schema (the same
// kind of value at each position).
//
//   - Unsigned integers are 8 bytes, big-endian (AppendUint64).
//   - Signed integers are 8 bytes, big-endian, with the sign bit flipped, so that negative values
//     sort before positive ones (AppendInt64).
//   - Byte strings have variable length: every 0x00 is escaped as 0x00 0xFF and the value ends
//     with 0x00 0x01 (AppendBytes). The terminator sorts below every escaped or plain byte that a
//     longer value has at the same position, so a value sorts before every longer value it
//     prefixes, and the columns after a string compare only when the strings are equal.
//
// The Append functions append to dst and allocate only when dst lacks capacity. The Decode
// functions read one value from the front of a key and return the rest; they fail on truncated
// or invalid input and never panic.

// ErrMalformedKey is wrapped by every error of the Decode functions: the key ends in the middle
// of a value, or holds an invalid escape sequence.
var ErrMalformedKey = errors.New("malformed key")

// Escape bytes of AppendBytes.
const (
	escByte     = 0x00 // starts an escape sequence
	escZero     = 0xFF // escByte escZero is a 0x00 of the value
	escTerminal = 0x01 // escByte escTerminal ends the value
)

// AppendUint64 appends v as 8 big-endian bytes.
func AppendUint64(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }

// AppendInt64 appends v as 8 big-endian bytes with the sign bit flipped, so that negative values
// sort before positive ones.
func AppendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// AppendBytes appends b with every 0x00 escaped as 0x00 0xFF, then the terminator 0x00 0x01.
func AppendBytes(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, escByte)
		if i < 0 {
			dst = append(dst, b...)
			return append(dst, escByte, escTerminal)
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, escZero)
		b = b[i+1:]
	}
}

// AppendString is AppendBytes for a string, without converting it to a byte slice.
func AppendString(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, escByte)
		if i < 0 {
			dst = append(dst, s...)
			return append(dst, escByte, escTerminal)
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, escZero)
		s = s[i+1:]
	}
}

// DecodeUint64 decodes a value written by AppendUint64 from the front of b and returns the rest
// of b.
func DecodeUint64(b []byte) (v uint64, rest []byte, err error) {
	if len(b) < 8 {
		return 0, b, fmt.Errorf("decode uint64: %w: %d bytes left, want 8", ErrMalformedKey, len(b))
	}
	return binary.BigEndian.Uint64(b), b[8:], nil
}

// DecodeInt64 decodes a value written by AppendInt64 from the front of b and returns the rest
// of b.
func DecodeInt64(b []byte) (v int64, rest []byte, err error) {
	if len(b) < 8 {
		return 0, b, fmt.Errorf("decode int64: %w: %d bytes left, want 8", ErrMalformedKey, len(b))
	}
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)), b[8:], nil
}

// DecodeBytes decodes a value written by AppendBytes from the front of b, appends it to dst and
// returns the extended slice and the rest of b. On error it returns dst unchanged and b.
func DecodeBytes(b, dst []byte) (val, rest []byte, err error) {
	n0 := len(dst)
	in := b
	for {
		i := bytes.IndexByte(in, escByte)
		if i < 0 || i+1 >= len(in) {
			return dst[:n0], b, fmt.Errorf("decode bytes: %w: no terminator in %d bytes", ErrMalformedKey, len(b))
		}
		dst = append(dst, in[:i]...)
		switch in[i+1] {
		case escTerminal:
			return dst, in[i+2:], nil
		case escZero:
			dst = append(dst, 0)
			in = in[i+2:]
		default:
			return dst[:n0], b, fmt.Errorf("decode bytes: %w: invalid escape 0x00 0x%02x at offset %d",
				ErrMalformedKey, in[i+1], len(b)-len(in)+i)
		}
	}
}

// PrefixEnd returns the smallest key greater than every key that starts with prefix: prefix
// with its trailing 0xFF bytes removed and its last byte incremented, in a new slice. It returns
// nil when there is no such key (prefix is empty or all 0xFF), which as an iterator's upper
// bound means unbounded.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return nil
}
