package core

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/localstate"
)

// deadClient is the identity of a process that ran and was killed.
func deadClient(t *testing.T) *localstate.Process {
	t.Helper()
	if !localstate.ProcessesSupported {
		t.Skip("process identity is not supported here")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := localstate.ProcessOf(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return &id
}

// liveClient is this test process: alive for as long as the test runs.
func liveClient(t *testing.T) *localstate.Process {
	t.Helper()
	if !localstate.ProcessesSupported {
		t.Skip("process identity is not supported here")
	}
	id, err := localstate.ProcessOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return &id
}

// hostTranscript puts the demo transcript where Claude Code keeps the
// repository's transcripts (in a config dir of the test's own), under id.
func (r *repo) hostTranscript(id string) string {
	r.t.Helper()
	if r.env["CLAUDE_CONFIG_DIR"] == "" {
		r.env["CLAUDE_CONFIG_DIR"] = filepath.Join(r.env["HOME"], "claude")
	}
	dir := (&testHost{}).TranscriptDir(r.getenv, r.p.Root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		r.t.Fatal(err)
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, bytes.ReplaceAll(Transcript, []byte(ProjectDir), []byte(r.dir)), 0o600); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// earlier fabricates the local state of an earlier session of the worktree.
func (r *repo) earlier(id string, client *localstate.Process, seen time.Time, transcript string) {
	r.t.Helper()
	if err := r.p.Local.UpdateSession(id, seen, func(s *localstate.Session) {
		s.Agent, s.Client, s.Seen, s.Transcript, s.Ledger = "claude", client, seen, transcript, "auth"
	}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) handoffs() []string {
	r.t.Helper()
	m, _ := filepath.Glob(filepath.Join(r.dir, "thoughts", "shared", "handoffs", "auth", "*.md"))
	return m
}

// withDead is a repository with the auth ledger and one earlier session,
// id, whose client was killed a minute ago, and a hook to start the next.
func withDead(t *testing.T, id string) (*repo, Hook, *bytes.Buffer) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.earlier(id, deadClient(t), testNow.Add(-time.Minute), r.hostTranscript(id))
	k, stderr := r.hook(recoverHost(), false)
	return r, k, stderr
}

func startOf(r *repo, id string) agent.Event {
	return agent.Event{Kind: agent.Start, Name: "SessionStart", Cwd: r.dir, SessionID: id, Source: "startup"}
}

func recoverHost() *testHost {
	return &testHost{name: "claude", limits: agent.Limits{InjectMax: 10000, EndBudget: 30 * time.Second}}
}

// TestRecoverDeadClient: a session whose client was killed, with work in
// its transcript and no end, is handed off once at the next start, which
// says so to the model and the person; a second start finds nothing.
func TestRecoverDeadClient(t *testing.T) {
	const dead = "dead-0001"
	r, k, stderr := withDead(t, dead)
	a := k.Handle(startOf(r, "new-0002"))
	files := r.handoffs()
	if len(files) != 1 || !strings.Contains(filepath.Base(files[0]), "_recovered_") {
		t.Fatalf("handoffs %q, want one recovered; stderr %q", files, stderr)
	}
	rel := "thoughts/shared/handoffs/auth/" + filepath.Base(files[0])
	contains(t, "context", a.Context, "The previous session ("+dead+") ended without a handoff (its client process is gone); recovered from its transcript: "+rel+".",
		"handed off at 153k tokens", "Recovered: the session ended without a handoff (its client process is gone)", "It edited src/auth/token.go")
	contains(t, "message", a.Message, "the previous session ended without a handoff; recovered from its transcript: "+rel)
	src := r.read(rel)
	contains(t, "handoff", src, "\nevent: \"recovered\"\n", "\nagent_session: \""+dead+"\"\n", "its client process is gone",
		"\ntokens: 153412\n", "src/auth/token.go", "## Commands")
	parsed, err := handoff.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(parsed.Sections["Summary"], "It ran `") {
		t.Errorf("the summary names no command:\n%s", parsed.Sections["Summary"])
	}
	if s := r.p.Local.LoadSession(dead); s.Recovered != rel || s.Pending != "" {
		t.Errorf("state of the recovered session: recovered %q, pending %q", s.Recovered, s.Pending)
	}
	// The next start (another session) recovers nothing again.
	k.Env.Now = k.Env.Now.Add(time.Minute)
	a = k.Handle(startOf(r, "new-0003"))
	lacks(t, "second start", a.Context+a.Message, "The previous session (", "the previous session ended")
	if n := len(r.handoffs()); n != 1 {
		t.Errorf("%d handoffs after the second start, want 1", n)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr)
	}
}

// TestRecoverLeavesRunning: a session whose client still runs, one that
// ended, the starting session itself and another host's session are never
// touched.
func TestRecoverLeavesRunning(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.earlier("live", liveClient(t), testNow.Add(-48*time.Hour), r.hostTranscript("live"))
	r.earlier("ended", deadClient(t), testNow.Add(-time.Hour), r.hostTranscript("ended"))
	if err := r.p.Local.UpdateSession("ended", testNow, func(s *localstate.Session) { s.Ended = true }); err != nil {
		t.Fatal(err)
	}
	r.earlier("self", deadClient(t), testNow.Add(-time.Hour), r.hostTranscript("self"))
	r.earlier("other-host", deadClient(t), testNow.Add(-time.Hour), r.hostTranscript("other-host"))
	if err := r.p.Local.UpdateSession("other-host", testNow, func(s *localstate.Session) { s.Agent = "codex" }); err != nil {
		t.Fatal(err)
	}
	recs, problems := Recover(r.p, r.env0(recoverHost()), "self")
	if len(recs) != 0 || len(problems) != 0 || len(r.handoffs()) != 0 {
		t.Errorf("recovered %+v (problems %q), handoffs %q; want none", recs, problems, r.handoffs())
	}
	for _, id := range []string{"live", "ended", "self", "other-host"} {
		if s := r.p.Local.LoadSession(id); s.Recovered != "" || s.Pending != "" {
			t.Errorf("%s marked: %+v", id, s)
		}
	}
}

// TestRecoverQuiet: with no client recorded, a session is over only after
// a quiet day, and its handoff then says it may be early.
func TestRecoverQuiet(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.earlier("quiet", nil, testNow.Add(-23*time.Hour), r.hostTranscript("quiet"))
	e := r.env0(recoverHost())
	if recs, _ := Recover(r.p, e, "new"); len(recs) != 0 || len(r.handoffs()) != 0 {
		t.Fatalf("quiet for 23 h: recovered %+v", recs)
	}
	e.Now = testNow.Add(2 * time.Hour)
	recs, problems := Recover(r.p, e, "new")
	if len(recs) != 1 || recs[0].Path == "" || len(problems) != 0 {
		t.Fatalf("quiet for 25 h: %+v, %q", recs, problems)
	}
	contains(t, "why", recs[0].Why, "no client process could be recorded", "it may be early")
	contains(t, "handoff", r.read(recs[0].Path), "it may be early", "\nevent: \"recovered\"\n")
}

// TestRecoverNothingNew: a dead session whose last handoff already holds
// all its transcript says is not handed off again, and is marked done.
func TestRecoverNothingNew(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	const id = "handed-off"
	tr := r.hostTranscript(id)
	e := r.env0(recoverHost())
	w, err := WriteHandoff(r.p, e, Request{Name: "auth", Event: "pre-compact", Trigger: "auto", AgentSession: id, Transcript: tr})
	if err != nil || w.Path == "" {
		t.Fatal(w, err)
	}
	r.earlier(id, deadClient(t), testNow, tr)
	e.Now = testNow.Add(time.Hour)
	recs, problems := Recover(r.p, e, "new")
	if len(recs) != 0 || len(problems) != 0 || len(r.handoffs()) != 1 {
		t.Errorf("recovered %+v (%q): handoffs %q", recs, problems, r.handoffs())
	}
	if s := r.p.Local.LoadSession(id); !strings.HasPrefix(s.Recovered, "nothing new since ") {
		t.Errorf("recovered = %q, want the session marked", s.Recovered)
	}
}

// TestRecoverDeferred: a dead session with more unread than a start reads
// is left pending (the context says where its handoff will be and when),
// and the next turn end of the worktree writes it.
func TestRecoverDeferred(t *testing.T) {
	defer func(n int64) { RecoverReadMax = n }(RecoverReadMax)
	RecoverReadMax = 4 << 10
	const dead = "big-dead"
	r, k, stderr := withDead(t, dead)
	a := k.Handle(startOf(r, "now"))
	if n := len(r.handoffs()); n != 0 {
		t.Fatalf("%d handoffs written at start, want the recovery deferred", n)
	}
	contains(t, "context", a.Context, "The previous session ("+dead+") ended without a handoff (its client process is gone); its handoff will be recovered from its transcript into thoughts/shared/handoffs/auth/ at this session's next turn end.")
	contains(t, "message", a.Message, "its handoff will be recovered from its transcript into thoughts/shared/handoffs/auth/")
	if !r.p.Local.RecoveryPending() || r.p.Local.LoadSession(dead).Pending == "" {
		t.Fatal("the deferred recovery is not recorded as pending")
	}
	// A second start meanwhile says the same, and does not read it either.
	if recs, _ := Recover(r.p, k.Env, "another"); len(recs) != 1 || recs[0].Path != "" || len(r.handoffs()) != 0 {
		t.Errorf("a second start: %+v, handoffs %q; want it still pending", recs, r.handoffs())
	}
	// The starting session's turn ends: the recovery is finished.
	own := r.transcript()
	k.Handle(agent.Event{Kind: agent.TurnEnd, Name: "Stop", Cwd: r.dir, SessionID: "now", Transcript: own})
	files := r.handoffs()
	if len(files) != 1 || !strings.Contains(files[0], "_recovered_") {
		t.Fatalf("after the turn end: handoffs %q (stderr %q)", files, stderr)
	}
	if r.p.Local.RecoveryPending() {
		t.Error("still pending after the handoff was written")
	}
	s := r.p.Local.LoadSession(dead)
	if s.Pending != "" || !strings.HasSuffix(s.Recovered, filepath.Base(files[0])) {
		t.Errorf("state %+v", s)
	}
	contains(t, "handoff", r.read("thoughts/shared/handoffs/auth/"+filepath.Base(files[0])), "its client process is gone", "src/auth/token.go")
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr)
	}
}

