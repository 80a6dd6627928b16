//go:build linux || darwin

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorktreesTwoAgents: Claude Code in the repository's main worktree
// and Codex in a linked one (branch feat/x), on one stream. While a Codex
// session is live in the linked worktree and another one there has ended
// with a handoff (not committed), a Claude Code start in the main worktree
// is given that handoff, attributed to the other worktree, and told that
// Codex is at work there; once the live Codex session is killed, the next
// start (still given Codex's handoff: the Claude Code session only
// replied, so it wrote none) says nothing of it.
func TestWorktreesTwoAgents(t *testing.T) {
	cp := newCodexProject(t, workStream, goal)
	cp.claude = claudeBinary(t)
	cp.run("git", "add", "-A")
	cp.run("git", "commit", "-q", "-m", "continuity")
	wt := cp.dir + "-wt"
	cp.run("git", "worktree", "add", "-q", "-b", "feat/x", wt)
	trust := "[projects." + strconvQuote(wt) + "]\ntrust_level = \"trusted\"\n"
	f, err := os.OpenFile(filepath.Join(cp.home, "config.toml"), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(trust); err != nil {
		t.Fatal(err)
	}
	f.Close()
	inWT := *cp.project
	inWT.dir = wt
	cpWT := &codexProject{project: &inWT, codex: cp.codex, home: cp.home, oai: cp.oai}

	// A Codex session in the linked worktree, live, waiting on its model.
	live := NewOpenAI(Exec("cat app.txt").After(1500*time.Millisecond), OpenAIHang())
	t.Cleanup(live.Close)
	running := cpWT.startCodex(live, "read app.txt")
	// Another one there works and ends: its handoff stays uncommitted in the linked worktree.
	done := cpWT.runCodex([]OpenAIResponse{Patch(addToken), OpenAIText(codexReply)}, "implement the token refresh endpoint")
	names, all := cpWT.handoffs()
	if !strings.Contains(all, codexReply) {
		t.Fatalf("the Codex session %.8s wrote no handoff in the linked worktree: %v", done.ID, names)
	}
	if st := cp.run(cp.bin, "status"); !strings.Contains(st, "live  Codex  ../"+filepath.Base(wt)+" (feat/x)") {
		t.Errorf("status in the main worktree does not show the live Codex session:\n%s", st)
	}

	// Claude Code starts in the main worktree.
	cl := cp.runClaude([]AnthropicResponse{AnthropicText("Picking up the refresh endpoint.")}, "-p", "pick up where the last session stopped", "--allowedTools", tools)
	ctx := strings.Join(cp.firstContexts(cl, cl.ID), "\n")
	requireAll(t, "Claude Code's context in the main worktree", ctx, goal, codexReply,
		"from worktree ../"+filepath.Base(wt)+", branch feat/x",
		"Also at work: Codex in worktree ../"+filepath.Base(wt)+" (branch feat/x) has worked on this stream")
	t.Logf("Claude Code's context beside a live Codex session:\n%s", ctx)

	// The live Codex session ends (killed); the next start no longer names it.
	running.kill()
	cl2 := cp.runClaude([]AnthropicResponse{AnthropicText("Going on.")}, "-p", "go on", "--allowedTools", tools)
	ctx2 := strings.Join(cp.firstContexts(cl2, cl2.ID), "\n")
	requireAll(t, "the next start", ctx2, goal, codexReply)
	if strings.Contains(ctx2, "Also at work: Codex") {
		t.Errorf("the next start still names the killed Codex session:\n%s", ctx2)
	}
}
