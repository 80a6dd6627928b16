package workspace

import (
	"strings"
	"testing"
)

// TestCheckName: a ledger name is a plain slug of at most 100 characters.
func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"auth-refactor", true}, {"a", true}, {"v1.2_x", true}, {strings.Repeat("a", 100), true},
		{"", false}, {strings.Repeat("a", 101), false}, {"-x", false}, {".x", false}, {"_x", false},
		{"a/b", false}, {"a b", false}, {"a..b", false}, {"é", false},
	} {
		if got := CheckName(c.name) == nil; got != c.ok {
			t.Errorf("CheckName(%q) ok = %v, want %v", c.name, got, c.ok)
		}
	}
}
