package redact

import (
	"strings"
	"testing"
)

// denseFindings is about size bytes made of the corpus's lines, one after
// another, so that nearly every line holds a secret: the worst case for an
// engine whose cost grows with the number of findings.
func denseFindings(tb testing.TB, size int) string {
	tb.Helper()
	var b strings.Builder
	es := loadCorpus(tb)
	for i := 0; b.Len() < size; i++ {
		b.WriteString(es[i%len(es)].Text())
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkRedactDense redacts 100 KB, 1 MB and 4 MB of dense findings. A
// linear engine shows the same ns per byte at each size (compare the MB/s
// columns of one run).
func BenchmarkRedactDense(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"100KB", 100 << 10}, {"1MB", 1 << 20}, {"4MB", 4 << 20}} {
		s := denseFindings(b, size.n)
		b.Run(size.name, func(b *testing.B) {
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
