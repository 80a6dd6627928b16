package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

const teammateHandoff = `---
session: auth
created: 2026-11-22T13:05:09Z
event: session-end
agent: codex
tokens: 98000
author: Ana
---

# Handoff: auth

## Summary

Ana's newer session.

## Files touched

- ` + "`src/auth/logout.go`" + `
`

const ownHandoff = `---
session: auth
created: 2026-11-22T12:05:09Z
event: pre-compact
agent: claude
author: Kim
---

# Handoff: auth

## Summary

This session's own handoff.
`

func TestContextBySource(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.write("thoughts/shared/handoffs/auth/2026-11-22T12-05-09Z_pre-compact_sess-own.md", ownHandoff)
	r.write("thoughts/shared/handoffs/auth/2026-11-22T13-05-09Z_session-end_sess-ana.md", teammateHandoff)
	if err := r.p.Local.UpdateSession("sess-own", testNow, func(s *localstate.Session) {
		s.Handoff = "thoughts/shared/handoffs/auth/2026-11-22T12-05-09Z_pre-compact_sess-own.md"
	}); err != nil {
		t.Fatal(err)
	}
	e := r.env0(nil)
	for _, source := range []string{"startup", "clear"} {
		inj, err := Context(r.p, e, "auth", source, "sess-own")
		if err != nil {
			t.Fatal(err)
		}
		contains(t, source, inj.Text, "restored at session start ("+source+")", "Goal: Replace session cookies with JWTs",
			"Latest handoff (session-end from Codex by Ana, 1 h ago), handed off at 98k tokens: Ana's newer session.", "Decisions:")
		if inj.Message != "continuity: auth — now: Logout endpoint (handoff 2026-11-22T13-05-09Z_session-end_sess-ana.md)" {
			t.Errorf("%s: message %q", source, inj.Message)
		}
	}
	// compact: the handoff this agent session just wrote, not a newer one.
	inj, err := Context(r.p, e, "auth", "compact", "sess-own")
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "compact", inj.Text, "This session's own handoff.", "Latest handoff (pre-compact by Kim, ")
	lacks(t, "compact", inj.Text, "Ana's newer session")
	for _, source := range []string{"resume", "fork"} {
		inj, err := Context(r.p, e, "auth", source, "sess-own")
		if err != nil {
			t.Fatal(err)
		}
		contains(t, source, inj.Text, "Goal: ", "Now: Logout endpoint", "Next:\n- Integration tests")
		lacks(t, source, inj.Text, "Latest handoff", "Decisions:", "(latest handoff)")
	}

	// The project's policy: none injects nothing.
	r.write(".continuity.yaml", "sources:\n  startup: none\n")
	r.reopen()
	if inj, err := Context(r.p, e, "auth", "startup", ""); err != nil || inj.Text != "" {
		t.Errorf("policy none: %q, %v", inj.Text, err)
	}
}

func TestContextWithoutOrWithABrokenLedger(t *testing.T) {
	r := newRepo(t)
	e := r.env0(nil)
	if _, err := Context(r.p, e, "auth", "startup", ""); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("a missing ledger: %v, want ErrNotFound", err)
	}
	r.ledger("auth", "---\ngoal: [unclosed\n---\n")
	inj, err := Context(r.p, e, "auth", "startup", "")
	if err == nil || inj.Problem == "" || strings.Contains(inj.Problem, "\n") {
		t.Fatalf("a broken ledger: problem %q, %v", inj.Problem, err)
	}
	contains(t, "broken", inj.Text, "The ledger could not be read: thoughts/ledgers/CONTINUITY_auth.md:2", "goal: [unclosed")
	if !strings.HasPrefix(inj.Message, "continuity: ledger thoughts/ledgers/CONTINUITY_auth.md has a problem: ") {
		t.Errorf("message %q", inj.Message)
	}
}

func TestRefreshAfterCompaction(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	inj, err := Refresh(r.p, r.env0(nil), "auth")
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "refresh", inj.Text, "restored after the context was compacted", "Goal: Replace session cookies with JWTs",
		"Now: Logout endpoint", "Next:\n- Integration tests")
	lacks(t, "refresh", inj.Text, "Decisions:", "Done:")
}

