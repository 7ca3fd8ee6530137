package report

import (
	"strings"
	"testing"
)

// TestGoldenFullText holds the full terminal summary (run --summary full, WriteText) of every
// fixture: the brief summary made the default must leave it as it was.
func TestGoldenFullText(t *testing.T) {
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, loadFixture(t, name).Run, testLayouts()); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".full.golden.txt", b.String())
		})
	}
}
