package handoff

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// FuzzParse checks that any bytes parse or fail cleanly, and that a
// rendered handoff always parses back with its sections.
func FuzzParse(f *testing.F) {
	testkit.AddFiles(f, filepath.Join("testdata", "golden", "*.md"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse(src)
		if err != nil {
			return
		}
		if len(p.Order) != len(p.Sections) {
			t.Errorf("order %q, %d sections", p.Order, len(p.Sections))
		}
		for _, s := range p.Order {
			if _, ok := p.Sections[s]; !ok {
				t.Errorf("section %q listed but missing", s)
			}
		}
		// Whatever it read renders into a handoff that reads back the same.
		h := &Handoff{Meta: p.Meta, Summary: p.Sections["Summary"]}
		out, err := Render(h, "")
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(out)
		if err != nil {
			t.Fatalf("rendered handoff does not parse: %v\n%s", err, out)
		}
		want := h.Meta
		want.Created = want.Created.Truncate(time.Second) // rendered to the second
		if q.Meta != want {
			t.Errorf("meta changed:\n%+v\n%+v", q.Meta, h.Meta)
		}
	})
}
