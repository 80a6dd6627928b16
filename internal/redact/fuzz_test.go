package redact

import (
	"strings"
	"testing"
)

// FuzzRedact: no panic; findings are ordered, disjoint and inside the
// input; every byte outside them is kept; redacting twice equals once.
func FuzzRedact(f *testing.F) {
	for _, e := range loadCorpus(f) {
		f.Add(e.Pre + e.Secret + e.Post)
	}
	f.Add("DB_PASSWORD=\"\" token: ${X} https://a:@b -----BEGIN PRIVATE KEY-----")
	f.Fuzz(func(t *testing.T, s string) {
		out, fs := Redact(s)
		var b strings.Builder
		at := 0
		for _, x := range fs {
			if x.Start < at || x.End <= x.Start || x.End > len(s) || x.Line < 1 || x.Col < 1 {
				t.Fatalf("bad finding %+v (previous end %d, len %d)", x, at, len(s))
			}
			b.WriteString(s[at:x.Start])
			b.WriteString(Marker(x.Kind))
			at = x.End
		}
		b.WriteString(s[at:])
		if b.String() != out {
			t.Fatalf("output is not the input with markers in place of the findings")
		}
		if again, _ := Redact(out); again != out {
			t.Fatalf("second pass changed %q to %q", out, again)
		}
	})
}
