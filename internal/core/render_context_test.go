package core

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Markers are longer than the short secrets they replace: the redacted
// context must still fit the budget, and hold no secret.
func TestRenderContextStaysInBudget(t *testing.T) {
	dir := testkit.New(t, false).Dir
	p, err := workspace.OpenWith(dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("---\nsession: x\ngoal: Rotate the staging credentials\nnext:\n")
	for i := range 120 {
		fmt.Fprintf(&b, "  - DB_PASSWORD=Zq%03dv#k\n", i)
	}
	b.WriteString("---\n")
	src := []byte(b.String())
	if red := p.Redact(string(src)); len(red) <= len(src) || strings.Contains(red, "Zq0") {
		t.Fatalf("precondition: the secrets must be redacted into longer markers:\n%s", red)
	}
	l, err := ledger.Parse("x.md", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{600, 1500, 4000} {
		in := inject.Input{Source: "startup", Name: "x", LedgerPath: filepath.ToSlash(filepath.Join("thoughts", "ledgers", "CONTINUITY_x.md")),
			Ledger: l, Now: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC), Budget: budget}
		raw := inject.Render(in)
		if inject.Length(p.Redact(raw)) <= budget {
			t.Fatalf("budget %d: precondition: redacting the plain render must overflow", budget)
		}
		text := renderContext(p, in)
		if n := inject.Length(text); n > budget {
			t.Errorf("budget %d: %d characters", budget, n)
		}
		if strings.Contains(text, "Zq0") || !strings.Contains(text, "[REDACTED:") {
			t.Errorf("budget %d: not redacted:\n%s", budget, text)
		}
		if !strings.Contains(text, "Goal: Rotate the staging credentials") {
			t.Errorf("budget %d: the goal was cut:\n%s", budget, text)
		}
	}
}
