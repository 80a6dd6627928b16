package inject

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/ledger"
)

var now = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)

func bigLedger(n int) *ledger.Ledger {
	l := &ledger.Ledger{
		Stream: "auth", Goal: "Replace session cookies with JWTs", Now: "Logout endpoint",
		Updated: "2026-11-22T14:05:09Z",
	}
	for i := 0; i < n; i++ {
		l.Next = append(l.Next, fmt.Sprintf("next item %d %s", i, strings.Repeat("n", 60)))
		l.Done = append(l.Done, fmt.Sprintf("done item %d %s", i, strings.Repeat("d", 60)))
		l.Files = append(l.Files, fmt.Sprintf("src/pkg%d/file.go", i))
		l.Questions = append(l.Questions, fmt.Sprintf("question %d?", i))
		l.Decisions = append(l.Decisions, ledger.Decision{Decision: fmt.Sprintf("decision %d", i), Why: "because", Date: "2026-11-21"})
	}
	l.Body = []byte("# Notes\n" + strings.Repeat("A long note line about the work.\n", n*10))
	return l
}

func input(l *ledger.Ledger, source string, budget int) Input {
	return Input{
		Source: source, Name: "auth", LedgerPath: "thoughts/ledgers/CONTINUITY_auth.md", Ledger: l, Notes: LedgerNotes(l),
		Handoff: &handoff.Parsed{
			Meta:     handoff.Meta{Event: "pre-compact", Created: now.Add(-3 * time.Hour), Author: "Kim", Branch: "feature/auth"},
			Sections: map[string]string{"Summary": "Wrote the refresh endpoint; tests fail for lack of go.mod."},
		},
		HandoffPath: "thoughts/shared/handoffs/auth/2026-11-22T11-05-09Z_pre-compact_930cbd59.md",
		Now:         now, Budget: budget,
	}
}

func TestRenderStaysInBudget(t *testing.T) {
	for _, n := range []int{0, 5, 50, 500} {
		for _, budget := range []int{1500, 4000, 9000, 9900, 20000} {
			out := Render(input(bigLedger(n), "startup", budget))
			limit := budget
			if limit > MaxBudget {
				limit = MaxBudget
			}
			if got := Length(out); got > limit {
				t.Errorf("n=%d budget=%d: %d characters", n, budget, got)
			}
			for _, want := range []string{"Goal: Replace session cookies with JWTs", "Now: Logout endpoint", "Full files: thoughts/ledgers/CONTINUITY_auth.md", "continuity done TEXT"} {
				if !strings.Contains(out, want) {
					t.Errorf("n=%d budget=%d: missing %q", n, budget, want)
				}
			}
		}
	}
}

func TestRenderCutsByPriority(t *testing.T) {
	out := Render(input(bigLedger(500), "startup", 4000))
	if !strings.Contains(out, "next item 0 ") {
		t.Error("the first next item was cut before lower priorities")
	}
	if !strings.Contains(out, "more in the ledger") {
		t.Error("a cut list does not say where the rest is")
	}
	if strings.Contains(out, "A long note line") {
		t.Error("notes (lowest priority) survived while next was cut")
	}
	// With room for everything, nothing is cut.
	small := Render(input(bigLedger(2), "startup", 9000))
	for _, want := range []string{"Decisions:\n- decision 0 (why: because) [2026-11-21]", "Open questions:", "Files:\n- src/pkg0/file.go", "Done:", "Notes:\n  # Notes", "Latest handoff (pre-compact by Kim, 3 h ago on feature/auth): Wrote the refresh endpoint"} {
		if !strings.Contains(small, want) {
			t.Errorf("missing %q in\n%s", want, small)
		}
	}
}

func TestRenderDoneKeepsTheLatest(t *testing.T) {
	l := bigLedger(0)
	for i := 0; i < 300; i++ {
		l.Done = append(l.Done, fmt.Sprintf("done %03d", i))
	}
	out := Render(input(l, "startup", 2000))
	if !strings.Contains(out, "done 299") || strings.Contains(out, "done 000") {
		t.Errorf("done should keep its most recent items:\n%s", out)
	}
}

