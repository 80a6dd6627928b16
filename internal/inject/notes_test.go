package inject

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/compat"

	"github.com/continuity-md/continuity/ledger"
)

// longLedger is a ledger whose notes run phase after phase, the finished
// ones first, each far longer than a line.
func longLedger(t *testing.T, format string) *ledger.Ledger {
	t.Helper()
	var b strings.Builder
	switch format {
	case "front":
		b.WriteString("---\nsession: pipeline\ngoal: Move the nightly jobs to the new scheduler\nnow: Phase 6\nnext: []\nupdated: 2026-11-20T10:00:00Z\n---\n\n# Notes\n\n")
	case "sections":
		b.WriteString("# Session: pipeline\nUpdated: 2026-11-20T10:00:00Z\n\n## Goal\nMove the nightly jobs to the new scheduler\n\n")
	}
	for i := 1; i <= 8; i++ {
		box, mark := "[ ]", ""
		switch {
		case i <= 5:
			box, mark = "[x]", " ✅"
		case i == 6:
			mark = " (in progress)"
		}
		fmt.Fprintf(&b, "## Phase %d: job group %d%s\n", i, i, mark)
		for j := 1; j <= 6; j++ {
			fmt.Fprintf(&b, "- %s Step %d.%d: %s\n", box, i, j, strings.Repeat("move and verify one job ", 6))
		}
		fmt.Fprintf(&b, "```\nrun phase-%d --dry\n```\n\n", i)
	}
	src := b.String()
	path := "thoughts/ledgers/CONTINUITY_CLAUDE-pipeline.md"
	l, err := compat.ParseLedger(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestNotesKeepCurrentPhases: over the budget, the injected notes keep the
// phase in progress and the next one, leave out the finished ones from the
// oldest, say so and where they are, and stay within the budget.
func TestNotesKeepCurrentPhases(t *testing.T) {
	for _, format := range []string{"front", "sections"} {
		t.Run(format, func(t *testing.T) {
			l := longLedger(t, format)
			if Length(string(compat.Notes(l))) < 8000 {
				t.Fatalf("the notes are too short to need a cut")
			}
			for _, budget := range []int{2500, 4000, 6000} {
				out := Render(Input{Name: "pipeline", LedgerPath: "thoughts/ledgers/CONTINUITY_CLAUDE-pipeline.md", Ledger: l, Notes: LedgerNotes(l),
					Now: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Budget: budget})
				if n := Length(out); n > budget {
					t.Errorf("budget %d: %d characters", budget, n)
				}
				for _, want := range []string{"Phase 6: job group 6 (in progress)", "Step 6.6", "Phase 7: job group 7", "run phase-7 --dry"} {
					if budget < 4000 && want == "run phase-7 --dry" {
						want = "(cut here)" // the next phase is cut, not dropped
					}
					if !strings.Contains(out, want) {
						t.Errorf("budget %d: %q left out:\n%s", budget, want, out)
					}
				}
				if strings.Contains(out, "Step 1.1") {
					t.Errorf("budget %d: the oldest phase was kept over the current ones", budget)
				}
				if !strings.Contains(out, "left out to stay within the budget: «Phase 1: job group 1 ✅»") ||
					!strings.Contains(out, "they are in thoughts/ledgers/CONTINUITY_CLAUDE-pipeline.md]") {
					t.Errorf("budget %d: no line naming what was left out and where:\n%s", budget, out)
				}
				if i, j := strings.Index(out, "Phase 6:"), strings.Index(out, "Phase 7:"); i > j {
					t.Errorf("budget %d: phases out of order", budget)
				}
			}
		})
	}
}

// TestNotesAllPhasesDone: when every phase is finished, the latest stays.
func TestNotesAllPhasesDone(t *testing.T) {
	var b strings.Builder
	// The front matter keeps done: the phases in the body are notes.
	b.WriteString("---\nsession: x\ngoal: g\ndone: [setup]\nupdated: 2026-11-20T10:00:00Z\n---\n\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "## Phase %d\n- [x] %s\n\n", i, strings.Repeat(fmt.Sprintf("work of phase %d ", i), 30))
	}
	l, err := compat.ParseLedger("thoughts/ledgers/CONTINUITY_x.md", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := notes(LedgerNotes(l), 1500, "thoughts/ledgers/CONTINUITY_x.md", measure(agent.Runes))
	if Length(got) > 1500 || !strings.Contains(got, "work of phase 6") || strings.Contains(got, "work of phase 1 ") {
		t.Errorf("notes (%d):\n%s", Length(got), got)
	}
}

// TestNotesWithoutFields: a section-style ledger's notes do not repeat what
// its fields hold.
func TestNotesWithoutFields(t *testing.T) {
	src := "# Session: x\n\n## Goal\nShip it\n\n## Next\n- [ ] Docs\n\n## Notes\nThe staging keys are in the vault.\n"
	l, err := compat.ParseLedger("thoughts/ledgers/CONTINUITY_CLAUDE-x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := notes(LedgerNotes(l), 1000, l.Path, measure(agent.Runes)); got != "## Notes\nThe staging keys are in the vault." {
		t.Errorf("notes = %q", got)
	}
}
