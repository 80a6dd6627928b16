package inject

import (
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

// TestRenderRecovered pins the lines that tell the model and the person
// about earlier sessions recovered at this start (one written, one that
// waits), and shows they survive the smallest budget whole.
func TestRenderRecovered(t *testing.T) {
	l := goldenLedger(t)
	in := Input{Source: "startup", Name: "auth", LedgerPath: "thoughts/ledgers/CONTINUITY_auth.md", Ledger: l, Notes: LedgerNotes(l),
		Handoff: goldenHandoff(), HandoffPath: "thoughts/shared/handoffs/auth/2026-11-22T14-05-09Z_recovered_930cbd59.md",
		Now: now, Host: "claude", Recovered: []Recovery{
			{Session: "930cbd59-1", Why: "its client process is gone", Path: "thoughts/shared/handoffs/auth/2026-11-22T14-05-09Z_recovered_930cbd59.md"},
			{Session: "77aa01-2", Why: "its client process is gone", Dir: "thoughts/shared/handoffs/auth/", When: "at this session's next turn end"},
		}}
	out := Render(in) + "\n-- message --\n" + Message(in)
	testkit.Check(t, "recovered.txt", []byte(out+"\n"))
	in.Budget = 1500
	small := Render(in)
	for _, want := range []string{"recovered from its transcript: thoughts/shared/handoffs/auth/2026-11-22T14-05-09Z_recovered_930cbd59.md.",
		"its handoff will be recovered from its transcript into thoughts/shared/handoffs/auth/ at this session's next turn end."} {
		if !strings.Contains(small, want) {
			t.Errorf("budget 1500: missing %q in\n%s", want, small)
		}
	}
	if !strings.Contains(small, "Goal: Replace session cookies") {
		t.Errorf("budget 1500: the goal was cut for the recovery lines:\n%s", small)
	}
	if Length(small) > 1500 {
		t.Errorf("budget 1500: %d characters", Length(small))
	}
}
