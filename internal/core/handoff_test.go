package core

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/ledger"
)

func preCompact(path string) Request {
	return Request{Name: "auth", Event: "pre-compact", Trigger: "manual", AgentSession: SessionID, Transcript: path}
}

func TestWriteHandoff(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	tr := r.transcript()
	e := r.env0(&testHost{name: "codex"})
	w, err := WriteHandoff(r.p, e, preCompact(tr))
	if err != nil {
		t.Fatal(err)
	}
	want := "thoughts/shared/handoffs/auth/2026-11-22T14-05-09Z_pre-compact_163a3853.md"
	if w.Path != want || w.Message != "wrote "+want {
		t.Fatalf("wrote %q (%q), want %s", w.Path, w.Message, want)
	}
	src := r.read(want)
	contains(t, "handoff", src, "\nagent: \"codex\"\n", "\nmodel: \"model-x\"\n", "\ntokens: 153412\n", "\nauthor: \"Kim\"\n",
		"\nbranch: \"main\"\n", "src/auth/token.go", "## Decisions\n\n- RS256, not HS256 (why: keys rotate per service)\n",
		"continuity resume auth")
	parsed, err := handoff.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m := parsed.Meta; m.Agent != "codex" || m.Model != "model-x" || m.Tokens != 153412 {
		t.Errorf("meta %+v: agent, model and tokens must come from the host and the transcript", m)
	}
	// The ledger already listed the session's one file: it is left as it
	// was (updated never moves alone); local state learned the handoff.
	l, _, err := LoadLedger(r.p, "auth")
	if err != nil || l.Updated != "" || !reflect.DeepEqual(l.Files, []string{"src/auth/token.go"}) {
		t.Errorf("ledger files %q, updated %q (%v)", l.Files, l.Updated, err)
	}
	s := r.p.Local.LoadSession(SessionID)
	if s.Handoff != want || s.Ledger != "auth" || s.HandoffHash == "" || s.HandoffContent == "" {
		t.Errorf("state %+v", s)
	}

	// The same content again (a later second, same session): not written.
	e.Now = e.Now.Add(time.Minute)
	w2, err := WriteHandoff(r.p, e, preCompact(tr))
	if err != nil || w2.Path != "" || w2.Message != "nothing new since "+want {
		t.Errorf("an equal handoff: %+v, %v", w2, err)
	}
	// Session end with no new activity: nothing.
	end := preCompact(tr)
	end.Event, end.Trigger, end.Reason, end.SkipIfSame = "session-end", "", "other", true
	if w3, err := WriteHandoff(r.p, e, end); err != nil || w3.Path != "" {
		t.Errorf("session end with nothing new: %+v, %v", w3, err)
	}
	// A new prompt, no new work, after the compaction's handoff: a new
	// handoff of the session's end (a compaction's handoff is a moment of
	// its own, never replaced).
	appendLine := func(path, line string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line + "\n")
		f.Close()
	}
	appendLine(tr, `{"type":"user","message":{"role":"user","content":"now the logout endpoint"},"uuid":"u-new"}`)
	w4, err := WriteHandoff(r.p, e, end)
	if err != nil || !strings.HasSuffix(w4.Path, "_session-end_163a3853.md") || strings.Contains(w4.Message, "in place of") {
		t.Errorf("session end after a new prompt, after a compaction: %+v, %v", w4, err)
	}
	contains(t, "the session end's handoff", r.read(w4.Path), "now the logout endpoint")
	if w, err := WriteHandoff(r.p, e, end); err != nil || w.Path != "" {
		t.Errorf("the session's end again, nothing new: %+v, %v", w, err)
	}
	// Another session's end, then its end again a minute later with only a
	// new prompt: the second takes the place of the first (uncommitted).
	trData, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	tr2 := filepath.Join(filepath.Dir(tr), "second.jsonl")
	os.WriteFile(tr2, trData, 0o644)
	end2 := Request{Name: "auth", Event: "session-end", Reason: "other", AgentSession: "second", Transcript: tr2, SkipIfSame: true}
	first, err := WriteHandoff(r.p, e, end2)
	if err != nil || first.Path == "" {
		t.Fatalf("the second session's end: %+v, %v", first, err)
	}
	appendLine(tr2, `{"type":"user","message":{"role":"user","content":"and the docs"},"uuid":"u-docs"}`)
	e.Now = e.Now.Add(time.Minute)
	again, err := WriteHandoff(r.p, e, end2)
	if err != nil || again.Path == "" || !strings.Contains(again.Message, "in place of "+first.Path) {
		t.Errorf("the second session's end again: %+v, %v", again, err)
	}
	if got := handoffsOf(t, r, "auth"); len(got) != 3 {
		t.Errorf("handoffs %q, want the compaction's, the first session's end and the second session's latest", got)
	}
	contains(t, "the replacing handoff", r.read(again.Path), "and the docs")
	// Committed, it is never rewritten: a new prompt after it adds a
	// handoff of the session's end; a compaction moments later takes the
	// place of that one (not committed), never of the committed one.
	r.git("add", "thoughts")
	r.git("commit", "-q", "-m", "handoffs")
	appendLine(tr2, `{"type":"user","message":{"role":"user","content":"and the tests"},"uuid":"u-tests"}`)
	e.Now = e.Now.Add(time.Minute)
	w5, err := WriteHandoff(r.p, e, end2)
	if err != nil || w5.Path == "" || strings.Contains(w5.Message, "in place of") {
		t.Errorf("a prompt after a committed handoff: %+v, %v", w5, err)
	}
	pre2 := end2
	pre2.Event, pre2.Trigger, pre2.Reason, pre2.SkipIfSame = "pre-compact", "auto", "", false
	if w6, err := WriteHandoff(r.p, e, pre2); err != nil || w6.Path == "" || !strings.Contains(w6.Message, "in place of "+w5.Path) {
		t.Errorf("a compaction moments after an uncommitted end: %+v, %v", w6, err)
	}
	if got := handoffsOf(t, r, "auth"); len(got) != 4 || !strings.HasSuffix(got[len(got)-1], "_pre-compact_second.md") && !strings.Contains(strings.Join(got, " "), "_pre-compact_second.md") {
		t.Errorf("handoffs %q, want the three committed ones and the compaction's", got)
	}
}

