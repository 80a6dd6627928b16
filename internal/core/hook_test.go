package core

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/localstate"
)

func (r *repo) hook(h agent.Host, debug bool) (Hook, *bytes.Buffer) {
	var stderr bytes.Buffer
	return Hook{Env: r.env0(h), Dir: t0dir, Stderr: &stderr, Debug: debug}, &stderr
}

// t0dir is a process directory that is never the project.
var t0dir = os.TempDir()

func TestHookNotOptedIn(t *testing.T) {
	r := newRepo(t)
	os.RemoveAll(filepath.Join(r.dir, "thoughts"))
	k, stderr := r.hook(nil, false)
	for _, kind := range []agent.Kind{agent.Start, agent.BeforeCompact, agent.End} {
		if a := k.Handle(agent.Event{Kind: kind, Name: "X", Cwd: r.dir, SessionID: "s", Source: "startup"}); a != (agent.Answer{}) {
			t.Errorf("kind %d: %+v", kind, a)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "thoughts")); err == nil {
		t.Error("a repository that has not opted in was written to")
	}
}

func TestHookStart(t *testing.T) {
	r := newRepo(t)
	h := &testHost{name: "claude", limits: agent.Limits{InjectMax: 10000}}
	k, stderr := r.hook(h, true)
	start := agent.Event{Kind: agent.Start, Name: "Start", Cwd: r.dir, SessionID: "s1", Source: "startup"}
	if a := k.Handle(start); !strings.Contains(a.Context, "no ledger yet") || !strings.Contains(a.Message, "no ledger yet") {
		t.Errorf("no ledger: %+v", a)
	}
	r.ledger("auth", strings.Replace(authLedger, "now: Logout endpoint", "now: Rotate ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", 1))
	a := k.Handle(start)
	contains(t, "start", a.Context, "restored at session start (startup)", "Goal: Replace session cookies with JWTs")
	for _, s := range []string{a.Context, a.Message} {
		if strings.Contains(s, "ghp_0123") || !strings.Contains(s, "[REDACTED:") {
			t.Errorf("not redacted: %q", s)
		}
	}
	if len(h.exported) != 1 || h.exported[0] != "auth" {
		t.Errorf("exported %q, want auth", h.exported)
	}
	s := r.p.Local.LoadSession("s1")
	if s.Ledger != "auth" || len(s.Runs) != 2 || !s.Runs[1].OK || s.Runs[1].Event != "Start" {
		t.Errorf("state %+v", s)
	}
	if !strings.Contains(stderr.String(), "continuity hook: Start: injected ") {
		t.Errorf("debug: %q", stderr)
	}
	// A relative cwd is refused, one line on stderr.
	stderr.Reset()
	if a := k.Handle(agent.Event{Kind: agent.Start, Name: "Start", Cwd: "repo"}); a != (agent.Answer{}) ||
		stderr.String() != "continuity hook: Start: cwd \"repo\" is not an absolute path; nothing done\n" {
		t.Errorf("relative cwd: %+v, %q", a, stderr)
	}
}

// Before a prompt: nothing unless the host saw a compaction, then goal, now, next.
func TestHookBeforePrompt(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	k, stderr := r.hook(nil, false)
	ev := agent.Event{Kind: agent.BeforePrompt, Name: "Before", Cwd: r.dir, SessionID: "g1"}
	if a := k.Handle(ev); a != (agent.Answer{}) {
		t.Errorf("no compaction: %+v", a)
	}
	if _, err := os.Stat(r.p.Local.SessionsDir()); err == nil {
		t.Error("a prompt with nothing to do wrote local state")
	}
	ev.Compacted = true
	a := k.Handle(ev)
	contains(t, "refresh", a.Context, "restored after the context was compacted", "Now: Logout endpoint", "Next:\n- Integration tests")
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr)
	}
}

