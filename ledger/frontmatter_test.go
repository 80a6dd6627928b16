package ledger

import (
	"errors"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, src  string
		found      bool
		err        error
		yaml, body string
		dots       bool
		open       int
	}{
		{name: "plain", src: "---\na: 1\n---\n# Body\n", found: true, yaml: "a: 1\n", body: "# Body\n"},
		{name: "crlf", src: "---\r\na: 1\r\n---\r\nbody", found: true, yaml: "a: 1\r\n", body: "body"},
		{name: "closing at end of file", src: "---\na: 1\n---", found: true, yaml: "a: 1\n", body: ""},
		{name: "blank lines and bom first", src: "\ufeff\n  \n---\na: 1\n---\nb", found: true, yaml: "a: 1\n", body: "b", open: 7},
		{name: "delimiters with spaces", src: "--- \na: 1\n ---\t\nb", found: true, yaml: "a: 1\n", body: "b"},
		{name: "a comment is not a delimiter", src: "---\na: 1\n--- # no\n---\nb", found: true, yaml: "a: 1\n--- # no\n", body: "b"},
		{name: "dots close", src: "---\na: 1\n...\nb", found: true, yaml: "a: 1\n", body: "b", dots: true},
		{name: "empty", src: "---\n---\n", found: true, yaml: "", body: ""},
		{name: "no front matter", src: "# Title\n---\n"},
		{name: "nothing", src: ""},
		{name: "not closed", src: "\n---\na: 1\n", err: ErrFrontNotClosed, open: 1},
		{name: "opening line alone", src: "---", err: ErrFrontNotClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			b, found, err := SplitFront(src)
			if found != tt.found || !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("Split = %+v, %v, %v; want found %v, err %v", b, found, err, tt.found, tt.err)
			}
			if b.Open != tt.open {
				t.Errorf("Open = %d, want %d", b.Open, tt.open)
			}
			if !found {
				return
			}
			if got := string(b.YAML(src)); got != tt.yaml {
				t.Errorf("YAML = %q, want %q", got, tt.yaml)
			}
			if got := string(src[b.Body:]); got != tt.body {
				t.Errorf("body = %q, want %q", got, tt.body)
			}
			if b.Dots != tt.dots {
				t.Errorf("Dots = %v, want %v", b.Dots, tt.dots)
			}
		})
	}
}
