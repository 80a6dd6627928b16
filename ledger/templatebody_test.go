package ledger

import (
	"testing"
	"time"
)

// The template body read from the template's text is the body of a ledger
// New renders, and a new ledger's body is recognised as the template's.
func TestTemplateBodyAsRendered(t *testing.T) {
	rendered, ok := bodyOf(New("x", "a goal", time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)))
	if !ok || rendered == "" {
		t.Fatalf("no body in a new ledger (%v)", ok)
	}
	if templateBody() != rendered {
		t.Fatalf("templateBody() = %q, a new ledger's body = %q", templateBody(), rendered)
	}
	src := New("y", "", time.Time{})
	_, _, body, _, _ := splitFrontMatter(src)
	if !IsTemplateBody(src[body:]) || IsTemplateBody(append(src[body:len(src):len(src)], "\nnotes"...)) {
		t.Error("IsTemplateBody does not tell a new ledger's body from a written one")
	}
}
