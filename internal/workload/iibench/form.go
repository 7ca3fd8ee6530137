package iibench

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/enginebench/enginebench/internal/engine"
)

// form is how an engine family holds a row, as the query threads seek it and verification reads
// it back. The SQL and KV families hold iibench.py's row: a transactionid, dateandtime in unix
// seconds, the price as a single-precision float of a price in cents, the data column. The
// document family holds the Java client's document (doc.go): an ObjectId _id, dateandtime in
// milliseconds, the price as the unrounded double, no data field. In a Key the price is the bits
// of the float the family stores (rawKey), or of the seek's value (the seeker).
type form struct{ doc bool }

// formOf returns the form of eng's family.
func formOf(eng engine.Engine) form { return form{doc: eng.Family() == engine.FamilyDoc} }

// priceBits returns the bits of r's price as the family stores it: the single-precision float
// of the price in cents, widened; on the document family the unrounded double.
func (f form) priceBits(r *Row) uint64 {
	if f.doc {
		return math.Float64bits(r.PriceRaw)
	}
	return uint64(priceBits(r.Price))
}

// priceValue returns the price whose bits (priceBits) are bits.
func (f form) priceValue(bits uint64) float64 {
	if f.doc {
		return math.Float64frombits(bits)
	}
	return float64(math.Float32frombits(uint32(bits)))
}

// data returns the data column of r as the family stores it: none on the document family.
func (f form) data(r *Row) []byte {
	if f.doc {
		return nil
	}
	return r.Data
}

// dateText writes a dateandtime: unix seconds as the reference writes them, milliseconds as
// the number the document holds.
func (f form) dateText(v int64) string {
	if f.doc {
		return strconv.FormatInt(v, 10)
	}
	return dateText(v)
}

// rawKey returns the entry of row r in index idx as verification reads one back: its columns
// in index order, a price as the bits of the float the family stores (priceBits).
func (f form) rawKey(r *Row, idx int) Key {
	k := r.key(idx)
	for i, c := range indexes[idx].cols {
		if c == colPrice {
			k[i] = int64(f.priceBits(r))
		}
	}
	return k
}

// rowColumns are the columns that verification compares, in diffRow's order.
var rowColumns = []string{"dateandtime", "cashregisterid", "customerid", "productid", "price", "data", "padding"}

// same returns, in rowColumns' order, whether s and r have the same value in each column.
func (f form) same(s *storedRow, r *Row) [7]bool {
	return [...]bool{s.Date == r.DateAndTime, s.CashReg == r.CashRegisterID, s.Customer == r.CustomerID,
		s.Product == r.ProductID, s.Price == f.priceBits(r), bytes.Equal(s.Data, f.data(r)), bytes.Equal(s.Pad, r.Pad)}
}

// sameRow reports whether s holds exactly the values of r, in a document of the right shape.
func (f form) sameRow(s *storedRow, r *Row) bool {
	return s.Shape == "" && s.Date == r.DateAndTime && s.CashReg == r.CashRegisterID && s.Customer == r.CustomerID &&
		s.Product == r.ProductID && s.Price == f.priceBits(r) && bytes.Equal(s.Data, f.data(r)) && bytes.Equal(s.Pad, r.Pad)
}

// sameColumns returns how many of rowColumns s and r have the same value in.
func (f form) sameColumns(s *storedRow, r *Row) int {
	n := 0
	for _, same := range f.same(s, r) {
		if same {
			n++
		}
	}
	return n
}

// diffRow describes the shape of s when it is wrong, then each column in which s differs from r.
func (f form) diffRow(s *storedRow, r *Row) []string {
	var d []string
	if s.Shape != "" {
		d = append(d, s.Shape)
	}
	num := func(name string, got, want int64) {
		if got != want {
			d = append(d, fmt.Sprintf("%s %d, expected %d", name, got, want))
		}
	}
	if s.Date != r.DateAndTime {
		got := "NULL"
		if s.Date != nullTime {
			got = f.dateText(s.Date)
		}
		d = append(d, fmt.Sprintf("dateandtime %s, expected %s", got, f.dateText(r.DateAndTime)))
	}
	num("cashregisterid", s.CashReg, r.CashRegisterID)
	num("customerid", s.Customer, r.CustomerID)
	num("productid", s.Product, r.ProductID)
	if want := f.priceBits(r); s.Price != want {
		d = append(d, fmt.Sprintf("price %g, expected %g", f.priceValue(s.Price), f.priceValue(want)))
	}
	if !bytes.Equal(s.Data, f.data(r)) {
		d = append(d, "data differs")
	}
	if !bytes.Equal(s.Pad, r.Pad) {
		d = append(d, "padding differs")
	}
	return d
}
