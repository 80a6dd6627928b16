package core

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// TestSearchLines: each line that holds the text is a hit once, with its
// number and its original case, for an ASCII needle and for one whose
// lowered form differs in bytes (İ, Σ); a file with no hit is not parsed,
// so a broken handoff without the text costs nothing and hides nothing.
func TestSearchLines(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/shared/handoffs/auth/2026-11-20T10-00-00Z_manual_aaaaaaaa.md",
		"---\nsession: \"auth\"\ncreated: \"2026-11-20T10:00:00.000Z\"\nauthor: \"Kim\"\n---\n\n## Summary\n\nRefresh TOKEN twice: token\nnone here\nİSTANBUL and ΣΟΦΙΑ\nlast line token\nȺȺ grows when lowered\nⱥ after")
	r.Write("thoughts/shared/handoffs/auth/2026-11-21T10-00-00Z_manual_bbbbbbbb.md", "---\ncreated: [\n---\ntoken in a broken file\n")
	p := openProject(r)
	var got []string
	for _, h := range Search(p, Query{Text: "Token"}) {
		got = append(got, fmt.Sprintf("%d:%s:%s", h.Line, h.Text, h.Author))
	}
	want := "9:Refresh TOKEN twice: token:Kim\n12:last line token:Kim"
	if strings.Join(got, "\n") != want {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	got = nil
	for _, h := range Search(p, Query{Text: "ⱥ"}) {
		got = append(got, fmt.Sprintf("%d:%s", h.Line, h.Text))
	}
	if want := "13:ȺȺ grows when lowered\n14:ⱥ after"; strings.Join(got, "\n") != want {
		t.Errorf("a needle whose text lowers longer:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	for _, needle := range []string{"σοφια", "ΣΟΦ", strings.ToLower("İSTANBUL")} {
		hs := Search(p, Query{Text: needle})
		if len(hs) != 1 || hs[0].Line != 11 {
			t.Errorf("%q: %+v", needle, hs)
		}
	}
}

// BenchmarkSearch is search over 100,000 handoffs in 1,000 streams (issue
// 27: within 2x grep -r over the same files). grep's time over the same
// tree, in the same run, is reported beside it as grep-ns/op.
func BenchmarkSearch(b *testing.B) {
	r := benchTree(b, 1000, 100)
	p := openProject(r)
	grep := func() time.Duration {
		start := time.Now()
		out, err := exec.Command("grep", "-ri", "-c", "refresh endpoint", r.Path("thoughts")).Output()
		if err != nil || len(out) == 0 {
			b.Fatalf("grep: %v", err)
		}
		return time.Since(start)
	}
	var grepTotal time.Duration
	b.ResetTimer()
	for b.Loop() {
		if n := len(Search(p, Query{Text: "Refresh Endpoint"})); n != 100000 {
			b.Fatalf("%d hits", n)
		}
		b.StopTimer()
		grepTotal += grep()
		b.StartTimer()
	}
	b.ReportMetric(float64(grepTotal.Nanoseconds())/float64(b.N), "grep-ns/op")
}

// TestLowerASCII: the word-at-a-time lowering agrees with a byte loop on
// every byte value, at every position of a word.
func TestLowerASCII(t *testing.T) {
	var all []byte
	for i := range 256 {
		all = append(all, byte(i))
	}
	for shift := range 9 {
		src := append(make([]byte, shift), all...)
		got := append([]byte(nil), src...)
		lowerASCII(got)
		for i, c := range src {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 32
			}
			if got[i] != want {
				t.Fatalf("shift %d: byte %#x lowered to %#x, want %#x", shift, c, got[i], want)
			}
		}
	}
}
