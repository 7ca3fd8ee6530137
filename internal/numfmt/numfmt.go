// Package numfmt formats the numbers people read in enginebench's output: the live progress,
// the summary and report tables, the charts' labels and the sizes in messages. Each form has
// one definition here, so they never disagree. No form uses exponent notation, and a value
// that rounds up to the next unit is shown in that unit (999,600 is "1M", 999.6 µs is "1ms").
package numfmt

import (
	"bytes"
	"math"
	"strconv"
)

// Num formats a rate or a count readably: whole numbers from 100 up, three significant digits
// below, trailing zeros dropped: 123457, 98.8, 1.5, 0.000123.
func Num(v float64) string {
	var buf [32]byte
	return string(appendNum(buf[:0], v))
}

// Count formats a number compactly with a k, M or G suffix from 10,000 up: 950, 9999, 12.3k,
// 4.56M, 2G.
func Count(v float64) string {
	var buf [32]byte
	return string(appendUnits(buf[:0], v, countUnits[:]))
}

// Duration formats microseconds with a readable unit: 850us, 12.3ms, 1.2s.
func Duration(us float64) string {
	var buf [32]byte
	return string(appendUnits(buf[:0], us, durationUnits[:]))
}

// Bytes formats a size in bytes with a binary unit, three significant digits: 512 B, 1.5 KiB,
// 12.3 MiB, 2 GiB.
func Bytes(n float64) string {
	var buf [32]byte
	return string(appendUnits(buf[:0], n, byteUnits[:]))
}

// Seconds formats seconds as Duration does: 420ms, 12.3s.
func Seconds(s float64) string { return Duration(s * 1e6) }

// unit is one step of a scale: the values from its threshold up, divided by its divisor and
// followed by its suffix.
type unit struct {
	threshold, divisor float64
	suffix             string
}

// The scales, smallest unit first; read only.
var (
	countUnits    = [...]unit{{0, 1, ""}, {1e4, 1e3, "k"}, {1e6, 1e6, "M"}, {1e9, 1e9, "G"}}
	durationUnits = [...]unit{{0, 1, "us"}, {1e3, 1e3, "ms"}, {1e6, 1e6, "s"}}
	byteUnits     = [...]unit{{0, 1, " B"}, {1 << 10, 1 << 10, " KiB"}, {1 << 20, 1 << 20, " MiB"},
		{1 << 30, 1 << 30, " GiB"}, {1 << 40, 1 << 40, " TiB"}, {1 << 50, 1 << 50, " PiB"}}
)

// appendUnits appends v in the largest unit whose threshold it reaches, moving up a unit when
// the rounded figure reaches the next threshold. NaN and infinities have no unit.
func appendUnits(dst []byte, v float64, us []unit) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return appendNum(dst, v) // no unit fits
	}
	i := 0
	for i+1 < len(us) && math.Abs(v) >= us[i+1].threshold {
		i++
	}
	start := len(dst)
	for ; ; i++ {
		dst = appendNum(dst[:start], v/us[i].divisor)
		if i+1 == len(us) || math.Abs(parse(dst[start:]))*us[i].divisor < us[i+1].threshold {
			return append(dst, us[i].suffix...)
		}
	}
}

// parse reads back a number appendNum wrote.
func parse(b []byte) float64 {
	f, _ := strconv.ParseFloat(string(b), 64) // no allocation: the conversion does not escape
	return f
}

// appendNum appends v as Num formats it.
func appendNum(dst []byte, v float64) []byte {
	a := math.Abs(v)
	switch {
	case a == 0:
		return append(dst, '0')
	case a >= 100 || math.IsNaN(v):
		return strconv.AppendFloat(dst, v, 'f', 0, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, v, 'f', min(9, 2-int(math.Floor(math.Log10(a)))), 64)
	if bytes.IndexByte(dst[start:], '.') >= 0 {
		dst = bytes.TrimRight(dst, "0")
		dst = bytes.TrimSuffix(dst, []byte("."))
	}
	return dst
}
