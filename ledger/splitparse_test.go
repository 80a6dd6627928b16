package ledger

import (
	"fmt"
	"math/rand"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sameNodes reports where two node trees differ in what a ledger reads of
// them (kind, style, tag, value, anchor, alias, position), or "".
func sameNodes(a, b *yaml.Node, at string) string {
	switch {
	case a.Kind != b.Kind, a.Style != b.Style, a.Tag != b.Tag, a.Value != b.Value, a.Anchor != b.Anchor:
		return fmt.Sprintf("%s: %v %v %q %q %q, want %v %v %q %q %q", at, a.Kind, a.Style, a.Tag, a.Value, a.Anchor, b.Kind, b.Style, b.Tag, b.Value, b.Anchor)
	case a.Line != b.Line || a.Column != b.Column:
		return fmt.Sprintf("%s: at %d:%d, want %d:%d", at, a.Line, a.Column, b.Line, b.Column)
	case (a.Alias == nil) != (b.Alias == nil):
		return at + ": alias differs"
	case a.Alias != nil && (a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column):
		return at + ": alias to another node"
	case len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %d children, want %d", at, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := sameNodes(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// piecesAgree checks parseInPieces against one parse of the whole: when it
// gives a tree, the whole parses, to the same tree (comments aside). It
// returns whether the pieces gave one.
func piecesAgree(t *testing.T, yml []byte, n int) bool {
	t.Helper()
	got, ok := parseInPieces(yml, n)
	if !ok {
		return false
	}
	var want yaml.Node
	if err := yaml.Unmarshal(yml, &want); err != nil {
		t.Fatalf("pieces parsed what does not parse whole (%v):\n%q", err, yml)
	}
	if d := sameNodes(&got, &want, ""); d != "" {
		t.Fatalf("pieces differ from the whole: %s\n%q", d, yml)
	}
	return true
}

// TestParseInPiecesAgrees parses generated ledgers, as they are and with
// random splices (most of which break them), in 2 to 4 pieces and whole.
func TestParseInPiecesAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	n, pieced, items, refused := 20000, 0, 0, 0
	if testing.Short() {
		n = 3000
	}
	for i := 0; i < n; i++ {
		src := genLedger(r)
		d, err := parseFront("", src)
		yml := src
		if err == nil {
			if r.Intn(2) == 0 {
				c := randomSplice(r, d)
				src = append(append(append([]byte(nil), src[:c.start]...), c.text...), src[c.end:]...)
				d.fmEnd += len(c.text) - (c.end - c.start)
			}
			yml = src[d.fmStart:d.fmEnd]
		}
		k := 2 + r.Intn(3)
		if piecesAgree(t, yml, k) {
			pieced++
			for _, c := range pieceCuts(yml, k) {
				if c.item {
					items++
					break
				}
			}
		} else if yaml.Unmarshal(yml, new(yaml.Node)) != nil {
			refused++
		}
	}
	t.Logf("%d front matters: %d parsed in pieces (%d cut inside a list), %d that do not parse refused", n, pieced, items, refused)
	if pieced < n/3 || items < n/10 || refused < n/20 {
		t.Fatalf("too little tested: %d in pieces, %d cut in a list, %d refused of %d", pieced, items, refused, n)
	}
}

// TestParseLongLedgerInPieces shows the bench's ledger is parsed in pieces,
// to the tree a parse of the whole gives.
func TestParseLongLedgerInPieces(t *testing.T) {
	src := bigLedger(2000)
	d, err := parseFront("", src)
	if err != nil {
		t.Fatal(err)
	}
	yml := src[d.fmStart:d.fmEnd]
	if !piecesAgree(t, yml, 2) {
		t.Fatal("the long ledger was not parsed in pieces")
	}
	// Cut inside the first list, near the middle, not at the second key.
	if c := pieceCuts(yml, 2)[1]; !c.item || c.at > len(yml)*6/10 {
		t.Errorf("cut %+v of %d bytes: want an item near the middle", c, len(yml))
	}
}

// FuzzParseInPieces is TestParseInPiecesAgrees on any front matter: the
// goldens' and generated ones as seeds, cut in 2 to 4 pieces.
func FuzzParseInPieces(f *testing.F) {
	for _, in := range editInputs(f) {
		if d, err := parseFront("", in); err == nil {
			f.Add(d.src[d.fmStart:d.fmEnd], uint8(0))
		}
	}
	r := rand.New(rand.NewSource(8))
	for i := 0; i < 20; i++ {
		if d, err := parseFront("", genLedger(r)); err == nil {
			f.Add(d.src[d.fmStart:d.fmEnd], uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, yml []byte, n uint8) {
		piecesAgree(t, yml, 2+int(n%3))
	})
}