func handoffsOf(t *testing.T, r *repo, name string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(r.dir, "thoughts", "shared", "handoffs", name, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWriteHandoffIdleAndManual(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	empty := filepath.Join(r.transcriptDir(), "empty.jsonl")
	os.WriteFile(empty, []byte(`{"type":"queue-operation","operation":"dequeue","sessionId":"b"}`+"\n"), 0o644)
	w, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "session-end", AgentSession: "b", Transcript: empty, SkipIfSame: true})
	if err != nil || w.Path != "" || !strings.Contains(w.Message, "nothing happened") {
		t.Errorf("an idle session: %+v, %v", w, err)
	}
	// A chat-only session (a prompt, a reply, a command that only looks):
	// no handoff, and the ledger's bytes stay as they were.
	chat := filepath.Join(r.transcriptDir(), "chat.jsonl")
	os.WriteFile(chat, []byte(strings.Join([]string{
		`{"type":"user","message":{"role":"user","content":"What is 2+2?"},"uuid":"u1","timestamp":"2026-11-22T14:00:00Z"}`,
		`{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la"}}]},"uuid":"a1"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"x"}]},"uuid":"r1"}`,
		`{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"It is 4."}]},"uuid":"a2"}`,
	}, "\n")+"\n"), 0o644)
	before := r.read("thoughts/ledgers/CONTINUITY_auth.md")
	w, err = WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "session-end", AgentSession: "chat", Transcript: chat, SkipIfSame: true})
	if err != nil || w.Path != "" || !strings.Contains(w.Message, "nothing of substance") {
		t.Errorf("a chat-only session's end: %+v, %v", w, err)
	}
	if after := r.read("thoughts/ledgers/CONTINUITY_auth.md"); after != before {
		t.Errorf("a chat-only session rewrote the ledger:\n%s", after)
	}
	if s := r.p.Local.LoadSession("chat"); s.Ledger != "auth" {
		t.Errorf("local state does not remember the chat-only session: %+v", s)
	}
	// A compaction of a chat-only session is handed off all the same: the
	// conversation leaves the model's context, and the compaction's summary
	// lands in that handoff, which the session's end leaves in place.
	pre, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "pre-compact", AgentSession: "chat2", Transcript: chat})
	if err != nil || pre.Path == "" {
		t.Fatalf("a chat-only session's compaction: %+v, %v", pre, err)
	}
	if msg, err := AddSummary(r.p, "chat2", "<summary>Asked what 2+2 is; it is 4.</summary>"); err != nil || !strings.Contains(msg, pre.Path) {
		t.Errorf("the compaction summary: %q, %v", msg, err)
	}
	if w, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "session-end", AgentSession: "chat2", Transcript: chat, SkipIfSame: true}); err != nil || w.Path != "" {
		t.Errorf("the chat-only session's end after its compaction: %+v, %v", w, err)
	}
	if got := handoffsOf(t, r, "auth"); len(got) != 1 || !strings.HasSuffix(filepath.ToSlash(got[0]), pre.Path) {
		t.Errorf("handoffs %v, want the compaction's %s alone", got, pre.Path)
	}
	contains(t, "the compaction's handoff", r.read(pre.Path), "Asked what 2+2 is; it is 4.")
	if after := r.read("thoughts/ledgers/CONTINUITY_auth.md"); after != before {
		t.Errorf("a chat-only session's compaction rewrote the ledger:\n%s", after)
	}
	os.Remove(filepath.Join(r.dir, filepath.FromSlash(pre.Path)))
	// By hand, without a session: each one is written, under its own name.
	for range 2 {
		if w, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "manual"}); err != nil || w.Path == "" {
			t.Fatalf("manual: %+v, %v", w, err)
		}
	}
	if n := len(handoffsOf(t, r, "auth")); n != 2 {
		t.Errorf("%d manual handoffs, want 2", n)
	}
	// A chat-only session's compaction is another matter: its context is
	// about to be lost, and PostCompact adds the summary to the handoff.
	if w, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "pre-compact", AgentSession: "chat", Transcript: chat}); err != nil || w.Path == "" {
		t.Errorf("a chat-only session's compaction: %+v, %v", w, err)
	}
	// A missing transcript: written from the ledger, the problem named.
	w, err = WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "pre-compact", AgentSession: "c", Transcript: "/nonexistent/t.jsonl"})
	if w.Path == "" || err != nil || w.Warning() == nil || !strings.Contains(w.Warning().Error(), "transcript not read") {
		t.Errorf("a missing transcript: %+v, %v (want the handoff written, its problem a warning)", w, err)
	}
}

