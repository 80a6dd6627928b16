package ledger

import (
	"slices"
	"testing"
	"time"
)

func TestFinish(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	tests := []struct {
		name, src string
		items     []string
		wantNow   string
		wantNext  []string
		wantDone  []string
	}{
		{"now promotes the first next", "---\nnow: a\nnext:\n  - b\n  - c\ndone: []\n---\n", []string{"a"}, "b", []string{"c"}, []string{"a"}},
		{"now with next empty is cleared", "---\nnow: a\nnext: []\ndone: [x]\n---\n", []string{"a"}, "", nil, []string{"x", "a"}},
		{"an item that is not now leaves next only", "---\nnow: a\nnext: [b, c]\n---\n", []string{"c"}, "a", []string{"b"}, []string{"c"}},
		{"now and a next item finished together", "---\nnow: a\nnext: [b, c, d]\n---\n", []string{"b", "a"}, "c", []string{"d"}, []string{"b", "a"}},
		{"a flow list with the promoted item twice", "---\nnow: a\nnext: [b, b, c]\n---\n", []string{"a"}, "b", []string{"c"}, []string{"a"}},
		{"already done", "---\nnow: a\nnext: [b]\ndone: [a]\n---\n", []string{"a"}, "b", nil, []string{"a"}},
		{"now in another case and spacing", "---\nnow: Write the changelog\nnext: [Tag the release]\n---\n", []string{"write  the changelog"}, "Tag the release", nil, []string{"Write the changelog"}},
		{"a next item with a final period", "---\nnow: a\nnext: [Tag the release., c]\n---\n", []string{"tag the release"}, "a", []string{"c"}, []string{"Tag the release."}},
		{"a different step stays", "---\nnow: Write the changelog\nnext: []\n---\n", []string{"write the changelogs"}, "Write the changelog", nil, []string{"write the changelogs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Apply([]byte(tt.src), now, Finish(tt.items...))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			l, err := Parse("x.md", out)
			if err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, out)
			}
			if l.Now != tt.wantNow || !slices.Equal(l.Next, tt.wantNext) || !slices.Equal(l.Done, tt.wantDone) {
				t.Errorf("now %q next %q done %q; want now %q next %q done %q\n%s", l.Now, l.Next, l.Done, tt.wantNow, tt.wantNext, tt.wantDone, out)
			}
		})
	}
}

// TestFinishReused: one Finish edit applied to two sources (as a writer
// retrying after an editor's save does) gives each the whole edit.
func TestFinishReused(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	e := Finish("a")
	for i, src := range []string{"---\nnow: a\nnext: [b, c]\n---\n", "---\nnow: a\nnext: [b, c]\n# an editor's save\n---\n"} {
		out, err := Apply([]byte(src), now, e)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Parse("x.md", out)
		if err != nil {
			t.Fatal(err)
		}
		if l.Now != "b" || !slices.Equal(l.Next, []string{"c"}) || !slices.Equal(l.Done, []string{"a"}) {
			t.Errorf("run %d: now %q next %q done %q\n%s", i, l.Now, l.Next, l.Done, out)
		}
	}
}
