// Command gencdf writes the embedded CDFs of package profile (fb2011.cdf, fb2017.cdf) from
// the reference's Distribution.dat files. It runs from go generate in package profile:
//
//	go run ./internal/gencdf -in2011 PATH -in2017 PATH -out DIR
//
// Each file is parsed with profile.ParseDistributions, written with Distributions.Encode, and
// read back to check that every point survived.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

func main() {
	in2011 := flag.String("in2011", "", "the 2011 Distribution.dat (facebookarchive/linkbench config/Distribution.dat)")
	in2017 := flag.String("in2017", "", "the 2017 Distribution.dat (mdcallag/linkbench config/Distribution.dat)")
	out := flag.String("out", ".", "directory to write fb2011.cdf and fb2017.cdf into")
	flag.Parse()
	if *in2011 == "" || *in2017 == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gencdf -in2011 FILE -in2017 FILE [-out DIR]")
		os.Exit(2)
	}
	for _, f := range []struct{ in, out string }{
		{*in2011, filepath.Join(*out, "fb2011.cdf")},
		{*in2017, filepath.Join(*out, "fb2017.cdf")},
	} {
		if err := convert(f.in, f.out); err != nil {
			fmt.Fprintln(os.Stderr, "gencdf:", err)
			os.Exit(1)
		}
	}
}

func convert(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := profile.ParseDistributions(f, in)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := d.Encode(&buf); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	back, err := profile.DecodeDistributions(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return fmt.Errorf("%s: reading back: %w", in, err)
	}
	if !reflect.DeepEqual(d, back) {
		return fmt.Errorf("%s: the encoding lost figures", in)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s -> %s (%d bytes)\n", in, out, buf.Len())
	return nil
}
