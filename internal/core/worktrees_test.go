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
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/workspace"
)

// worktrees is a repository (proj, on main, with the auth ledger
// committed) and its linked worktrees, each opened as a workspace.
type worktrees struct {
	t       *testing.T
	main    *testkit.Repo
	now     time.Time
	clients map[string]localstate.Process // by session id
}

func newWorktrees(t *testing.T) *worktrees {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", authLedger)
	r.Git("add", "thoughts")
	r.Git("commit", "-q", "-m", "ledger")
	return &worktrees{t: t, main: r, now: testNow}
}

// add makes a linked worktree named name beside proj (git worktree add
// with args, e.g. -b feat/x or --detach) and returns its root.
func (w *worktrees) add(name string, args ...string) string {
	dir := filepath.Join(filepath.Dir(w.main.Dir), name)
	w.main.Git(append(append([]string{"worktree", "add", "-q"}, args...), dir)...)
	return dir
}

func (w *worktrees) open(dir string) *workspace.Workspace {
	w.t.Helper()
	p, err := workspace.OpenWith(dir, w.main.Getenv)
	if err != nil {
		w.t.Fatal(err)
	}
	return p
}

// client is a live process standing for one client (an agent's), for the
// test's length.
func (w *worktrees) client() localstate.Process {
	w.t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	id, err := localstate.ProcessOf(cmd.Process.Pid)
	if err != nil {
		w.t.Fatal(err)
	}
	return id
}

// hook handles ev in dir as host h would at w.now, for the session's
// client (one per session id, alive).
func (w *worktrees) hook(h agent.Host, dir string, ev agent.Event) agent.Answer {
	w.t.Helper()
	var stderr bytes.Buffer
	if w.clients == nil {
		w.clients = map[string]localstate.Process{}
	}
	id, ok := w.clients[ev.SessionID]
	if !ok {
		id = w.client()
		w.clients[ev.SessionID] = id
	}
	k := Hook{Env: Env{Host: agent.Serve(h), Getenv: w.main.Getenv, Now: w.now, Version: "test"}, Dir: t0dir, Stderr: &stderr,
		Client: func() (localstate.Process, bool, error) { return id, true, nil }}
	ev.Cwd = dir
	if ev.Name == "" {
		ev.Name = "Event"
	}
	a := k.Handle(ev)
	if stderr.Len() > 0 {
		w.t.Logf("stderr: %s", stderr.String())
	}
	return a
}

// setNow sets the stream's now in dir's ledger, at when.
func (w *worktrees) setNow(dir, text string, when time.Time) {
	w.t.Helper()
	p := w.open(dir)
	path, _ := p.LedgerPath("auth")
	if _, _, err := Edit(p, path, when, Change{Verb: "now", Items: []string{text}}); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chtimes(path, when, when); err != nil {
		w.t.Fatal(err)
	}
}

func start(id string) agent.Event {
	return agent.Event{Kind: agent.Start, Name: "SessionStart", SessionID: id, Source: "startup"}
}

// TestSharedStreamAcrossWorktrees: a session starting in worktree B is
// given the stream's newest handoff and now from worktree A, uncommitted,
// attributed to A, and told that A's session is at work on the stream and
// what it touched; in isolated mode it keeps to its own.
func TestSharedStreamAcrossWorktrees(t *testing.T) {
	w := newWorktrees(t)
	a := w.main.Dir
	b := w.add("proj-wt", "-b", "feat/x")
	w.hook(claude.Host{}, a, start("sess-a"))
	pa := w.open(a)
	if _, err := WriteHandoff(pa, Env{Host: agent.Serve(claude.Host{}), Getenv: w.main.Getenv, Now: w.now.Add(-5 * time.Minute), Version: "test"},
		Request{Name: "auth", Event: "pre-compact", Trigger: "manual", AgentSession: "sess-a"}); err != nil {
		t.Fatal(err)
	}
	w.setNow(a, "Wire the refresh token into the mobile client", time.Now().Add(time.Minute))
	if err := recordRepoSession(pa, w.now, agent.Event{SessionID: "sess-a", Kind: agent.TurnEnd}, "claude", "auth", nil, nil,
		[]string{"src/auth/token.go"}); err != nil {
		t.Fatal(err)
	}

	got := w.hook(codex.Host{}, b, start("sess-b")).Context
	contains(t, "start in B", got,
		"Now: Wire the refresh token into the mobile client",
		"Goal, now and next below are from this stream's ledger in worktree ../proj, branch main",
		"from worktree ../proj, branch main, 5 min ago",
		"Also at work: Claude Code in worktree ../proj (branch main) has worked on this stream",
		"it touched src/auth/token.go")
	if p := w.open(b); p.Local.Dir == pa.Local.Dir || p.Local.Common != pa.Local.Common {
		t.Errorf("local state: A %s %s, B %s %s; want their own dirs and one common", pa.Local.Dir, pa.Local.Common, p.Local.Dir, p.Local.Common)
	}
	// B's own ledger is untouched: only the injection says A's state.
	if l := w.open(b); !strings.Contains(readPath(t, filepath.Join(l.LedgerDir, "CONTINUITY_auth.md")), "now: Logout endpoint") {
		t.Error("B's ledger was rewritten")
	}

	os.WriteFile(filepath.Join(b, ".continuity.yaml"), []byte("worktrees: isolated\n"), 0o644)
	got = w.hook(codex.Host{}, b, start("sess-b2")).Context
	contains(t, "isolated start in B", got, "Now: Logout endpoint", "Also at work: Claude Code in worktree ../proj")
	lacks(t, "isolated start in B", got, "mobile client", "from worktree ../proj")
}