// Every handoff lists the ledger's decisions, marking those the previous
// handoff of the stream did not list, by whole line: "RS256" is new after
// "RS256, not HS256" (a substring match dropped it).
func TestHandoffDecisionsMarked(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	e := r.env0(nil)
	w1, err := WriteHandoff(r.p, e, Request{Name: "auth", Event: "manual", AgentSession: "one"})
	if err != nil {
		t.Fatal(err)
	}
	first := r.read(w1.Path)
	contains(t, "first", first, "- RS256, not HS256 (why: keys rotate per service)\n")
	lacks(t, "first", first, "(new)")
	r.ledger("auth", strings.Replace(authLedger, "files:", "  - decision: RS256\n    date: 2026-11-22\nfiles:", 1))
	e.Now = e.Now.Add(time.Hour)
	w2, err := WriteHandoff(r.p, e, Request{Name: "auth", Event: "manual", AgentSession: "two"})
	if err != nil {
		t.Fatal(err)
	}
	second := r.read(w2.Path)
	contains(t, "second", second, "- RS256, not HS256 (why: keys rotate per service)\n- RS256, 2026-11-22 (new)")
	lacks(t, "second", second, "HS256 (why: keys rotate per service) (new)")
}

func TestMarkDecisions(t *testing.T) {
	r := newRepo(t)
	prev := filepath.Join(r.dir, "prev.md")
	os.WriteFile(prev, []byte("---\nsession: x\n---\n\n## Decisions\n\n- RS256, not HS256 (why: keys rotate) (new)\n- Keep v1, 2026-11-01\n"), 0o644)
	h := &handoff.Handoff{Decisions: []ledger.Decision{
		{Decision: "RS256, not HS256", Why: "keys rotate"}, {Decision: "RS256"}, {Decision: "Keep v1", Date: "2026-11-01"},
		{Decision: "Keep v1", Date: "2026-11-02"},
	}}
	markDecisions(r.p, prev, h)
	if want := []string{"RS256", "Keep v1"}; !reflect.DeepEqual(h.NewDecisions, want) {
		t.Errorf("new %q, want %q", h.NewDecisions, want)
	}
	h.NewDecisions = []string{"x"}
	markDecisions(r.p, filepath.Join(r.dir, "none.md"), h)
	if !reflect.DeepEqual(h.NewDecisions, []string{"x"}) {
		t.Errorf("without a previous handoff the marks changed: %q", h.NewDecisions)
	}
}

