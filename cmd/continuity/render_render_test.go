package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/ledger"
)

func TestRenderLedgerForTerminal(t *testing.T) {
	l := &ledger.Ledger{Stream: "auth", Path: "thoughts/ledgers/CONTINUITY_auth.md", Goal: "JWTs", Now: "Logout",
		Next: []string{"Tests"}, Done: []string{"Refresh"}, Decisions: []ledger.Decision{{Decision: "RS256", Why: "rotation", Date: "2026-11-21"}},
		Body: []byte("# Notes\n\nKeep `this` verbatim.\n\n- a point\n")}
	var b bytes.Buffer
	Ledger(&b, l)
	out := b.String()
	for _, want := range []string{bold + "auth" + reset, "goal      " + reset + " JWTs", "• Tests", "✓" + reset + " Refresh", "RS256" + dim + " — rotation", bold + "Notes" + reset, "Keep `this` verbatim.", "• a point"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestHandoffLine(t *testing.T) {
	var b bytes.Buffer
	HandoffLine(&b, "thoughts/shared/handoffs/auth/x.md", "handed off at 153k tokens")
	if want := "\n" + cyan + "handoff   " + reset + " thoughts/shared/handoffs/auth/x.md" + dim + " (handed off at 153k tokens)" + reset + "\n"; b.String() != want {
		t.Errorf("HandoffLine = %q, want %q", b.String(), want)
	}
	b.Reset()
	HandoffLine(&b, "x.md", "")
	if strings.Contains(b.String(), "(") {
		t.Errorf("no size: %q", b.String())
	}
}