// Before a compaction, a handoff; after it, its summary; at the end with
// nothing new, nothing; other events, nothing.
func TestHookCompactionAndEnd(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	k, stderr := r.hook(nil, false)
	tr := r.transcript()
	base := agent.Event{Cwd: r.dir, SessionID: SessionID, Transcript: tr}
	ev := base
	ev.Kind, ev.Name, ev.Trigger = agent.BeforeCompact, "Before", "auto"
	if a := k.Handle(ev); a != (agent.Answer{}) {
		t.Errorf("before compaction answered %+v", a)
	}
	hs := handoffsOf(t, r, "auth")
	if len(hs) != 1 || !strings.Contains(r.read(strings.TrimPrefix(hs[0], r.dir+"/")), "trigger: \"auto\"") {
		t.Fatalf("handoffs %q", hs)
	}
	ev = base
	ev.Kind, ev.Name, ev.Summary = agent.AfterCompact, "After", CompactSummary
	k.Handle(ev)
	if !strings.Contains(r.read(strings.TrimPrefix(hs[0], r.dir+"/")), "## Summary\n\nReplacing session cookies") {
		t.Error("the summary was not added")
	}
	ev = base
	ev.Kind, ev.Name, ev.Reason = agent.End, "End", "other"
	k.Handle(ev)
	for _, kind := range []agent.Kind{agent.Ignore, agent.TurnEnd} {
		ev.Kind = kind
		k.Handle(ev)
	}
	if n := len(handoffsOf(t, r, "auth")); n != 1 {
		t.Errorf("%d handoffs, want 1", n)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr)
	}
	// With no ledger at all, the handoff goes to the branch's stream.
	os.Remove(filepath.Join(r.dir, "thoughts", "ledgers", "CONTINUITY_auth.md"))
	k2, _ := r.hook(nil, false)
	ev = base
	ev.Kind, ev.Name, ev.SessionID = agent.BeforeCompact, "Before", "other-session"
	k2.Handle(ev)
	if n := len(handoffsOf(t, r, "main")); n != 1 {
		t.Errorf("%d handoffs for the branch's stream, want 1", n)
	}
}

