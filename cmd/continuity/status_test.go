package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/workspace"
)

// TestRunStatus: status lists the sessions of every worktree, with agent,
// worktree, branch, stream and files, as text and as JSON; outside a
// repository it says none are recorded.
func TestRunStatus(t *testing.T) {
	a, out, _ := testApp(t)
	if err := runStatus(a, statusOptions{}); err != nil || !strings.Contains(out.String(), "not in a git repository") {
		t.Fatalf("outside a repository: %q, %v", out, err)
	}
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\ngoal: g\n---\n")
	wt := filepath.Join(filepath.Dir(r.Dir), "proj-wt")
	r.Git("worktree", "add", "-q", "-b", "feat/x", wt)
	now := a.now()
	for _, s := range []struct{ dir, id, host string }{{r.Dir, "s-main", "claude"}, {wt, "s-wt", "codex"}} {
		p, err := workspace.OpenWith(s.dir, r.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Local.RecordRepoSession(s.id, now, func(x *localstate.RepoSession) {
			x.Agent, x.Stream, x.Worktree, x.Branch, x.Files = s.host, "auth", p.Root, gitfacts.Branch(p.Repo), []string{"src/a.go"}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a.dir = r.Dir
	out.Reset()
	if err := runStatus(a, statusOptions{}); err != nil {
		t.Fatal(err)
	}
	contains := func(want ...string) {
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("missing %q in:\n%s", w, out)
			}
		}
	}
	contains("live  Claude Code  . (main)  stream auth  session s-main", "live  Codex  ../proj-wt (feat/x)  stream auth  session s-wt", "files: src/a.go")
	out.Reset()
	if err := runStatus(a, statusOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got []core.RepoSessionStatus
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 2 {
		t.Fatalf("JSON: %v: %s", err, out)
	}
}