// TestWorktreeRemoved: the sessions of a worktree that was removed are
// pruned by the next status, and never read from.
func TestWorktreeRemoved(t *testing.T) {
	w := newWorktrees(t)
	b := w.add("proj-gone", "-b", "gone")
	w.hook(claude.Host{}, b, start("sess-gone"))
	w.hook(claude.Host{}, w.main.Dir, start("sess-main"))
	if st := Status(w.open(w.main.Dir), w.now); len(st) != 2 {
		t.Fatalf("status before the removal: %+v", st)
	}
	w.main.Git("worktree", "remove", "--force", b)
	got := w.hook(claude.Host{}, w.main.Dir, start("sess-main2")).Context
	lacks(t, "start after the removal", got, "proj-gone")
	st := Status(w.open(w.main.Dir), w.now)
	for _, s := range st {
		if s.ID == "sess-gone" {
			t.Errorf("a removed worktree's session is still listed: %+v", s)
		}
	}
	if len(st) != 2 {
		t.Errorf("status after the removal: %+v", st)
	}
}

// TestDetachedHead: a session in a worktree on a detached HEAD is recorded
// with no branch and named by its worktree alone.
func TestDetachedHead(t *testing.T) {
	w := newWorktrees(t)
	d := w.add("proj-det", "--detach")
	w.hook(claude.Host{}, d, start("sess-det"))
	got := w.hook(claude.Host{}, w.main.Dir, start("sess-main")).Context
	contains(t, "start beside a detached HEAD", got, "Also at work: Claude Code in worktree ../proj-det has worked on this stream")
	for _, s := range Status(w.open(w.main.Dir), w.now) {
		if s.ID == "sess-det" && (s.Branch != "" || s.Worktree != d || !s.Live || s.Here) {
			t.Errorf("detached session: %+v", s)
		}
	}
}

// TestSubmoduleApart: a submodule is a repository of its own: its sessions
// are not the superproject's.
func TestSubmoduleApart(t *testing.T) {
	w := newWorktrees(t)
	sub := testkit.New(t, true)
	w.main.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "vendor/sub")
	inside := filepath.Join(w.main.Dir, "vendor", "sub")
	os.MkdirAll(filepath.Join(inside, "thoughts", "ledgers"), 0o755)
	os.WriteFile(filepath.Join(inside, "thoughts", "ledgers", "CONTINUITY_auth.md"), []byte(authLedger), 0o644)
	w.hook(claude.Host{}, inside, start("sess-sub"))
	got := w.hook(claude.Host{}, w.main.Dir, start("sess-super")).Context
	lacks(t, "superproject start", got, "Also at work")
	for _, s := range Status(w.open(w.main.Dir), w.now) {
		if s.ID == "sess-sub" {
			t.Errorf("the submodule's session is listed in the superproject: %+v", s)
		}
	}
	if st := Status(w.open(inside), w.now); len(st) != 1 || st[0].ID != "sess-sub" {
		t.Errorf("the submodule's status: %+v", st)
	}
}