// The budget is the host's: characters or bytes, under its cliff.
func TestContextBudgetIsTheHosts(t *testing.T) {
	r := newRepo(t)
	var b strings.Builder
	b.WriteString(authLedger[:strings.Index(authLedger, "decisions:")])
	b.WriteString("questions:\n")
	for range 400 {
		b.WriteString("  - Ürün kararı için kim onay verecek, ve ne zaman — 日本語も?\n")
	}
	b.WriteString("---\n")
	r.ledger("auth", b.String())
	chars := &testHost{name: "claude", limits: agent.Limits{InjectMax: 10000, InjectUnit: agent.Runes}}
	bytesHost := &testHost{name: "codex", limits: agent.Limits{InjectMax: 10000, InjectUnit: agent.Bytes}}
	small := &testHost{name: "small", limits: agent.Limits{InjectMax: 3000, InjectUnit: agent.Bytes}}
	for _, tc := range []struct {
		h    *testHost
		size func(string) int
		max  int
	}{
		{chars, inject.Length, 9000}, {bytesHost, func(s string) int { return len(s) }, 9000}, {small, func(s string) int { return len(s) }, 2970},
	} {
		inj, err := Context(r.p, r.env0(tc.h), "auth", "startup", "")
		if err != nil {
			t.Fatal(err)
		}
		if n := tc.size(inj.Text); n > tc.max || n < tc.max-600 {
			t.Errorf("%s: %d, want at most %d and near it", tc.h.name, n, tc.max)
		}
		contains(t, tc.h.name, inj.Text, "Goal: ", "Now: Logout endpoint", "Next:\n- Integration tests", "Full files: ")
	}
	if inj, _ := Context(r.p, r.env0(chars), "auth", "startup", ""); len(inj.Text) <= 9000 {
		t.Errorf("precondition: a budget in characters lets more than 9,000 bytes through (%d)", len(inj.Text))
	}
}

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		configured int
		lim        agent.Limits
		want       int
	}{
		{0, agent.Limits{InjectMax: 10000}, inject.DefaultBudget},
		{9000, agent.Limits{InjectMax: 10000, InjectUnit: agent.Bytes}, 9000},
		{9900, agent.Limits{InjectMax: 10000}, 9900},
		{9900, agent.Limits{InjectMax: 5000}, 4950},
		{9000, agent.Limits{}, 9000},
		{20000, agent.Limits{}, inject.MaxBudget},
	} {
		if got := budget(tc.configured, tc.lim); got != tc.want {
			t.Errorf("budget(%d, %+v) = %d, want %d", tc.configured, tc.lim, got, tc.want)
		}
	}
}

func TestResume(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.ledger("billing", "---\nsession: billing\ngoal: Move invoices\n---\n")
	inj, err := Resume(r.p, r.env0(nil), "billing")
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "resume", inj.Text, "Goal: Move invoices", "(startup)")
	if name, why, _ := r.p.Active(r.getenv); name != "billing" || !strings.Contains(why, "use") {
		t.Errorf("active %q (%s), want billing chosen", name, why)
	}
	if _, err := Resume(r.p, r.env0(nil), "nosuch"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("resume nosuch: %v", err)
	}
	if _, err := Resume(r.p, r.env0(nil), "../x"); !errors.Is(err, workspace.ErrBadName) {
		t.Errorf("resume ../x: %v", err)
	}
	if name, _, _ := r.p.Active(r.getenv); name != "billing" {
		t.Errorf("a failed resume changed the active ledger to %q", name)
	}
}

// TestContextSkipsChatOnlyHandoffs: after real work and two chat-only
// sessions, the model is given the handoff of the work, and a line for
// each session that ended since the stream was last given to a model.
func TestContextSkipsChatOnlyHandoffs(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	chat := func(created, summary string) string {
		return "---\nsession: auth\ncreated: " + created + "\nevent: session-end\nagent: claude\n---\n\n# Handoff: auth\n\n## Summary\n\n" + summary + "\n\n## Recent requests\n\n- What is 2+2?\n"
	}
	work := "---\nsession: auth\ncreated: 2026-11-22T11:05:09Z\nevent: session-end\nagent: codex\n---\n\n# Handoff: auth\n\n## State\n\n- Task: div\n- Checks:\n  - `go test ./...`: passed\n\n## Summary\n\nWrote div.go.\n\n## Files touched\n\n- `div.go`\n"
	dir := "thoughts/shared/handoffs/auth/"
	r.write(dir+"2026-11-22T11-05-09Z_session-end_aaaa1111.md", work)
	r.write(dir+"2026-11-22T12-05-09Z_session-end_bbbb2222.md", chat("2026-11-22T12:05:09Z", "What is 2+2? It is 4."))
	r.write(dir+"2026-11-22T13-05-09Z_session-end_cccc3333.md", chat("2026-11-22T13:05:09Z", "Picking up."))
	e := r.env0(nil)
	inj, err := Context(r.p, e, "auth", "startup", "sess-new")
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "startup", inj.Text, "Latest handoff (session-end from Codex, ", "- Checks:\n    - `go test ./...`: passed", "Wrote div.go.",
		"Other sessions since this stream was last given to a model:\n- session-end, 1 h ago: Picking up.", "What is 2+2? It is 4.")
	if inj.Input.HandoffPath != dir+"2026-11-22T11-05-09Z_session-end_aaaa1111.md" {
		t.Errorf("gave %s", inj.Input.HandoffPath)
	}
	// Given once, the next start gives the same handoff, with no lines for
	// sessions it was already told of.
	e.Now = e.Now.Add(time.Minute)
	inj, err = Context(r.p, e, "auth", "startup", "sess-next")
	if err != nil {
		t.Fatal(err)
	}
	lacks(t, "the next start", inj.Text, "Other sessions since")
	contains(t, "the next start", inj.Text, "Wrote div.go.")
}