// TestHookRecordsSession: the hooks record the client, the transcript,
// when and whether the session ended, in the write they already make; a
// start again (a resume) makes the session live again.
func TestHookRecordsSession(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	k, _ := r.hook(recoverHost(), false)
	want := localstate.Process{PID: 4242, Start: 99}
	k.Client = func() (localstate.Process, bool, error) { return want, true, nil }
	tr := r.transcript()
	ev := startOf(r, "rec")
	ev.Transcript = tr
	k.Handle(ev)
	s := r.p.Local.LoadSession("rec")
	if s.Client == nil || *s.Client != want || s.Transcript != tr || !s.Seen.Equal(testNow) || s.Agent != "claude" || s.Ended {
		t.Fatalf("after start: %+v", s)
	}
	k.Env.Now = testNow.Add(time.Minute)
	k.Handle(agent.Event{Kind: agent.End, Name: "SessionEnd", Cwd: r.dir, SessionID: "rec", Transcript: tr, Reason: "other"})
	if s = r.p.Local.LoadSession("rec"); !s.Ended || !s.Seen.Equal(testNow.Add(time.Minute)) {
		t.Fatalf("after end: %+v", s)
	}
	if err := r.p.Local.UpdateSession("rec", testNow, func(s *localstate.Session) { s.Recovered = "x" }); err != nil {
		t.Fatal(err)
	}
	k.Client = func() (localstate.Process, bool, error) {
		return localstate.Process{}, false, localstate.ErrNoProcessIdentity
	}
	k.Handle(agent.Event{Kind: agent.Start, Name: "SessionStart", Cwd: r.dir, SessionID: "rec", Source: "resume"})
	if s = r.p.Local.LoadSession("rec"); s.Ended || s.Recovered != "" || s.Client != nil || s.Transcript != tr {
		t.Errorf("after a resume with no client known: %+v", s)
	}
}