func TestReadPayloadBounded(t *testing.T) {
	obj := `{"compact_summary":"`
	exact := obj + strings.Repeat("x", MaxPayload-len(obj)-2) + `"}`
	if b, err := ReadPayload(strings.NewReader(exact)); err != nil || len(b) != MaxPayload {
		t.Fatalf("a payload of exactly MaxPayload: %v, %d bytes", err, len(b))
	}
	r := &countingReader{r: strings.NewReader(exact + " " + strings.Repeat("y", 30<<20))}
	if _, err := ReadPayload(r); err == nil || err.Error() != "payload larger than 4 MiB" {
		t.Fatalf("a 34 MB payload: %v", err)
	}
	if r.n > MaxPayload+64<<10 {
		t.Errorf("read %d bytes of an oversized payload, bound is %d", r.n, MaxPayload+1)
	}
	if _, err := ReadPayload(errReader{}); err == nil || !strings.Contains(err.Error(), "read payload") {
		t.Errorf("a failing reader: %v", err)
	}
	for _, in := range []string{"", " \n\t\r\n"} {
		if _, err := ReadPayload(strings.NewReader(in)); !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: %v, want ErrEmpty", in, err)
		}
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

// refiningHost counts Refine calls and turns every event it refines into
// a refresh after compaction.
type refiningHost struct {
	*testHost
	calls *int
}

func (h refiningHost) Refine(ev agent.Event) agent.Event {
	*h.calls++
	ev.Compacted = true
	return ev
}

// TestHookRefinesOnlyOptedIn: a host's Refine (which looks at files the
// payload names) runs only in a repository that has opted in.
func TestHookRefinesOnlyOptedIn(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	calls := 0
	h := refiningHost{&testHost{name: "gemini"}, &calls}
	k, _ := r.hook(h, false)
	a := k.Handle(agent.Event{Kind: agent.BeforePrompt, Name: "BeforeAgent", Cwd: r.dir, SessionID: "s"})
	if calls != 1 || !strings.Contains(a.Context, "Replace session cookies") {
		t.Errorf("opted in: %d Refine calls, context %q", calls, a.Context)
	}
	os.RemoveAll(filepath.Join(r.dir, "thoughts"))
	calls = 0
	k, _ = r.hook(h, false)
	for _, kind := range []agent.Kind{agent.BeforePrompt, agent.BeforeCompact, agent.AfterCompact} {
		if a := k.Handle(agent.Event{Kind: kind, Name: "X", Cwd: r.dir, SessionID: "s"}); a != (agent.Answer{}) {
			t.Errorf("not opted in, kind %d: %+v", kind, a)
		}
	}
	if calls != 0 {
		t.Errorf("not opted in: Refine called %d times", calls)
	}
}

// TestHookHandoffWithProblems: a handoff written with a problem (its
// transcript missing) is a run that succeeded, its problem in the run's
// message and on stderr, and the session's state learns the handoff in the
// same update that records the run.
func TestHookHandoffWithProblems(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	k, stderr := r.hook(nil, false)
	ev := agent.Event{Kind: agent.BeforeCompact, Name: "PreCompact", Cwd: r.dir, SessionID: "s1", Trigger: "manual",
		Transcript: filepath.Join(r.dir, "missing.jsonl")}
	k.Handle(ev)
	s := r.p.Local.LoadSession("s1")
	if len(s.Runs) != 1 {
		t.Fatalf("runs %+v", s.Runs)
	}
	run := s.Runs[0]
	if !run.OK || !strings.HasPrefix(run.Message, "wrote ") || !strings.Contains(run.Message, "; but: transcript not read") {
		t.Errorf("run %+v: a written handoff is a run that succeeded, with its problem said", run)
	}
	if s.Handoff == "" || !strings.Contains(run.Message, s.Handoff) || s.Ledger != "auth" || s.HandoffContent == "" {
		t.Errorf("state %+v: the handoff not learned", s)
	}
	if !strings.Contains(stderr.String(), "continuity hook: PreCompact: wrote "+s.Handoff+", but: transcript not read") {
		t.Errorf("stderr %q", stderr)
	}
}

// TestHookByHand: a hook a person runs (its output a terminal) leaves no
// session at work, even when the process above it lives on (the terminal),
// and its session is over for recovery.
func TestHookByHand(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	h := &testHost{name: "claude", limits: agent.Limits{InjectMax: 10000}}
	k, _ := r.hook(h, false)
	alive := localstate.Process{PID: os.Getpid(), Start: 1}
	k.Client = func() (localstate.Process, bool, error) { return alive, true, nil }
	k.ByHand = true
	for _, kind := range []agent.Kind{agent.Start, agent.BeforeCompact} {
		k.Handle(agent.Event{Kind: kind, Name: "X", Cwd: r.dir, SessionID: "by-hand", Source: "startup"})
	}
	for _, rs := range r.p.Local.RepoSessions(true) {
		if rs.ID == "by-hand" {
			t.Errorf("a hook run by hand left a session among the repository's: %+v", rs)
		}
	}
	if s := r.p.Local.LoadSession("by-hand"); !s.Ended || s.Client != nil || s.Candidate != nil {
		t.Errorf("session %+v: want ended, no client", s)
	}
	// The same hook run by an agent records its session at work.
	k.ByHand = false
	k.Handle(agent.Event{Kind: agent.Start, Name: "X", Cwd: r.dir, SessionID: "agent", Source: "startup"})
	found := false
	for _, rs := range r.p.Local.RepoSessions(true) {
		found = found || rs.ID == "agent"
	}
	if !found {
		t.Error("a hook run by an agent recorded no session: the test proves nothing")
	}
}
