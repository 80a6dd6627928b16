package redact

import (
	"strings"
	"testing"
)

// denseFindings is about size bytes made of the corpus's lines, one after
// another, so that nearly every line holds a secret: the worst case for an
// engine whose cost grows with the number of findings. oneline joins them
// with spaces into a single line, where every rule's windows merge into one
// (the shape that was quadratic before: 1 MB took 6.8 s).
func denseFindings(tb testing.TB, size int, oneline bool) string {
	tb.Helper()
	sep := "\n"
	if oneline {
		sep = " "
	}
	var b strings.Builder
	es := loadCorpus(tb)
	for i := 0; b.Len() < size; i++ {
		b.WriteString(strings.ReplaceAll(es[i%len(es)].Text(), "\n", sep))
		b.WriteString(sep)
	}
	return b.String()
}

// BenchmarkRedactDense redacts 100 KB, 1 MB and 4 MB of dense findings, as
// lines and as one line. A linear engine shows the same MB/s at each size
// of one shape (compare within one run: the machine is shared).
func BenchmarkRedactDense(b *testing.B) {
	for _, shape := range []string{"lines", "oneline"} {
		for _, size := range []struct {
			name string
			n    int
		}{{"100KB", 100 << 10}, {"1MB", 1 << 20}, {"4MB", 4 << 20}} {
			s := denseFindings(b, size.n, shape == "oneline")
			b.Run(shape+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				var n int
				for b.Loop() {
					_, fs := Redact(s)
					n = len(fs)
				}
				b.ReportMetric(float64(n), "findings")
			})
		}
	}
}

// BenchmarkBuild: building the built-in rules' tables, which every process
// that redacts anything pays once (a session start does).
func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		if _, err := build(Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