// TestRecoverNoLedger: in a repository with no ledger yet, the recovered
// handoff goes to the branch's stream and the start still says so.
func TestRecoverNoLedger(t *testing.T) {
	r := newRepo(t)
	r.earlier("gone", deadClient(t), testNow.Add(-time.Minute), r.hostTranscript("gone"))
	if err := r.p.Local.UpdateSession("gone", testNow, func(s *localstate.Session) { s.Ledger = "" }); err != nil {
		t.Fatal(err)
	}
	k, _ := r.hook(recoverHost(), false)
	a := k.Handle(startOf(r, "next"))
	files, _ := filepath.Glob(filepath.Join(r.dir, "thoughts", "shared", "handoffs", "main", "*_recovered_*.md"))
	if len(files) != 1 {
		t.Fatalf("recovered handoffs %q, want one in the branch's stream", files)
	}
	contains(t, "context", a.Context, "no ledger yet", "The previous session (gone) ended without a handoff (its client process is gone); recovered from its transcript: thoughts/shared/handoffs/main/")
	contains(t, "message", a.Message, "no ledger yet", "the previous session ended without a handoff; recovered from its transcript: thoughts/shared/handoffs/main/")
}

// TestRecoverClaimed: a session another hook began recovering less than a
// minute ago is left to it; an older claim (a hook that died) is taken over.
func TestRecoverClaimed(t *testing.T) {
	r, _, _ := withDead(t, "claimed")
	if err := r.p.Local.UpdateSession("claimed", testNow, func(s *localstate.Session) { s.Claimed = testNow.Add(-30 * time.Second) }); err != nil {
		t.Fatal(err)
	}
	e := r.env0(recoverHost())
	if recs, problems := Recover(r.p, e, "a"); len(recs) != 0 || len(problems) != 0 || len(r.handoffs()) != 0 {
		t.Fatalf("a claimed session was recovered: %+v %q", recs, problems)
	}
	e.Now = testNow.Add(time.Minute)
	if recs, _ := Recover(r.p, e, "b"); len(recs) != 1 || recs[0].Path == "" {
		t.Fatalf("a stale claim held: %+v", recs)
	}
	if s := r.p.Local.LoadSession("claimed"); !s.Claimed.IsZero() || s.Recovered == "" {
		t.Errorf("after the recovery: claimed %v, recovered %q", s.Claimed, s.Recovered)
	}
}

