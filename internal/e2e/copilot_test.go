package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	copilotStream = workStream
	copilotGoal   = "Ship the token refresh for the copilot e2e"
	copilotNow    = "Wire the refresh endpoint"
	copilotNext   = "Write the logout test"
)

// TestCopilotSession: with the real Copilot CLI, the ledger reaches the
// first model request as its own user message; a session writes a handoff
// labelled copilot with its files, commands and failing command; a manual
// and an automatic compaction each write one, the next handoff carries the
// compaction summary, and goal, now and next are back in the first request
// after a compaction.
func TestCopilotSession(t *testing.T) {
	cp := newCopilotProject(t)
	cp.write("app.txt", "line one\nline two\n")
	cp.run("git", "add", "app.txt")
	cp.run("git", "commit", "-q", "-m", "app")
	cp.initCopilot(copilotStream, copilotGoal, copilotNow, copilotNext)

	r1 := cp.runCopilot([]ChatResponse{
		ChatCall("create", map[string]any{"path": filepath.Join(cp.dir, "made.txt"), "file_text": "made by create\n"}),
		ChatCall("bash", map[string]any{"command": "mkdir /nonexistent-e2e-dir/sub", "description": "make a dir where none can be"}),
		ChatCall("edit", map[string]any{"path": filepath.Join(cp.dir, "app.txt"), "old_str": "line two", "new_str": "line two (edited)"}),
		ChatText("Made made.txt and edited app.txt."),
	}, nil, "-p", "make made.txt and edit app.txt", "--yolo")
	first := turns(r1.Requests)
	if len(first) == 0 {
		t.Fatalf("no model request; stderr: %s", r1.Stderr)
	}
	ctx := userTexts(first[0])
	if !anyContains(ctx, copilotGoal) || !anyContains(ctx, "continuity") {
		t.Fatalf("the ledger is not in the first request's user messages: %q\nhooks: %s", ctx, cp.hookRecords(r1.ID))
	}
	names, _ := cp.handoffs()
	end := cp.handoff(names, "_session-end_")
	for _, want := range []string{"made.txt", "app.txt"} {
		if !strings.Contains(end["Files touched"], want) {
			t.Errorf("session-end handoff's files lack %s:\n%s", want, end["Files touched"])
		}
	}
	if !strings.Contains(end["Commands"], "mkdir /nonexistent-e2e-dir/sub") {
		t.Errorf("commands: %q", end["Commands"])
	}
	if all := strings.Join(mapValues(end), "\n"); !strings.Contains(all, "`mkdir /nonexistent-e2e-dir/sub`: exit 1") {
		t.Errorf("the failing command is not reported:\n%s", all)
	}
	if head := cp.read(filepath.Join("thoughts", "shared", "handoffs", copilotStream, names[len(names)-1])); !regexp.MustCompile(`(?m)^agent: "?copilot"?$`).MatchString(head) {
		t.Errorf("handoff not labelled copilot:\n%s", head)
	}

	// A manual compaction: only preCompact fires.
	cp.chat.SetSummary("SUMMARY-MANUAL: made.txt was created and app.txt edited.")
	cp.runCopilot(nil, nil, "--resume="+r1.ID, "-p", "/compact")
	names, _ = cp.handoffs()
	cp.handoff(names, "_pre-compact_")

	// The next run resumes after the compaction: goal, now and next in its
	// first request; then an automatic compaction mid-turn.
	cp.chat.SetSummary("SUMMARY-AUTO: the session went on after a manual compaction.")
	r3 := cp.runCopilot([]ChatResponse{
		ChatCall("view", map[string]any{"path": filepath.Join(cp.dir, "app.txt")}).Tokens(19000),
		ChatCall("bash", map[string]any{"command": "touch after-auto-compaction.txt", "description": "touch"}),
		ChatText("Done after auto-compaction."),
	}, []string{"COPILOT_PROVIDER_MAX_PROMPT_TOKENS=20000"}, "--resume="+r1.ID, "-p", "look at app.txt again", "--yolo")
	after := turns(r3.Requests)
	if len(after) == 0 {
		t.Fatal("no model request after the compaction")
	}
	got := strings.Join(userTexts(after[0]), "\n")
	for _, want := range []string{copilotGoal, copilotNow, copilotNext} {
		if !strings.Contains(got, want) {
			t.Errorf("first request after the compaction lacks %q:\n%s", want, got)
		}
	}
	names, all := cp.handoffs()
	if !regexp.MustCompile(`(?m)^trigger: "?auto"?$`).MatchString(all) {
		t.Errorf("no handoff of the automatic compaction among %v", names)
	}
	// The handoff of the automatic compaction carries the manual one's
	// summary; the session's end, the automatic one's.
	if auto := cp.handoff(names, "_pre-compact_"); !strings.Contains(auto["Summary"], "SUMMARY-MANUAL") {
		t.Errorf("the automatic compaction's handoff lacks the manual compaction's summary:\n%s", auto["Summary"])
	}
	if end := cp.handoff(names, "_session-end_"); !strings.Contains(end["Summary"], "SUMMARY-AUTO") {
		t.Errorf("the last handoff lacks the automatic compaction's summary:\n%s", end["Summary"])
	}
	// After the automatic compaction (mid-turn), the next tool result
	// brings goal, now and next back.
	var back bool
	for _, r := range after {
		text := strings.Join(userTexts(r), "\n") + string(r.Body)
		if strings.Contains(text, "SUMMARY-AUTO") && strings.Contains(text, copilotNow) {
			back = true
		}
	}
	if !back {
		t.Errorf("no request after the automatic compaction carries the ledger's now")
	}
	hooks := cp.hookRecords(r1.ID)
	autoAt := strings.Index(hooks, `"trigger":"auto"`)
	refresh := regexp.MustCompile(`"hookType":"postToolUse","success":true,"output":\{"additionalContext":"continuity`).FindStringIndex(hooks)
	if autoAt < 0 || refresh == nil || refresh[0] < autoAt {
		t.Errorf("no postToolUse hook gave continuity's context after the automatic compaction:\n%s", hooks)
	}
	if n := strings.Count(hooks, `"output":{"additionalContext":"continuity`); n != 3 {
		t.Errorf("%d injections, want 3 (start, resume, after the automatic compaction):\n%s", n, hooks)
	}
	if os.Getenv("E2E_DEBUG") != "" {
		t.Logf("handoffs %v:\n%s", names, all)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"\n"+v)
	}
	return out
}
