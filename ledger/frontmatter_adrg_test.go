package ledger

import (
	"bytes"
	"strings"
	"testing"

	adrg "github.com/adrg/frontmatter"
)

// adrgSplit is how Split found the delimiters before it scanned them
// itself: adrg/frontmatter, once for each closing form, the earliest
// closing winning.
func adrgSplit(src []byte) (FrontBlock, bool) {
	off := 0
	if bytes.HasPrefix(src, []byte(frontBOM)) {
		off = len(frontBOM)
	}
	text := src[off:]
	var b FrontBlock
	found := false
	for _, end := range []string{"---", "..."} {
		var data []byte
		called := false
		format := &adrg.Format{Start: "---", End: end, Unmarshal: func(d []byte, _ any) error {
			data, called = d, true
			return nil
		}}
		rest, err := adrg.Parse(bytes.NewReader(text), nil, format)
		if err != nil || !called {
			continue
		}
		body := len(src) - len(rest)
		closing := bytes.LastIndexByte(src[:body-1], '\n') + 1
		start := closing - len(data)
		c := FrontBlock{Open: bytes.LastIndexByte(src[:start-1], '\n') + 1, Start: start, End: closing, Body: body, Dots: end == "..."}
		if !found || c.Body < b.Body {
			b, found = c, true
		}
	}
	return b, found
}

// splitCases are texts at the edges of the delimiters' rules.
var splitCases = []string{
	"---\na: 1\n---\nbody\n", "---\r\na: 1\r\n---\r\nbody", "---\na: 1\n---", "\ufeff\n  \n---\na: 1\n---\nb",
	"--- \na: 1\n ---\t\nb", "---\na: 1\n--- # no\n---\nb", "---\na: 1\n...\nb", "---\n---\n", "# Title\n---\n", "",
	"\n---\na: 1\n", "---", "---\n", "---\na\n...", "---\na\n...\n---\n", "---\na\n---x\n---\n", "\t---\t\na\n\v---\v\n",
	"---\na: 1\n\u00a0---\u00a0\nb", "\n\n\n", "x\n---\na\n---\n", "---\na\n\n---\n\n", "\ufeff---\na\n---\n", "\ufeff---",
	"---\n...\n---\n", "----\na\n---\n", "---\na\n----\n...\n", " \n\t\n---\na\n---\nb",
}

// TestSplitAsAdrg: Split finds the front matter where adrg/frontmatter did.
func TestSplitAsAdrg(t *testing.T) {
	for _, src := range splitCases {
		checkAsAdrg(t, []byte(src))
	}
}

func checkAsAdrg(t *testing.T, src []byte) {
	t.Helper()
	want, wantFound := adrgSplit(src)
	got, found, _ := SplitFront(src)
	if found != wantFound || found && got != want {
		t.Errorf("Split(%q) = %+v, %v; adrg/frontmatter found %+v, %v", src, got, found, want, wantFound)
	}
}

func FuzzSplitAsAdrg(f *testing.F) {
	for _, src := range splitCases {
		f.Add(src)
	}
	f.Add(strings.Repeat("---\n", 5))
	f.Fuzz(func(t *testing.T, src string) {
		checkAsAdrg(t, []byte(src))
	})
}