// TestRecoverLedgerMissing: a start whose ledger is missing (named by the
// environment) is told of the recovery beside the no-ledger hint, not
// given a rendering of a ledger it does not have.
func TestRecoverLedgerMissing(t *testing.T) {
	r, k, _ := withDead(t, "gone")
	r.env["CONTINUITY_LEDGER"] = "ghost"
	a := k.Handle(startOf(r, "next"))
	contains(t, "context", a.Context, "no ledger yet", "The previous session (gone) ended without a handoff (its client process is gone); recovered from its transcript: thoughts/shared/handoffs/auth/")
	lacks(t, "context", a.Context, "could not be read")
	contains(t, "message", a.Message, "the previous session ended without a handoff; recovered from its transcript: thoughts/shared/handoffs/auth/")
}

// TestRecoverOtherNamespace: a session whose client was recorded in
// another PID namespace (a container or machine sharing the worktree) is
// not taken for dead because its PID is not in this process table: only a
// quiet day recovers it, and its handoff then says it may be early.
func TestRecoverOtherNamespace(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	far := *deadClient(t)
	far.Where = "boot 00000000-0000-0000-0000-000000000000 pid:[1]"
	r.earlier("far", &far, testNow.Add(-time.Minute), r.hostTranscript("far"))
	e := r.env0(recoverHost())
	if recs, problems := Recover(r.p, e, "new"); len(recs) != 0 || len(problems) != 0 || len(r.handoffs()) != 0 {
		t.Fatalf("a client of another namespace was taken for dead: %+v %q", recs, problems)
	}
	e.Now = testNow.Add(25 * time.Hour)
	recs, problems := Recover(r.p, e, "new")
	if len(recs) != 1 || recs[0].Path == "" || len(problems) != 0 {
		t.Fatalf("quiet for a day: %+v, %q", recs, problems)
	}
	contains(t, "why", recs[0].Why, "another machine or in another container", "it may be early")
}

