package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/ledger"
)

func TestRenderLedgerForTerminal(t *testing.T) {
	l := &ledger.Ledger{Session: "auth", Path: "thoughts/ledgers/CONTINUITY_auth.md", Goal: "JWTs", Now: "Logout",
		Next: []string{"Tests"}, Done: []string{"Refresh"}, Decisions: []ledger.Decision{{Decision: "RS256", Why: "rotation", Date: "2026-11-21"}},
		Body: []byte("# Notes\n\nKeep `this` verbatim.\n\n- a point\n")}
	var b bytes.Buffer
	renderLedger(&b, l)
	out := b.String()
	for _, want := range []string{bold + "auth" + reset, "goal      " + reset + " JWTs", "• Tests", "✓" + reset + " Refresh", "RS256" + dim + " — rotation", bold + "Notes" + reset, "Keep `this` verbatim.", "• a point"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestShowPipedIsTheExactFile(t *testing.T) {
	var out bytes.Buffer
	a := &app{out: &out, getenv: func(string) string { return "" }}
	if a.isTerminal(&out) {
		t.Fatal("a buffer is not a terminal")
	}
}