func TestAddSummary(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	if _, err := AddSummary(r.p, SessionID, "<summary>x</summary>"); err == nil {
		t.Error("a summary with no handoff before the compaction was accepted")
	}
	w, err := WriteHandoff(r.p, r.env0(nil), preCompact(r.transcript()))
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := AddSummary(r.p, SessionID, "  "); err != nil || !strings.Contains(msg, "no compaction summary") {
		t.Errorf("an empty summary: %q, %v", msg, err)
	}
	msg, err := AddSummary(r.p, SessionID, CompactSummary)
	if err != nil || msg != "added the compaction summary to "+w.Path {
		t.Fatalf("%q, %v", msg, err)
	}
	src := r.read(w.Path)
	contains(t, "summary", src, "## Summary\n\nReplacing session cookies with short-lived JWTs.")
	lacks(t, "summary", src, "<analysis>")
}

func TestKeepSections(t *testing.T) {
	full := func() *handoff.Handoff {
		return &handoff.Handoff{Summary: "s", Goal: "g", Now: "n", Done: []string{"d"}, Next: []string{"x"},
			Decisions: []ledger.Decision{{Decision: "D"}}, NewDecisions: []string{"D"}, Files: []string{"f"},
			Commands: []string{"c"}, Errors: []string{"e"}, Prompts: []string{"p"}}
	}
	h := full()
	keepSections(h, nil)
	if !reflect.DeepEqual(h, full()) {
		t.Errorf("no configuration dropped sections: %+v", h)
	}
	h = full()
	keepSections(h, []string{"goal", "files", "requests"})
	want := &handoff.Handoff{Goal: "g", Files: []string{"f"}, Prompts: []string{"p"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("kept %+v, want %+v", h, want)
	}
}

func TestNotOursAndMergeCommits(t *testing.T) {
	r := newRepo(t)
	got := notOurs(r.p, []string{"src/a.go", "thoughts/", "thoughts/ledgers/CONTINUITY_x.md", "thoughts/shared/handoffs/x/h.md",
		".continuity.yaml", "thoughtsX/y.go", "docs/"})
	if want := []string{"src/a.go", "thoughtsX/y.go", "docs/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("notOurs = %q, want %q", got, want)
	}
	seen := []handoff.Commit{{Hash: "4f3c2b1", Subject: "a"}, {Hash: "9e8d7c6", Subject: "amended away"}}
	fromGit := []handoff.Commit{{Hash: "4f3c2b1a", Subject: "a"}, {Hash: "1234567", Subject: "b"}}
	want := []handoff.Commit{{Hash: "4f3c2b1a", Subject: "a"}, {Hash: "1234567", Subject: "b"}, {Hash: "9e8d7c6", Subject: "amended away"}}
	if got := mergeCommits(seen, fromGit); !reflect.DeepEqual(got, want) {
		t.Errorf("mergeCommits = %+v, want %+v", got, want)
	}
}

func TestUpdateLedgerFiles(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	err := updateLedgerFiles(r.p, "auth", []string{"src/new.go", "/abs/x.go", "../out.go", "src/", "thoughts/ledgers/CONTINUITY_auth.md", "src/auth/token.go"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	got := r.read("thoughts/ledgers/CONTINUITY_auth.md")
	l := mustParse(t, got)
	if want := []string{"src/auth/token.go", "src/new.go"}; !reflect.DeepEqual(l.Files, want) {
		t.Errorf("files %q, want %q", l.Files, want)
	}
	if l.Updated != "2026-11-22T14:05:09Z" {
		t.Errorf("updated %q", l.Updated)
	}
	// Every byte outside the edits is kept.
	if !strings.HasPrefix(got, authLedger[:strings.Index(authLedger, "files:")]) || !strings.HasSuffix(got, "---\n\n# Notes\n") {
		t.Errorf("the ledger's other bytes changed:\n%s", got)
	}
	// The same files again, later: no field changes, so neither does updated.
	if err := updateLedgerFiles(r.p, "auth", []string{"src/new.go", "src/auth/token.go"}, testNow.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if again := r.read("thoughts/ledgers/CONTINUITY_auth.md"); again != got {
		t.Errorf("the ledger was rewritten with no new file:\n%s", again)
	}
	// A ledger that does not parse is never rewritten.
	broken := "---\ngoal: [unclosed\n---\n"
	r.ledger("auth", broken)
	if err := updateLedgerFiles(r.p, "auth", []string{"src/x.go"}, testNow); err == nil {
		t.Error("a broken ledger: no error")
	}
	if got := r.read("thoughts/ledgers/CONTINUITY_auth.md"); got != broken {
		t.Errorf("a broken ledger was rewritten:\n%s", got)
	}
	// A missing one is not created.
	if err := updateLedgerFiles(r.p, "gone", []string{"src/x.go"}, testNow); err != nil {
		t.Errorf("a missing ledger: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "thoughts", "ledgers", "CONTINUITY_gone.md")); err == nil {
		t.Error("a missing ledger was created")
	}
}

func TestSessionOf(t *testing.T) {
	for path, want := range map[string]string{
		"": "",
		"/p/163a3853-845e-49d9-ba12-21c3e2d18c2e.jsonl":                             "163a3853-845e-49d9-ba12-21c3e2d18c2e",
		"/s/rollout-2026-11-22T14-05-09-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl": "0199a213-81c0-7800-8aa1-bbab2a035a53",
		"/t/session-abc.json": "session-abc",
		"/t/notes.txt":        "",
	} {
		if got := SessionOf(path); got != want {
			t.Errorf("SessionOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestPrune(t *testing.T) {
	r := newRepo(t)
	r.write(".continuity.yaml", "retention:\n  days: 30\n  max: 2\n")
	r.reopen()
	for i, age := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, 40 * 24 * time.Hour} {
		id := []string{"a", "b", "c", "old"}[i]
		if err := r.p.Local.UpdateSession(id, testNow, func(*localstate.Session) {}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(r.p.Local.SessionsDir(), id+".json")
		os.Chtimes(path, testNow.Add(-age), testNow.Add(-age))
	}
	// Transcript checkpoints go by age alone; the lock file their
	// writers share in that directory stays, however old.
	cps := r.p.Local.TranscriptDir()
	for name, age := range map[string]time.Duration{"transcript-new.json": time.Hour, "transcript-old.json": 40 * 24 * time.Hour, "d0123456789abcdef0123456789abcdef.lock": 41 * 24 * time.Hour} {
		r.write(filepath.Join(".git", "continuity", "transcripts", name), "{}")
		os.Chtimes(filepath.Join(cps, name), testNow.Add(-age), testNow.Add(-age))
	}
	r.ledger("auth", authLedger)
	dry, err := Prune(r.p, testNow, true)
	if err != nil || len(dry) != 3 {
		t.Fatalf("dry run: %q, %v", dry, err)
	}
	if _, err := os.Stat(filepath.Join(r.p.Local.SessionsDir(), "old.json")); err != nil {
		t.Error("a dry run removed a file")
	}
	removed, err := Prune(r.p, testNow, false)
	if err != nil || !reflect.DeepEqual(removed, dry) {
		t.Errorf("removed %q (%v), the dry run said %q", removed, err, dry)
	}
	for _, id := range []string{"c", "old"} {
		if _, err := os.Stat(filepath.Join(r.p.Local.SessionsDir(), id+".json")); err == nil {
			t.Errorf("session %s kept", id)
		}
	}
	if ents, _ := os.ReadDir(cps); len(ents) != 2 || ents[0].Name() != "d0123456789abcdef0123456789abcdef.lock" || ents[1].Name() != "transcript-new.json" {
		t.Errorf("left in transcripts/: %v, want the lock file and transcript-new.json", ents)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "thoughts", "ledgers", "CONTINUITY_auth.md")); err != nil {
		t.Error("prune touched a ledger")
	}
	// Lazily: not again within a day.
	r.p.Local.UpdateSession("d", testNow, func(*localstate.Session) {})
	os.Chtimes(filepath.Join(r.p.Local.SessionsDir(), "d.json"), testNow.Add(-50*24*time.Hour), testNow.Add(-50*24*time.Hour))
	os.Chtimes(filepath.Join(r.p.Local.Dir, "pruned"), testNow, testNow)
	PruneLazily(r.p, testNow.Add(time.Hour))
	if _, err := os.Stat(filepath.Join(r.p.Local.SessionsDir(), "d.json")); err != nil {
		t.Error("pruned twice within a day")
	}
	PruneLazily(r.p, testNow.Add(25*time.Hour))
	if _, err := os.Stat(filepath.Join(r.p.Local.SessionsDir(), "d.json")); err == nil {
		t.Error("not pruned after a day")
	}
}

// TestHandoffStateFromGit: the uncommitted paths get a line of their own
// (not among the files the session touched), and the commits made on the
// branch since the session started are listed.
func TestHandoffStateFromGit(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.write("src/made.go", "package src\n")
	r.git("add", "src/made.go")
	r.git("commit", "-q", "-m", "Add made.go for the refresh endpoint")
	r.write(".gitattributes", "*.md text\n")
	w, err := WriteHandoff(r.p, r.env0(nil), preCompact(r.transcript()))
	if err != nil {
		t.Fatal(err)
	}
	src := r.read(w.Path)
	contains(t, "handoff", src, "## State\n", "- Commits:\n", " Add made.go for the refresh endpoint\n", "- Uncommitted: `.gitattributes`")
	parsed, err := handoff.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if files := parsed.Sections["Files touched"]; strings.Contains(files, ".gitattributes") {
		t.Errorf("an uncommitted path the session never touched is listed as touched:\n%s", files)
	}
}

// TestProjectCheckPatterns: a project's own check command (handoff.checks)
// is a check like the toolchains'.
func TestProjectCheckPatterns(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.write(".continuity.yaml", "handoff:\n  checks:\n    - '^\\./scripts/ci\\.sh\\b'\n")
	r.reopen()
	tr := filepath.Join(r.transcriptDir(), "ci.jsonl")
	os.WriteFile(tr, []byte(strings.Join([]string{
		`{"type":"user","message":{"role":"user","content":"run ci"},"uuid":"u1","timestamp":"2026-11-22T14:00:00Z"}`,
		`{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"./scripts/ci.sh --fast"}}]},"uuid":"a1"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"Exit code 2\nlint: 3 problems","is_error":true}]},"uuid":"r1"}`,
	}, "\n")+"\n"), 0o644)
	w, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "pre-compact", AgentSession: "ci", Transcript: tr})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "handoff", r.read(w.Path), "- Checks:\n  - `./scripts/ci.sh --fast`: failed\n")
}
