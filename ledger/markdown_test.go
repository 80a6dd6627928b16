package ledger

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
)

// depth is the deepest block nesting of a tree.
func depth(n ast.Node) int {
	d := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		d = max(d, depth(c))
	}
	return d + 1
}

// TestBoundKeepsLength: whatever the nesting (quotes, bullets, numbers,
// indentation, brackets), the parsed tree is at most Max containers deep
// (plus the document, a list's item and a paragraph), the bounded text has
// src's length, and text nested within Max is left as it is.
func TestBoundKeepsLength(t *testing.T) {
	var indented strings.Builder
	for i := range 2000 {
		indented.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	for _, src := range []string{
		strings.Repeat("> ", 100000) + "deep\n",
		strings.Repeat("- ", 100000) + "deep\n",
		strings.Repeat("1. ", 100000) + "deep\n",
		strings.Repeat("> - ", 50000) + "deep\n",
		indented.String(),
		strings.Repeat("[", 100000) + "x" + strings.Repeat("]", 100000) + "\n",
	} {
		b := boundMarkdown([]byte(src))
		if len(b) != len(src) {
			t.Errorf("length %d, want %d", len(b), len(src))
		}
		if d := depth(ParseMarkdown([]byte(src))); d > 2*Max+3 {
			t.Errorf("%.12q...: tree %d deep", src, d)
		}
	}
	shallow := []byte("# H\n\n" + strings.Repeat("> ", Max-1) + "- [a](b) *c*\n  - d\n")
	if b := boundMarkdown(shallow); !bytes.Equal(b, shallow) || &b[0] != &shallow[0] {
		t.Errorf("shallow text changed: %q", b)
	}
}
