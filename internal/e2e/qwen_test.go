//go:build linux || darwin

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	qwenGoal = "Ship the token refresh for the qwen e2e"
	qwenNow  = "Wire the refresh endpoint"
)

// TestQwenSession: with the real Qwen Code, `continuity init --agent qwen`
// registers hooks it runs; the ledger reaches the system prompt of the
// first request; a headless session (no SessionEnd: its Stop checkpoints)
// is recovered at the next start, its recovered handoff labelled qwen with
// its files, commands and failing command; a manual compaction writes a
// pre-compact handoff holding Qwen Code's own summary, and the session
// that resumes after it is given goal and now again.
func TestQwenSession(t *testing.T) {
	qp := newQwenProject(t)
	qp.write("app.txt", "line one\nline two\n")
	qp.run("git", "add", "app.txt")
	qp.run("git", "commit", "-q", "-m", "app")
	qp.run(qp.bin, "init", "--agent", "qwen")
	if s := qp.read(".qwen/settings.json"); !strings.Contains(s, "hook --agent qwen") {
		t.Fatalf("init --agent qwen registered nothing:\n%s", s)
	}
	qp.run(qp.bin, "new", workStream, "--goal", qwenGoal)
	qp.run(qp.bin, "now", qwenNow)
	qp.run("git", "add", "-A")
	qp.run("git", "commit", "-q", "-m", "Register continuity for Qwen Code")

	app := filepath.Join(qp.dir, "app.txt")
	reqs := turns(qp.runQwen([]ChatResponse{
		ChatCall("write_file", map[string]any{"file_path": filepath.Join(qp.dir, "made.txt"), "content": "made by write_file\n"}),
		ChatCall("run_shell_command", map[string]any{"command": "ls /nonexistent-e2e-dir", "description": "list a missing dir"}),
		ChatCall("read_file", map[string]any{"file_path": app}),
		ChatCall("edit", map[string]any{"file_path": app, "old_string": "line two", "new_string": "line two (edited)"}),
		ChatText("Made made.txt and edited app.txt."),
	}, "--yolo", "make made.txt and edit app.txt"))
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	requireAll(t, "the first request's system prompt", systemText(reqs[0]), qwenGoal, qwenNow)
	if s, _ := os.ReadFile(app); !strings.Contains(string(s), "(edited)") {
		t.Fatalf("the session did not edit app.txt: %q", s)
	}
	ids := qp.chats()
	if len(ids) != 1 {
		t.Fatalf("chats %q, want one", ids)
	}
	id := ids[0]
	if names, _ := qp.handoffs(); len(names) != 0 {
		t.Errorf("handoffs %q after a headless turn: its Stop only checkpoints", names)
	}

	// The next session's start recovers the first one, over without a
	// handoff: its client is gone.
	next := turns(qp.runQwen([]ChatResponse{ChatText("Picking it up.")}, "--yolo", "carry on"))
	if len(next) == 0 {
		t.Fatal("the next session made no model request")
	}
	requireAll(t, "the next session's system prompt", systemText(next[0]), qwenGoal, "The previous session ("+id+") ended without a handoff")
	recovered, _ := filepath.Glob(filepath.Join(qp.dir, "thoughts", "shared", "handoffs", workStream, "*_recovered_*.md"))
	if len(recovered) != 1 {
		t.Fatalf("recovered handoffs %q, want one", recovered)
	}
	src, _ := os.ReadFile(recovered[0])
	requireAll(t, "the recovered handoff", string(src), `agent: "qwen"`, `agent_session: "`+id+`"`, "made.txt", "app.txt",
		"ls /nonexistent-e2e-dir")
	names, _ := qp.handoffs()
	h := qp.handoff(names, "_recovered_")
	if !strings.Contains(h["Errors"], "ls /nonexistent-e2e-dir") {
		t.Errorf("the failing command is not among the errors: %q", h["Errors"])
	}

	// A manual compaction of the first session: a pre-compact handoff with
	// Qwen Code's summary; the resumed session gets goal and now again.
	ctx, cancel := context.WithTimeout(context.Background(), qwenTimeout)
	defer cancel()
	if out, err := qp.command(ctx, "--yolo", "--resume", id, "/compress").CombinedOutput(); err != nil {
		t.Fatalf("qwen --resume %s /compress: %v\n%s", id, err, out)
	}
	names, _ = qp.handoffs()
	pre := ""
	for _, n := range names {
		if strings.Contains(n, "_pre-compact_") {
			pre = n
		}
	}
	if pre == "" {
		t.Fatalf("no pre-compact handoff after /compress: %q", names)
	}
	body := qp.read(filepath.Join("thoughts", "shared", "handoffs", workStream, pre))
	requireAll(t, "the pre-compact handoff", body, `agent: "qwen"`, "trigger: \"manual\"", qwenSummary)
	if !regexp.MustCompile(`(?m)^agent: "?qwen"?$`).MatchString(body) {
		t.Errorf("handoff not labelled qwen:\n%s", body)
	}
	resumed := turns(qp.runQwen([]ChatResponse{ChatText("Going on.")}, "--yolo", "--resume", id, "go on"))
	if len(resumed) == 0 {
		t.Fatal("the resumed session made no model request")
	}
	requireAll(t, "the resumed session's system prompt", systemText(resumed[0]), qwenGoal, qwenNow)
}
