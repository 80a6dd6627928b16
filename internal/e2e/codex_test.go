package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	codexSummary = "SUMMARY: src/token.go added and app.txt patched; the logout endpoint is next."
	codexReply   = "The refresh endpoint is in place; app.txt is patched."

	addToken = "*** Begin Patch\n*** Add File: src/token.go\n+package auth\n+\n+func Refresh() error { return nil }\n*** End Patch\n"
	patchApp = "*** Begin Patch\n*** Update File: app.txt\n@@\n line one\n-line two\n+line two (patched)\n*** End Patch\n"
	// badPatch names a file that does not exist: Codex refuses it.
	badPatch  = "*** Begin Patch\n*** Update File: missing.txt\n@@\n-nothing\n+something\n*** End Patch\n"
	moveNotes = "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: docs/notes.md\n@@\n-keep\n+kept\n*** End Patch\n"

	// codexCliff is the size past which Codex shows the model only a
	// head-and-tail preview of a hook's context, in bytes.
	codexCliff = 10000
)

// TestCodexContinuity drives the real Codex CLI through a work session
// (exec_command and apply_patch calls, one of each failing) that Codex
// compacts by itself mid-turn, resumes it, and starts afresh on a ledger
// far larger than Codex's injection cliff. The ledger must reach the model
// at the start and after the compaction, the handoffs must record the
// work, and the large ledger must arrive inline, budgeted.
func TestCodexContinuity(t *testing.T) {
	cp := newCodexProject(t, workStream, goal)
	cp.run(cp.bin, "now", ledgerNow)
	cp.run(cp.bin, "next", ledgerNext)

	// 1. The work, with an automatic compaction after the move.
	cp.oai.SetSummary(codexSummary)
	work := cp.runCodex([]OpenAIResponse{
		Exec("mkdir -p src"),
		Patch(addToken),
		Patch(patchApp),
		Exec("ls does-not-exist"),
		Patch(badPatch),
		Patch(moveNotes).Tokens(60000), // over the limit: Codex compacts before its next request
		Exec("git status --short"),
		OpenAIText(codexReply),
	}, "implement the token refresh endpoint")
	if got := cp.read("app.txt"); !strings.Contains(got, "(patched)") {
		t.Fatalf("apply_patch did not run: app.txt = %q", got)
	}
	if cp.oai.Pending() != 0 {
		t.Fatalf("%d scripted replies were not asked for", cp.oai.Pending())
	}
	printed := cp.hookContexts(work.ID)
	if len(printed) != 2 {
		t.Fatalf("the rollout records %d SessionStart contexts, want 2 (startup, compact)", len(printed))
	}
	reqs := work.Requests
	first := codexModelRequests(reqs)[0]
	start := cp.carried(first, printed[:1], "startup")[0]
	requireAll(t, "the startup context", start, goal, ledgerNow, ledgerNext, "CONTINUITY_"+workStream+".md")
	t.Logf("startup context (%d bytes):\n%s", len(start), start)

	at := -1
	for i, r := range reqs {
		if r.Compaction {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("Codex did not compact: no compaction request")
	}
	after := codexModelRequests(reqs[at+1:])
	if len(after) == 0 {
		t.Fatal("no model request after the compaction")
	}
	prePath := cp.preCompactHandoff(work.ID, codexSummary)
	compact := cp.carried(after[0], printed[1:], "after compaction")[0]
	requireAll(t, "the context after compaction", compact, goal, ledgerNow, prePath+" (latest handoff)")
	t.Logf("context after compaction (%d bytes):\n%s", len(compact), compact)

	names, all := cp.handoffs()
	t.Logf("handoffs: %v", names)
	requireAll(t, "the handoffs", all,
		"src/token.go", "app.txt", "docs/notes.md", // the patched files
		"mkdir -p src", "ls does-not-exist", // the commands (git status only looks: left out; ls failed: an error)
		"exit 2", "missing.txt", // the failing command and the refused patch
		codexSummary, codexReply)
	pre := cp.handoff([]string{filepath.Base(prePath)}, "_pre-compact_")
	requireAll(t, "the pre-compact handoff's files", pre["Files touched"], "src/token.go", "app.txt", "docs/notes.md")
	if strings.Contains(pre["Files touched"], "missing.txt") {
		t.Errorf("the refused patch's file is listed as touched:\n%s", pre["Files touched"])
	}
	if !regexp.MustCompile(`(?m)^agent: "?codex"?$`).MatchString(cp.read(prePath)) {
		t.Errorf("the pre-compact handoff does not say Codex wrote it:\n%s", cp.read(prePath))
	}

	// 2. Resume: SessionStart(resume) brings goal, now and next back.
	resumed := cp.runCodex([]OpenAIResponse{OpenAIText("Working on the logout endpoint.")},
		"resume", work.ID, "continue with the logout endpoint")
	if resumed.ID != work.ID {
		t.Errorf("resume changed the session id: %s -> %s", work.ID, resumed.ID)
	}
	again := cp.hookContexts(work.ID)
	if len(again) <= len(printed) {
		t.Fatalf("resume: no new SessionStart context in the rollout (%d before, %d after)", len(printed), len(again))
	}
	resume := cp.carried(codexModelRequests(resumed.Requests)[0], again[len(printed):], "resume")[0]
	requireAll(t, "the resume context", resume, goal, ledgerNow, ledgerNext)

	// 3. A ledger far larger than Codex's cliff arrives inline, budgeted.
	for i := range 100 {
		cp.run(cp.bin, "done", "Step "+itoa(i)+": "+strings.Repeat("migrated one more handler to the refresh-token flow and checked its tests; ", 4))
	}
	for i := range 20 {
		cp.run(cp.bin, "decide", "Decision "+itoa(i)+": keep refresh tokens in an httpOnly cookie", "--why", strings.Repeat("XSS cannot read them; ", 8))
	}
	if fi, err := os.Stat(filepath.Join(cp.dir, "thoughts", "ledgers", "CONTINUITY_"+workStream+".md")); err != nil || fi.Size() < 3*codexCliff {
		t.Fatalf("the ledger is not far over the cliff: %v, %v", fi, err)
	}
	big := cp.runCodex([]OpenAIResponse{OpenAIText("The logout endpoint is next.")}, "what is next?")
	ctxs := cp.hookContexts(big.ID)
	if len(ctxs) != 1 {
		t.Fatalf("the large-ledger session recorded %d contexts, want 1", len(ctxs))
	}
	large := cp.carried(codexModelRequests(big.Requests)[0], ctxs, "large ledger")[0]
	t.Logf("large ledger: context of %d bytes", len(large))
	if len(large) > codexCliff {
		t.Errorf("the context is %d bytes, over Codex's %d-byte cliff", len(large), codexCliff)
	}
	requireAll(t, "the large-ledger context", large, goal, ledgerNow, ledgerNext)
	if strings.Contains(large, "truncated output") {
		t.Errorf("Codex cut the context to a preview:\n%s", large)
	}
	if _, err := os.Stat(filepath.Join(cp.home, "tmp", "hook_outputs")); err == nil {
		t.Error("Codex spilled a hook's output to $TMPDIR/hook_outputs: some context was over its cliff")
	}
}

// TestCodexClaudeHandoff moves one work stream between agents in one
// repository: a Claude Code session is given the handoff of a Codex
// session, and a Codex session the handoff of that Claude Code session.
func TestCodexClaudeHandoff(t *testing.T) {
	const claudeReply = "Drafted the logout endpoint in src/auth/logout.go; it revokes the refresh token."
	cp := newCodexProject(t, workStream, goal)
	cp.claude = claudeBinary(t)
	cp.run(cp.bin, "now", ledgerNow)
	cp.run(cp.bin, "next", ledgerNext)

	// Codex works and ends: its SessionEnd writes a handoff.
	cx := cp.runCodex([]OpenAIResponse{Patch(addToken), OpenAIText(codexReply)}, "implement the token refresh endpoint")
	names, all := cp.handoffs()
	if !strings.Contains(all, codexReply) {
		t.Fatalf("the Codex session %.8s wrote no handoff with its reply: %v", cx.ID, names)
	}

	// Claude Code starts with it, and works (a session with nothing of
	// substance would write no handoff to hand on).
	cl := cp.runClaude([]AnthropicResponse{
		AnthropicTool("Write", map[string]any{"file_path": filepath.Join(cp.dir, "src", "auth", "logout.go"), "content": "package auth\n"}),
		AnthropicText(claudeReply),
	}, "-p", "pick up where the last session stopped", "--allowedTools", tools)
	ctx := strings.Join(cp.firstContexts(cl, cl.ID), "\n")
	requireAll(t, "Claude Code's context", ctx, goal, ledgerNow, codexReply, "Codex")

	// And Codex starts with Claude Code's.
	cx2 := cp.runCodex([]OpenAIResponse{OpenAIText("Continuing with the logout tests.")}, "pick up where the last session stopped")
	got := cp.carried(codexModelRequests(cx2.Requests)[0], cp.hookContexts(cx2.ID), "Codex after Claude Code")
	requireAll(t, "Codex's context", got[0], goal, ledgerNow, claudeReply, "Claude Code")
	t.Logf("Codex's context after Claude Code:\n%s", got[0])
}

// TestCodexAgentDone has the agent itself record progress from inside
// Codex (`continuity done …` through exec_command, in the workspace-write
// sandbox users run Codex in, where the repository's .git is read-only):
// the item must reach the ledger the session's hooks use.
func TestCodexAgentDone(t *testing.T) {
	const item = "Refresh endpoint wired into the router"
	cp := newCodexProject(t, workStream, goal)
	cp.run(cp.bin, "next", item)
	run := cp.runCodex([]OpenAIResponse{
		Exec(strconvQuote(cp.bin) + " done " + strconvQuote(item) + "; echo exit=$?"),
		OpenAIText("Recorded."),
	}, "record what you finished")
	var out string
	for _, r := range codexModelRequests(run.Requests) {
		var req struct {
			Input []struct{ Type, Output string }
		}
		_ = json.Unmarshal(r.Body, &req)
		for _, it := range req.Input {
			if it.Type == "function_call_output" {
				out = it.Output
			}
		}
	}
	var l struct{ Done, Next []string }
	if err := json.Unmarshal([]byte(cp.run(cp.bin, "--json", "show", workStream)), &l); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(l.Done, item) || slices.Contains(l.Next, item) {
		t.Errorf("the agent's `continuity done` did not reach the ledger (done %q, next %q); the command printed:\n%s", l.Done, l.Next, out)
	}
}
