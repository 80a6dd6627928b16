package redact

import (
	"strings"
	"testing"
)

// New without a project's rules is the package's redactor, built once; with
// them it is a redactor of its own that still finds the built-in kinds.
func TestNewSharesBuiltin(t *testing.T) {
	a, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(Config{})
	if a != b || a != std() {
		t.Fatal("New(Config{}) built a new redactor")
	}
	c, err := New(Config{Extra: []Rule{{Name: "acme", Pattern: `acme_[0-9]{8}`, Keywords: []string{"acme_"}}}})
	if err != nil || c == a {
		t.Fatalf("New with a rule: %p, %v", c, err)
	}
	text := "key acme_12345678 and ghp_" + strings.Repeat("a1B2", 9)
	out := c.String(text)
	if !strings.Contains(out, Marker("acme")) || !strings.Contains(out, Marker("github-token")) {
		t.Fatalf("redacted %q", out)
	}
	if out := a.String(text); strings.Contains(out, Marker("acme")) || !strings.Contains(out, Marker("github-token")) {
		t.Fatalf("the built-in redactor gave %q", out)
	}
}

// The keyword table finds every keyword, whatever its first two bytes and
// their case: each keyword, upper-cased, alone in a text, is a hit.
func TestKeywordTableFindsEvery(t *testing.T) {
	r := std()
	for _, k := range r.kws {
		if len(k) < 2 {
			continue
		}
		f := r.first[fold[k[0]]]
		at := int(f)<<8 | int(fold[k[1]])
		if f == 0 || r.pairs[at] == 0 {
			t.Fatalf("keyword %q not in the table", k)
		}
		found := false
		for _, s := range r.starts[r.pairs[at]-1] {
			if s == k {
				found = true
			}
		}
		if !found {
			t.Errorf("keyword %q not listed under its pair", k)
		}
	}
}