func TestRenderBySource(t *testing.T) {
	l := bigLedger(3)
	for _, src := range []string{"resume", "fork"} {
		out := Render(input(l, src, 9000))
		for _, absent := range []string{"Decisions:", "Notes:", "Done:", "Latest handoff"} {
			if strings.Contains(out, absent) {
				t.Errorf("%s: should be a short refresh, has %q", src, absent)
			}
		}
		if !strings.Contains(out, "Next:\n- next item 0") {
			t.Errorf("%s: next missing", src)
		}
	}
	for _, src := range []string{"startup", "clear", "compact"} {
		if out := Render(input(l, src, 9000)); !strings.Contains(out, "Latest handoff") {
			t.Errorf("%s: the handoff is missing", src)
		}
	}
}

func TestRenderBrokenLedger(t *testing.T) {
	in := input(nil, "startup", 9000)
	in.LedgerRaw = []byte("---\ngoal: [unclosed\n---\n")
	in.LedgerProblem = "thoughts/ledgers/CONTINUITY_auth.md:2: did not find expected ',' or ']'"
	out := Render(in)
	if !strings.Contains(out, in.LedgerProblem) || !strings.Contains(out, "goal: [unclosed") {
		t.Errorf("a broken ledger should be named and shown:\n%s", out)
	}
}

func TestLengthCountsUTF16(t *testing.T) {
	if got := Length("aé😀"); got != 4 {
		t.Errorf("Length = %d, want 4", got)
	}
	s := strings.Repeat("😀", 6000)
	in := input(bigLedger(1), "startup", 9000)
	in.Ledger.Goal = s
	if got := Length(Render(in)); got > 9000 {
		t.Errorf("astral characters overflow the budget: %d", got)
	}
}

func TestRenderMarksStaleHandoffs(t *testing.T) {
	in := input(bigLedger(1), "startup", 9000)
	in.StaleAfter = 2 * time.Hour
	if out := Render(in); !strings.Contains(out, "Latest handoff, stale (pre-compact by Kim, 3 h ago on feature/auth)") {
		t.Errorf("a 3 h old handoff past a 2 h limit should be marked stale:\n%s", out)
	}
	in.StaleAfter = 24 * time.Hour
	if out := Render(in); strings.Contains(out, "stale") {
		t.Errorf("a 3 h old handoff within a day is not stale:\n%s", out)
	}
	in.Policy = "short"
	if out := Render(in); strings.Contains(out, "Latest handoff") {
		t.Errorf("policy short overrides the source:\n%s", out)
	}
}

