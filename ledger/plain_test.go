package ledger

import (
	"strings"
	"testing"
	"time"
)

// TestSetOnNewLedgerIsPlain: a value set on a new ledger's empty now is
// written as people write it, plain (quoted only where YAML needs it),
// and every other byte stays.
func TestSetOnNewLedgerIsPlain(t *testing.T) {
	at := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	src := New("auth", "Ship it", at)
	for _, c := range []struct{ value, want string }{
		{"Logout endpoint", "now: Logout endpoint\n"},
		{"Tests: unit", "now: \"Tests: unit\"\n"},
	} {
		out, err := SetScalar(src, KeyNow, c.value)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "\n"+c.want) {
			t.Errorf("%q:\n%s", c.value, out)
		}
		before, after, _ := strings.Cut(string(src), "\nnow: \"\"\n")
		if !strings.HasPrefix(string(out), before+"\n") || !strings.HasSuffix(string(out), "\n"+after) {
			t.Errorf("%q: bytes around now changed:\n%s", c.value, out)
		}
	}
	// A person's own style is kept: a quoted value stays quoted.
	out, err := SetScalar([]byte("---\nsession: a\nnow: \"Old\"\n---\n"), KeyNow, "New")
	if err != nil || string(out) != "---\nsession: a\nnow: \"New\"\n---\n" {
		t.Errorf("%v\n%s", err, out)
	}
}
