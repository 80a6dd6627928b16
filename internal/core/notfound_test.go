package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
)

// TestSimilar: a typo, another case, a prefix find the stream meant; an
// unrelated name finds none.
func TestSimilar(t *testing.T) {
	names := []string{"auth-refactor", "billing", "auth", "docs"}
	for _, c := range []struct{ name, want string }{
		{"auth-refactr", "auth-refactor"},
		{"Billing", "billing"},
		{"bill", "billing"},
		{"atuh", "auth"},
		{"zzzzzz", ""},
		{"doc", "docs"},
	} {
		if got := strings.Join(Similar(names, c.name), ","); got != c.want {
			t.Errorf("Similar(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNotFoundError: the error names what exists like the name asked for
// and is ledger.ErrNotFound by errors.Is.
func TestNotFoundError(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_billing.md", "---\nsession: billing\n---\n")
	p := openProject(r)
	err := StreamNotFound(p, "biling")
	if !errors.Is(err, ledger.ErrNotFound) || !strings.Contains(err.Error(), "did you mean billing?") {
		t.Errorf("%v", err)
	}
	if HasStream(p, "biling") || !HasStream(p, "billing") {
		t.Error("HasStream")
	}
}
