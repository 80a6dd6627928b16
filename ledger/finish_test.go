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