// TestRecoverClaimRechecks: a dead session resumed between the start's
// look at the open sessions and its claim (a new client, seen again) is
// not claimed, written or marked recovered: it runs.
func TestRecoverClaimRechecks(t *testing.T) {
	const id = "resumed"
	r, _, _ := withDead(t, id)
	e := r.env0(recoverHost())
	open := r.p.Local.Unfinished()
	if len(open) != 1 || open[0].ID != id || over(open[0], e.Now) == "" {
		t.Fatalf("open sessions %+v", open)
	}
	live := liveClient(t)
	if err := r.p.Local.UpdateSession(id, testNow, func(s *localstate.Session) {
		seen(s, agent.Event{Kind: agent.Start, SessionID: id}, "claude", live, true, func() string { return "" }, testNow)
	}); err != nil {
		t.Fatal(err)
	}
	rec, err := recoverOne(r.p, e, open[0], "auth", "its client process is gone")
	if err != nil || rec.Path != "" || len(r.handoffs()) != 0 {
		t.Fatalf("recovered a resumed session: %+v, %v, handoffs %q", rec, err, r.handoffs())
	}
	if s := r.p.Local.LoadSession(id); s.Recovered != "" || !s.Claimed.IsZero() || s.Ended {
		t.Errorf("the resumed session's state: %+v", s)
	}
	// Judged again, from its state now, it is left alone: it runs.
	if recs, problems := Recover(r.p, e, "new"); len(recs) != 0 || len(problems) != 0 {
		t.Errorf("recovered on a later start: %+v %q", recs, problems)
	}
}

// TestRecoverBudgetPerStart: the read budget is one start's, not one dead
// session's: two dead sessions that each fit in it but not together get
// one recovered and the other pending (finished by the next turn end); a
// start past its time budget recovers none now.
func TestRecoverBudgetPerStart(t *testing.T) {
	defer func(n int64, d time.Duration) { RecoverReadMax, RecoverTimeMax = n, d }(RecoverReadMax, RecoverTimeMax)
	r := newRepo(t)
	r.ledger("auth", authLedger)
	var size int64
	for _, id := range []string{"dead-a", "dead-b"} {
		tr := r.hostTranscript(id)
		fi, err := os.Stat(tr)
		if err != nil {
			t.Fatal(err)
		}
		size = fi.Size()
		r.earlier(id, deadClient(t), testNow.Add(-time.Minute), tr)
	}
	e := r.env0(recoverHost())
	RecoverTimeMax = -1
	recs, problems := Recover(r.p, e, "new")
	if len(recs) != 2 || recs[0].Path != "" || recs[1].Path != "" || len(problems) != 0 || len(r.handoffs()) != 0 {
		t.Fatalf("past the time budget: %+v %q, handoffs %q; want both pending", recs, problems, r.handoffs())
	}
	RecoverTimeMax, RecoverReadMax = time.Minute, size*3/2
	recs, problems = Recover(r.p, e, "new")
	written := 0
	for _, rec := range recs {
		if rec.Path != "" {
			written++
		}
	}
	if len(recs) != 2 || written != 1 || len(problems) != 0 || len(r.handoffs()) != 1 || !r.p.Local.RecoveryPending() {
		t.Fatalf("two sessions of %d bytes within %d: %+v %q, handoffs %q; want one written, one pending", size, RecoverReadMax, recs, problems, r.handoffs())
	}
	k, _ := r.hook(recoverHost(), false)
	k.Handle(agent.Event{Kind: agent.TurnEnd, Name: "Stop", Cwd: r.dir, SessionID: "new", Transcript: r.transcript()})
	if n := len(r.handoffs()); n != 2 || r.p.Local.RecoveryPending() {
		t.Errorf("after the turn end: %d handoffs, pending %v; want both written", n, r.p.Local.RecoveryPending())
	}
}

// TestRecoverRedactsNoLedger: the lines saying what was recovered are
// redacted on the paths with no ledger and with a missing one, as on the
// ledger's own: a session id shaped like a secret never reaches the model
// or the person.
func TestRecoverRedactsNoLedger(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	for _, missing := range []bool{false, true} {
		r := newRepo(t)
		if missing {
			r.ledger("auth", authLedger)
			r.env["CONTINUITY_LEDGER"] = "ghost"
		}
		r.earlier(secret, deadClient(t), testNow.Add(-time.Minute), r.hostTranscript("dead"))
		k, _ := r.hook(recoverHost(), false)
		a := k.Handle(startOf(r, "next"))
		contains(t, "context", a.Context, "no ledger yet", "ended without a handoff", "[REDACTED:")
		for what, got := range map[string]string{"context": a.Context, "message": a.Message} {
			if strings.Contains(got, "ghp_0123") {
				t.Errorf("missing ledger %v: the %s holds the secret: %q", missing, what, got)
			}
		}
	}
}