// TestWorktreesMerged: handoffs written on two branches in two worktrees
// merge without a conflict, both kept, and the newest is the latest.
func TestWorktreesMerged(t *testing.T) {
	w := newWorktrees(t)
	a, b := w.main.Dir, w.add("proj-wt", "-b", "feat/x")
	for i, dir := range []string{a, b} {
		p := w.open(dir)
		if _, err := WriteHandoff(p, Env{Host: agent.Serve(claude.Host{}), Getenv: w.main.Getenv, Now: w.now.Add(time.Duration(i) * time.Minute), Version: "test"},
			Request{Name: "auth", Event: "pre-compact", Trigger: "manual", AgentSession: []string{"sess-a", "sess-b"}[i]}); err != nil {
			t.Fatal(err)
		}
		git := &testkit.Repo{T: t, Dir: dir, Env: w.main.Env}
		// The ledgers' merge is the merge driver's (continuity merge-ledger).
		git.Git("checkout", "--", "thoughts/ledgers")
		git.Git("add", "thoughts/shared")
		git.Git("commit", "-q", "-m", "handoff")
	}
	w.main.Git("merge", "-q", "--no-edit", "feat/x")
	files := handoff.Files(filepath.Join(a, "thoughts", "shared", "handoffs", "auth"))
	if len(files) != 2 {
		t.Fatalf("after the merge: %q, want both handoffs", files)
	}
	latest, err := w.open(a).LatestHandoff("auth", time.Now())
	if err != nil || latest != files[1] || !strings.Contains(filepath.Base(latest), "2026-11-22T14-06") {
		t.Errorf("latest %s (%v), want B's, a minute later: %q", latest, err, files)
	}
}

// TestSubagentHooks: a subagent's start is given what subagents says
// (short by default, full, none); its other hooks write no handoff, leave
// its parent's state alone and renew the parent's entry without ending it.
func TestSubagentHooks(t *testing.T) {
	w := newWorktrees(t)
	a := w.main.Dir
	w.hook(claude.Host{}, a, start("parent"))
	before := w.open(a).Local.LoadSession("parent")
	sub := agent.Event{Kind: agent.Start, Name: "SubagentStart", SessionID: "parent", Source: "subagent", Subagent: "acc6a5a62596a3485"}
	got := w.hook(claude.Host{}, a, sub).Context
	contains(t, "subagent start", got, "Goal: Replace session cookies with JWTs", "Now: Logout endpoint", "(subagent)")
	lacks(t, "subagent start", got, "RS256")
	for _, kind := range []agent.Kind{agent.BeforeCompact, agent.End, agent.TurnEnd, agent.AfterCompact} {
		if a := w.hook(claude.Host{}, a, agent.Event{Kind: kind, SessionID: "parent", Subagent: "acc6a5a62596a3485", Transcript: "/nonexistent"}); a != (agent.Answer{}) {
			t.Errorf("subagent event %v answered %+v", kind, a)
		}
	}
	if fs := handoff.Files(filepath.Join(a, "thoughts", "shared", "handoffs", "auth")); len(fs) != 0 {
		t.Errorf("a subagent's hooks wrote handoffs: %q", fs)
	}
	after := w.open(a).Local.LoadSession("parent")
	if len(after.Runs) != len(before.Runs) || after.Ended || after.Client == nil {
		t.Errorf("the parent's state changed: before %+v, after %+v", before, after)
	}
	st := Status(w.open(a), w.now)
	if len(st) != 1 || st[0].ID != "parent" || st[0].Ended || !st[0].Live {
		t.Errorf("status: %+v, want the parent alone, live", st)
	}

	os.WriteFile(filepath.Join(a, ".continuity.yaml"), []byte("subagents: full\n"), 0o644)
	contains(t, "subagents: full", w.hook(claude.Host{}, a, sub).Context, "RS256")
	os.WriteFile(filepath.Join(a, ".continuity.yaml"), []byte("subagents: none\n"), 0o644)
	if got := w.hook(claude.Host{}, a, sub).Context; got != "" {
		t.Errorf("subagents: none gave %q", got)
	}
}

func readPath(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOwnClientNotOthers: a client's earlier session (a /clear, a resume
// under a new id) is not another at work; another client's is.
func TestOwnClientNotOthers(t *testing.T) {
	w := newWorktrees(t)
	w.hook(claude.Host{}, w.main.Dir, start("first"))
	w.clients["second"] = w.clients["first"]
	lacks(t, "the same client's next session", w.hook(claude.Host{}, w.main.Dir, start("second")).Context, "Also at work")
	contains(t, "another client's session", w.hook(claude.Host{}, w.main.Dir, start("third")).Context,
		"Also at work: Claude Code in this worktree (branch main) has worked on this stream")
}
