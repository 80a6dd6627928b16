package inject

import (
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
)

// goldenLedger is a small ledger with every field set.
func goldenLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	src := []byte(`---
session: auth
goal: Replace session cookies with short-lived JWTs
constraints:
  - Keep the /v1 API compatible
done:
  - Token refresh endpoint
now: Logout endpoint
next:
  - Integration tests for refresh and logout
decisions:
  - decision: RS256, not HS256
    why: keys rotate per service
    date: 2026-11-21
questions:
  - Should refresh tokens be single use?
files:
  - src/auth/token.go
updated: 2026-11-22T11:05:09Z
---

# Notes
The staging database is read-only on Fridays.
`)
	l, err := ledger.Parse("thoughts/ledgers/CONTINUITY_auth.md", src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func goldenHandoff() *handoff.Parsed {
	return &handoff.Parsed{
		Meta: handoff.Meta{Event: "pre-compact", Created: now.Add(-3 * time.Hour), Author: "Kim", Branch: "feature/auth",
			Agent: "codex", Tokens: 153412},
		Sections: map[string]string{"Summary": "Wrote the refresh endpoint; its tests fail for lack of a go.mod."},
	}
}

// TestRenderGolden pins what each kind of session is given, byte for byte.
func TestRenderGolden(t *testing.T) {
	base := func(source string) Input {
		l := goldenLedger(t)
		return Input{Source: source, Name: "auth", LedgerPath: "thoughts/ledgers/CONTINUITY_auth.md", Ledger: l, Notes: LedgerNotes(l),
			Handoff: goldenHandoff(), HandoffPath: "thoughts/shared/handoffs/auth/2026-11-22T11-05-09Z_pre-compact_930cbd59.md",
			Now: now, Host: "claude"}
	}
	cases := map[string]Input{}
	for _, s := range []string{"startup", "clear", "compact"} {
		cases[s] = base(s)
	}
	for _, s := range []string{"resume", "fork"} {
		in := base(s)
		in.Handoff, in.HandoffPath = nil, "" // a short refresh reads no handoff
		cases[s] = in
	}
	problem := base("startup")
	problem.Ledger = nil
	problem.LedgerRaw = []byte("---\ngoal: [unclosed\n---\n")
	problem.LedgerProblem = "thoughts/ledgers/CONTINUITY_auth.md:2: did not find expected ',' or ']'"
	cases["problem"] = problem
	refresh := base("")
	refresh.Refresh = true
	refresh.Handoff, refresh.HandoffPath = nil, "" // a short refresh reads no handoff
	cases["refresh"] = refresh
	same := base("startup")
	same.Host = "codex"
	cases["same-agent"] = same
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			out := Render(in)
			if in.Ledger != nil || in.LedgerRaw != nil {
				out += "\n-- message --\n" + Message(in)
			}
			testkit.Check(t, name+".txt", []byte(out+"\n"))
		})
	}
	t.Run("no-ledger", func(t *testing.T) {
		testkit.Check(t, "no-ledger.txt", []byte(NoLedger()+"\n-- message --\n"+NoLedgerMessage()+"\n"))
	})
}

// A handoff another agent wrote names it; one the reading host wrote does not.
func TestBylineNamesAnotherAgent(t *testing.T) {
	in := input(bigLedger(1), "startup", 9000)
	in.Handoff.Meta.Agent, in.Handoff.Meta.Tokens = "codex", 153412
	in.Host = "claude"
	if out := Render(in); !strings.Contains(out, "Latest handoff (pre-compact from Codex by Kim, 3 h ago on feature/auth), handed off at 153k tokens: ") {
		t.Errorf("no agent or tokens in the handoff's title:\n%s", out)
	}
	in.Host = "codex"
	if out := Render(in); !strings.Contains(out, "Latest handoff (pre-compact by Kim, 3 h ago on feature/auth), handed off at 153k tokens: ") {
		t.Errorf("the reading agent named as the writer:\n%s", out)
	}
	if got := Byline(handoff.Meta{Agent: "gemini", Created: now.Add(-5 * time.Minute)}, now); got != "from Gemini CLI, 5 min ago" {
		t.Errorf("Byline = %q", got)
	}
	if got := Byline(handoff.Meta{Created: now.Add(-5 * time.Minute), Branch: "main"}, now); got != "5 min ago on main" {
		t.Errorf("Byline = %q", got)
	}
}

func TestTokens(t *testing.T) {
	for n, want := range map[int]string{812: "812", 999: "999", 1000: "1k", 153412: "153k", 153600: "154k"} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %q, want %q", n, got, want)
		}
	}
}

// Codex counts bytes: a ledger in a script of three-byte characters stays
// under a budget in bytes, with goal, now and next kept.
func TestRenderBudgetInBytes(t *testing.T) {
	l := bigLedger(300)
	for i := range l.Next {
		l.Next[i] = strings.Repeat("日本語", 30)
	}
	l.Body = []byte(strings.Repeat("ノート。", 3000))
	for _, budget := range []int{1500, 4000, 9000} {
		in := input(l, "startup", budget)
		in.Unit = agent.Bytes
		out := Render(in)
		if len(out) > budget {
			t.Errorf("budget %d bytes: %d bytes", budget, len(out))
		}
		if Length(out) > budget/2 && budget > 1500 {
			// a budget in characters would have let three times as many bytes in
			in.Unit = agent.Runes
			if chars := Render(in); len(chars) <= budget {
				t.Errorf("budget %d: precondition: counting characters should overflow the bytes", budget)
			}
		}
		for _, want := range []string{"Goal: Replace session cookies with JWTs", "Now: Logout endpoint", "Next:\n- 日本語", "Full files: "} {
			if !strings.Contains(out, want) {
				t.Errorf("budget %d bytes: missing %q", budget, want)
			}
		}
	}
}