// TestRecoverOwnEnvironment: a dead session is recovered in its own
// setting, not the starting session's: its transcript is accepted under
// the transcript directory its own hooks recorded (the new session's
// environment names another), and its handoff goes to the worktree's
// stream, not to the one the new session's environment names.
func TestRecoverOwnEnvironment(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	r.ledger("other", authLedger)
	if err := r.p.SetActive("auth"); err != nil {
		t.Fatal(err)
	}
	const dead = "elsewhere"
	tr := r.hostTranscript(dead) // under the config dir of the dead session's environment
	k, stderr := r.hook(recoverHost(), false)
	dc := *deadClient(t)
	k.Client = func() (localstate.Process, bool, error) { return dc, true, nil }
	ev := startOf(r, dead)
	ev.Transcript = tr
	k.Handle(ev)
	if err := r.p.Local.UpdateSession(dead, testNow, func(s *localstate.Session) { s.Ledger = "" }); err != nil {
		t.Fatal(err) // as if it started with no ledger: only the worktree's choice applies
	}
	if s := r.p.Local.LoadSession(dead); s.TranscriptRoot == "" || !strings.HasPrefix(tr, s.TranscriptRoot) {
		t.Fatalf("transcript root %q recorded for %s", s.TranscriptRoot, tr)
	}
	r.env["CLAUDE_CONFIG_DIR"] = filepath.Join(r.env["HOME"], "another-claude")
	r.env["CONTINUITY_LEDGER"] = "other"
	k.Client = nil
	k.Handle(startOf(r, "next"))
	files := r.handoffs()
	if len(files) != 1 || !strings.Contains(files[0], "_recovered_") {
		others, _ := filepath.Glob(filepath.Join(r.dir, "thoughts", "shared", "handoffs", "other", "*.md"))
		t.Fatalf("recovered into auth: %q, into other: %q (stderr %q)", files, others, stderr)
	}
	contains(t, "handoff", r.read("thoughts/shared/handoffs/auth/"+filepath.Base(files[0])), "Its last reply: ")
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr)
	}
}

// TestHookConfirmsUnnamedClient: a client found by its age alone (not by
// its host's name for it) is recorded only once a second hook call of the
// session finds it again: a slow wrapper found by one call, gone after
// it, never makes the running session look over. A named client is
// recorded at once.
func TestHookConfirmsUnnamedClient(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	k, _ := r.hook(recoverHost(), false)
	tr := r.hostTranscript("wrapped")
	wrapper, client := deadClient(t), liveClient(t)
	found, named := wrapper, false
	k.Client = func() (localstate.Process, bool, error) { return *found, named, nil }
	ev := startOf(r, "wrapped")
	ev.Transcript = tr
	k.Handle(ev) // the start's hook ran under a wrapper that took its time, gone since
	if s := r.p.Local.LoadSession("wrapped"); s.Client != nil || s.Candidate == nil || *s.Candidate != *wrapper {
		t.Fatalf("after one call: client %v, candidate %v; want only the candidate", s.Client, s.Candidate)
	}
	if recs, problems := Recover(r.p, r.env0(recoverHost()), "next"); len(recs) != 0 || len(problems) != 0 {
		t.Fatalf("a session whose wrapper is gone was recovered: %+v %q", recs, problems)
	}
	found = client
	k.Handle(agent.Event{Kind: agent.BeforeCompact, Name: "PreCompact", Cwd: r.dir, SessionID: "wrapped", Transcript: tr, Trigger: "auto"})
	if s := r.p.Local.LoadSession("wrapped"); s.Client != nil || s.Candidate == nil || *s.Candidate != *client {
		t.Fatalf("after a call with another client: client %v, candidate %v", s.Client, s.Candidate)
	}
	k.Handle(agent.Event{Kind: agent.BeforeCompact, Name: "PreCompact", Cwd: r.dir, SessionID: "wrapped", Transcript: tr, Trigger: "auto"})
	if s := r.p.Local.LoadSession("wrapped"); s.Client == nil || *s.Client != *client || s.Candidate != nil {
		t.Fatalf("seen twice: client %v, candidate %v; want it recorded", s.Client, s.Candidate)
	}
	// A named client is recorded at the first call.
	found, named = client, true
	ev = startOf(r, "named")
	ev.Transcript = r.hostTranscript("named")
	k.Handle(ev)
	if s := r.p.Local.LoadSession("named"); s.Client == nil || *s.Client != *client || s.Candidate != nil {
		t.Errorf("named: client %v, candidate %v", s.Client, s.Candidate)
	}
}
