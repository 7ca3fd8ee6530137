package profile

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The compact form of Distributions (the embedded fb2011.cdf and fb2017.cdf): a gzip stream
// holding the magic "lbcdf" and a version byte, the number of sections, and per section:
//
//	name        uvarint length, then the bytes
//	points      uvarint count n
//	digits      one byte: the percents are integers in units of 10^-digits percent,
//	            or rawDigits when they are stored as float64 bits
//	values      varint of the first value, then n-1 uvarints of (value - previous value - 1)
//	percents    n uvarints: each percent minus the previous one (the first minus 0), in those
//	            units; or, with rawDigits, n little-endian float64 bits of the cumulative
//	            probabilities
//
// Values and percents are stored as two columns because each column compresses well. The
// encoding is lossless: digits is the smallest count for which every decoded cumulative
// probability equals the original float64 exactly (the reference files need 8 and 10).

const (
	encMagic   = "lbcdf\x01"
	maxDigits  = 12 // 100 * 10^12 < 2^53: every scaled percent is an exact float64
	rawDigits  = 255
	maxPoints  = 1 << 24
	maxNameLen = 64
)

var pow10 = func() (p [maxDigits + 1]float64) {
	p[0] = 1
	for i := 1; i <= maxDigits; i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// cumFromScaled is how a stored percent becomes a cumulative probability again: exactly the
// arithmetic ParseDistributions does on the percent it reads (percent / 100).
func cumFromScaled(k uint64, digits int) float64 {
	return float64(k) / pow10[digits] / 100
}

// scaleDigits returns the smallest digits for which every cumulative probability in cum
// survives the round trip through an integer percent exactly, or rawDigits.
func scaleDigits(cum []float64) int {
	for digits := 0; digits <= maxDigits; digits++ {
		ok := true
		for _, c := range cum {
			k := math.Round(c * 100 * pow10[digits])
			if k < 0 || k > 100*pow10[digits] || cumFromScaled(uint64(k), digits) != c {
				ok = false
				break
			}
		}
		if ok {
			return digits
		}
	}
	return rawDigits
}

// Encode writes d in the compact form (see above); DecodeDistributions reads it back exactly.
func (d *Distributions) Encode(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("encode distributions: %w", err)
	}
	bw := bufio.NewWriter(zw)
	var buf [binary.MaxVarintLen64]byte
	uv := func(x uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], x)]) }

	bw.WriteString(encMagic)
	var names []string
	for _, name := range sectionNames {
		if c := *d.section(name); c != nil {
			names = append(names, name)
		}
	}
	uv(uint64(len(names)))
	for _, name := range names {
		if err := encodeSection(bw, name, *d.section(name)); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("encode distributions: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("encode distributions: %w", err)
	}
	return nil
}

// encodeSection writes the section name, CDF c: its name, its number of points, the scale of
// its percentages, its values as differences, then its percentages.
func encodeSection(bw *bufio.Writer, name string, c *CDF) error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("encode distributions: section %s: %w", name, err)
	}
	var buf [binary.MaxVarintLen64]byte
	uv := func(x uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], x)]) }
	uv(uint64(len(name)))
	bw.WriteString(name)
	uv(uint64(len(c.Values)))
	digits := scaleDigits(c.Cum)
	bw.WriteByte(byte(digits))
	bw.Write(buf[:binary.PutVarint(buf[:], c.Values[0])])
	for i := 1; i < len(c.Values); i++ {
		uv(uint64(c.Values[i]-c.Values[i-1]) - 1)
	}
	if digits == rawDigits {
		for _, p := range c.Cum {
			binary.LittleEndian.PutUint64(buf[:8], math.Float64bits(p))
			bw.Write(buf[:8])
		}
		return nil
	}
	var prev uint64
	for _, p := range c.Cum {
		k := uint64(math.Round(p * 100 * pow10[digits]))
		uv(k - prev)
		prev = k
	}
	return nil
}

// DecodeDistributions reads distributions written by Encode.
func DecodeDistributions(r io.Reader) (*Distributions, error) {
	d, err := decode(r)
	if err != nil {
		return nil, fmt.Errorf("decode distributions: %w", err)
	}
	return d, nil
}

// decode reads the stream Encode writes: its magic, the number of sections, and each section.
func decode(r io.Reader) (*Distributions, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	br := bufio.NewReader(zr)
	magic := make([]byte, len(encMagic))
	if _, err := io.ReadFull(br, magic); err != nil {
		return nil, err
	}
	if string(magic) != encMagic {
		return nil, errors.New("not a compact distributions stream (bad magic)")
	}
	nsec, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, err
	}
	if nsec > uint64(len(sectionNames)) {
		return nil, fmt.Errorf("%d sections", nsec)
	}
	d := &Distributions{}
	for range nsec {
		if err := decodeSection(br, d); err != nil {
			return nil, err
		}
	}
	if d.NLinks == nil {
		return nil, errors.New("no nlinks section")
	}
	return d, nil
}

// decodeSection reads one section into its slot of d: its name, its number of points and
// their scale, then the CDF.
func decodeSection(br *bufio.Reader, d *Distributions) error {
	nlen, err := binary.ReadUvarint(br)
	if err != nil {
		return err
	}
	if nlen > maxNameLen {
		return fmt.Errorf("section name of %d bytes", nlen)
	}
	nb := make([]byte, nlen)
	if _, err := io.ReadFull(br, nb); err != nil {
		return err
	}
	name := string(nb)
	slot := d.section(name)
	if slot == nil || *slot != nil {
		return fmt.Errorf("unknown or repeated section %q", name)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return err
	}
	if n == 0 || n > maxPoints {
		return fmt.Errorf("section %s: %d points", name, n)
	}
	db, err := br.ReadByte()
	if err != nil {
		return err
	}
	digits := int(db)
	if digits > maxDigits && digits != rawDigits {
		return fmt.Errorf("section %s: bad scale %d", name, digits)
	}
	c := &CDF{Values: make([]int64, n), Cum: make([]float64, n)}
	if err := decodeValues(br, c.Values); err != nil {
		return err
	}
	if err := decodeCum(br, c.Cum, digits); err != nil {
		return err
	}
	if err := c.validate(); err != nil {
		return fmt.Errorf("section %s: %w", name, err)
	}
	*slot = c
	return nil
}

// decodeValues reads a section's values: the first, then each one's distance from the one
// before, less one.
func decodeValues(br *bufio.Reader, values []int64) error {
	var err error
	if values[0], err = binary.ReadVarint(br); err != nil {
		return err
	}
	for i := 1; i < len(values); i++ {
		delta, err := binary.ReadUvarint(br)
		if err != nil {
			return err
		}
		values[i] = values[i-1] + int64(delta) + 1
	}
	return nil
}

// decodeCum reads a section's cumulative percentages: raw float64s, or the differences of
// their values scaled by 10^digits.
func decodeCum(br *bufio.Reader, cum []float64, digits int) error {
	if digits == rawDigits {
		var b [8]byte
		for i := range cum {
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return err
			}
			cum[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
		}
		return nil
	}
	var k uint64
	for i := range cum {
		delta, err := binary.ReadUvarint(br)
		if err != nil {
			return err
		}
		k += delta
		cum[i] = cumFromScaled(k, digits)
	}
	return nil
}
