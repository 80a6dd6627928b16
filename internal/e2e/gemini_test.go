package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	geminiSessionID = "6a1f0c2e-5b7d-4e3a-9c41-0d2b8e7f6a53"
	geminiLastReply = "Added the refresh endpoint and noted the session change; the test run fails: no tests yet."
	geminiSnapshot  = "SNAPSHOT: token.go holds the refresh endpoint; README notes the JWT switch."
	geminiFailing   = "ls no-such-dir-e2e"
)

// geminiWork is a session of ten model calls: a write_file, a replace, a
// failing shell command and six more tool calls, then a reply.
func geminiWork(dir string) []GeminiResponse {
	return []GeminiResponse{
		GeminiTool("write_file", map[string]any{"file_path": filepath.Join(dir, "src", "auth", "token.go"),
			"content": "package auth\n\n// Refresh issues a new access token.\nfunc Refresh() {}\n"}),
		GeminiTool("replace", map[string]any{"file_path": filepath.Join(dir, "README.md"),
			"old_string": "Sessions use cookies.", "new_string": "Sessions use short-lived JWTs.", "instruction": "note the JWT switch"}),
		GeminiTool("run_shell_command", map[string]any{"command": geminiFailing, "description": "look for the tests"}),
		GeminiTool("read_file", map[string]any{"file_path": filepath.Join(dir, "README.md")}),
		GeminiTool("run_shell_command", map[string]any{"command": "git status --short", "description": "what changed"}),
		GeminiTool("read_file", map[string]any{"file_path": filepath.Join(dir, "src", "auth", "token.go")}),
		GeminiTool("run_shell_command", map[string]any{"command": "gofmt -l src", "description": "format check"}),
		GeminiTool("read_file", map[string]any{"file_path": filepath.Join(dir, "README.md")}),
		GeminiTool("run_shell_command", map[string]any{"command": "git diff --stat", "description": "diff"}),
		GeminiText(geminiLastReply),
	}
}

// TestGeminiSession runs real Gemini CLI sessions against continuity's
// hooks: the ledger reaches the first model request; a session of ten model
// calls (PreCompress fires before each) leaves one handoff, at its end,
// holding the files, the error and the last reply; a resumed session that
// Gemini CLI compresses gets one pre-compact handoff and carries goal, now
// and next into the first request after the compression; and a Claude Code
// session in the same repository is given the Gemini handoff.
func TestGeminiSession(t *testing.T) {
	g := newGeminiProject(t)
	g.initGemini(workStream, goal, ledgerNow, ledgerNext)

	// 1. A fresh session of ten model calls.
	s := g.runGemini(geminiWork(g.dir), "-p", "add the token refresh endpoint", "--session-id", geminiSessionID)
	main := mainRequests(s.Requests)
	if len(main) != 10 {
		t.Fatalf("%d main model calls, want 10 (the script's)", len(main))
	}
	first := strings.Join(hookContexts(main[0].Body), "\n")
	for _, want := range []string{"continuity: the ledger of work stream \"" + workStream + "\"", goal, ledgerNow, ledgerNext} {
		if !strings.Contains(first, want) {
			t.Fatalf("the first model request lacks %q; its hook context:\n%s", want, first)
		}
	}
	t.Logf("the first model request's hook context:\n%s", first)
	if !strings.Contains(g.read("src/auth/token.go"), "func Refresh") || !strings.Contains(g.read("README.md"), "JWTs") {
		t.Fatalf("write_file or replace did not run")
	}
	names, all := g.handoffs()
	t.Logf("handoffs after a session of %d model calls: %d %v", len(main), len(names), names)
	if len(names) != 1 || !strings.Contains(names[0], "session-end") {
		t.Fatalf("handoffs %v, want exactly one, at the session's end (PreCompress fired before each of %d calls)", names, len(main))
	}
	for _, want := range []string{"src/auth/token.go", "README.md", geminiFailing, geminiLastReply} {
		if !strings.Contains(all, want) {
			t.Errorf("the session-end handoff lacks %q:\n%s", want, all)
		}
	}
	t.Logf("the session-end handoff:\n%s", all)
	if !regexp.MustCompile(`(?m)^agent: "?gemini"?\r?$`).MatchString(all) {
		t.Errorf("the handoff does not say Gemini CLI wrote it (agent: gemini):\n%s", all)
	}

	// 2. The same session resumed: a read_file reply reporting 900,000
	// prompt tokens (over 0.5 x 1,048,576) makes Gemini CLI compress before
	// its next model call.
	g.gapi.SetSummary(geminiSnapshot)
	s = g.runGemini([]GeminiResponse{
		{Call: &Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(g.dir, "README.md")}}, PromptTokens: 900000},
		GeminiText("Resumed after the compression."),
	}, "-p", "go on with the logout endpoint", "--resume", geminiSessionID)
	var compressed, after int
	for i, r := range s.Requests {
		if r.Compression {
			compressed++
		}
		if r.Main() && compressed > 0 && after == 0 {
			after = i
		}
	}
	if compressed != 2 || after == 0 {
		t.Fatalf("Gemini CLI did not compress (%d compression calls, want 2, then a model call)", compressed)
	}
	body := s.Requests[after].Body
	sent := strings.Join(geminiTexts(body), "\n")
	if !strings.Contains(sent, geminiSnapshot) {
		t.Fatalf("the request after the compression lacks the snapshot")
	}
	refresh := strings.Join(hookContexts(body), "\n")
	t.Logf("the first model request after the compression: its hook context:\n%s", refresh)
	for _, want := range []string{goal, ledgerNow, ledgerNext} {
		if !strings.Contains(refresh, want) {
			t.Errorf("the first request after the compression lacks %q; its hook context:\n%s", want, refresh)
		}
	}
	names, _ = g.handoffs()
	var pre []string
	for _, n := range names {
		if strings.Contains(n, "pre-compact") {
			pre = append(pre, n)
		}
	}
	t.Logf("handoffs after the resumed, compressed session: %v", names)
	if len(pre) != 1 {
		t.Errorf("pre-compact handoffs %v, want exactly one (PreCompress fired before each model call, one compressed)", pre)
	}

	// 3. Claude Code in the same repository picks up the Gemini handoff.
	claudeBin, err := findClaude()
	if err != nil {
		missingClient(t, "Claude Code "+claudeVersion+" (CLAUDE_BIN) for the cross-agent step", err)
	}
	g.claude, g.config, g.api = claudeBin, t.TempDir(), NewAnthropic()
	t.Cleanup(g.api.Close)
	g.run(g.bin, "init")
	cs := g.runClaude([]AnthropicResponse{AnthropicText("Picking up from Gemini CLI.")}, "-p", "continue", "--allowedTools", tools)
	reqs := modelRequests(cs.Requests)
	if len(reqs) == 0 {
		t.Fatal("Claude Code made no model request")
	}
	ctx := strings.Join(injected(reqs[0].Body), "\n")
	t.Logf("Claude Code's SessionStart context:\n%s", ctx)
	latest := names[len(names)-1]
	for _, want := range []string{goal, "Gemini CLI", latest} {
		if !strings.Contains(ctx, want) {
			t.Errorf("Claude Code's first request lacks %q; its SessionStart context:\n%s", want, ctx)
		}
	}
}