// A new ledger's placeholder notes are not injected; notes someone wrote are.
func TestTemplateNotesNotInjected(t *testing.T) {
	src := ledger.New("x", "Ship the auth refactor", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	l, err := ledger.Parse("x.md", src)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Source: "startup", Name: "x", LedgerPath: "thoughts/ledgers/CONTINUITY_x.md", Ledger: l, Notes: LedgerNotes(l), Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	if out := Render(in); strings.Contains(out, "Notes:") || strings.Contains(out, "Free notes") {
		t.Errorf("placeholder notes injected:\n%s", out)
	}
	l2, err := ledger.Parse("x.md", append(src, []byte("\nThe staging DB is read-only on Fridays.\n")...))
	if err != nil {
		t.Fatal(err)
	}
	in.Ledger, in.Notes = l2, LedgerNotes(l2)
	if out := Render(in); !strings.Contains(out, "read-only on Fridays") {
		t.Errorf("written notes not injected:\n%s", out)
	}
}

// A handoff dated ahead of now is not called recent.
func TestBylineFuture(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	m := handoff.Meta{Event: "pre-compact", Author: "Kim", Created: now.Add(48 * time.Hour)}
	if got := Byline(m, now); !strings.Contains(got, "in the future") || strings.Contains(got, "ago") {
		t.Errorf("Byline = %q", got)
	}
	m.Created = now.Add(-3 * time.Hour)
	if got := Byline(m, now); !strings.Contains(got, "3 h ago") {
		t.Errorf("Byline = %q", got)
	}
}

// TestRenderHandoffState: the model is given the handoff's state (task,
// plan, checks, commits) and its open errors, not only its summary; the
// resolved ones are not repeated.
func TestRenderHandoffState(t *testing.T) {
	in := input(bigLedger(2), "startup", 9000)
	in.Handoff.Sections["State"] = "- Task: Logout endpoint\n- Plan:\n  - [x] Refresh\n  - [ ] Logout (in progress)\n- Checks:\n  - `go test ./...`: failed (TestLogout)\n- Commits:\n  - `4f3c2b1` Add refresh"
	in.Handoff.Sections["Errors"] = "- `go vet ./...`: exit 1: x (resolved: passed later)\n- `go test ./...`: exit 1: --- FAIL: TestLogout (0.00s)"
	in.Handoff.State, in.Handoff.Work = handoff.StateFromSections(in.Handoff.Sections)
	out := Render(in)
	for _, want := range []string{"- Task: Logout endpoint\n", "  - [ ] Logout (in progress)\n", "`go test ./...`: failed (TestLogout)", "`4f3c2b1` Add refresh",
		"- Summary: Wrote the refresh endpoint", "- Open errors:\n    - `go test ./...`: exit 1: --- FAIL: TestLogout (0.00s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "go vet") {
		t.Errorf("a resolved error was given as open:\n%s", out)
	}
}

// TestRenderSaysWhatItLeftOut: with a long next, blocks that no longer fit
// are named, never dropped silently (30 decisions were, once).
func TestRenderSaysWhatItLeftOut(t *testing.T) {
	l := bigLedger(30)
	for i := range 200 {
		l.Next = append(l.Next, fmt.Sprintf("a long next step %03d %s", i, strings.Repeat("n", 60)))
	}
	out := Render(input(l, "startup", 4000))
	if !strings.Contains(out, "Left out for room (in the files below): ") || !strings.Contains(out, "Done (30 items)") {
		t.Errorf("blocks were dropped without a word:\n%s", out)
	}
	// A long tail of next items does not crowd out the decisions: next is
	// cut, and says how many more the ledger holds.
	if !strings.Contains(out, "- decision 29 (why: because)") || strings.Contains(out, "Decisions (30 items)") {
		t.Errorf("the decisions gave way to the tail of next:\n%s", out)
	}
	if !strings.Contains(out, "next item 0 ") || !strings.Contains(out, "more in the ledger") {
		t.Errorf("next is not cut with a word on the rest:\n%s", out)
	}
	if Length(out) > 4000 {
		t.Errorf("over budget: %d", Length(out))
	}
}

// TestRenderEnded: each other session since the stream was last given to
// a model gets its line.
func TestRenderEnded(t *testing.T) {
	in := input(bigLedger(2), "startup", 9000)
	in.Ended = []EndedSession{
		{Meta: handoff.Meta{Event: "session-end", Agent: "codex", Author: "Ana", Created: now.Add(-time.Hour)}, Summary: "Picking up.\nmore", Path: "thoughts/shared/handoffs/auth/b.md"},
		{Meta: handoff.Meta{Event: "session-end", Created: now.Add(-2 * time.Hour)}, Summary: "What is 2+2? It is 4.", Path: "thoughts/shared/handoffs/auth/a.md"},
	}
	out := Render(in)
	want := "Other sessions since this stream was last given to a model:\n- session-end from Codex by Ana, 1 h ago: Picking up. (thoughts/shared/handoffs/auth/b.md)\n- session-end, 2 h ago: What is 2+2? It is 4. (thoughts/shared/handoffs/auth/a.md)"
	if !strings.Contains(out, want) {
		t.Errorf("missing\n%s\nin\n%s", want, out)
	}
}