// TestGeminiRefreshAfterResume: resuming, Gemini CLI rebuilds the history
// without the prompt that carried SessionStart's context. When the project
// gives a resumed session nothing at SessionStart (sources: resume: none),
// BeforeAgent sees that continuity's context left the history and the
// model gets goal, now and next with the prompt, marked as a refresh.
func TestGeminiRefreshAfterResume(t *testing.T) {
	g := newGeminiProject(t)
	g.initGemini(workStream, goal, ledgerNow, ledgerNext)
	g.write(".continuity.yaml", "sources:\n  resume: none\n")

	s := g.runGemini([]GeminiResponse{GeminiText("Looked around.")}, "-p", "look around", "--session-id", geminiSessionID)
	if first := strings.Join(hookContexts(mainRequests(s.Requests)[0].Body), "\n"); !strings.Contains(first, goal) {
		t.Fatalf("the first request lacks the goal; its hook context:\n%s", first)
	}
	s = g.runGemini([]GeminiResponse{GeminiText("Going on.")}, "-p", "go on", "--resume", geminiSessionID)
	main := mainRequests(s.Requests)
	if len(main) == 0 {
		t.Fatal("no model request after the resume")
	}
	sent := strings.Join(geminiTexts(main[0].Body), "\n")
	if strings.Contains(sent, "look around") {
		t.Fatalf("the resumed history kept the first prompt: Gemini CLI no longer drops it, the refresh may be needless")
	}
	ctx := strings.Join(hookContexts(main[0].Body), "\n")
	t.Logf("the first request after the resume: its hook context:\n%s", ctx)
	for _, want := range []string{goal, ledgerNow, ledgerNext} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the first request after the resume lacks %q", want)
		}
	}
	if strings.Contains(ctx, "restored at session start") {
		t.Errorf("SessionStart injected on resume despite sources: resume: none")
	}
	if n := strings.Count(ctx, "Goal: "); n != 1 {
		t.Errorf("goal given %d times, want once", n)
	}
}
