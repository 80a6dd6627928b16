package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSubagent: the real client runs a subagent (the Agent tool) that
// writes a file. The subagent is given the short context (goal, now, next;
// subagents: short) through SubagentStart; its hooks write no handoff of
// their own; the session's one handoff at its end counts the subagent's
// file as the session's work.
func TestSubagent(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	p.run(p.bin, "now", ledgerNow)
	p.run(p.bin, "next", ledgerNext)
	p.run(p.bin, "decide", "RS256, not HS256", "--why", "keys rotate per service")
	sub := filepath.Join(p.dir, "src", "sub.go")
	cl := p.runClaude([]AnthropicResponse{
		AnthropicTool("Agent", map[string]any{"description": "write a file", "prompt": "Write src/sub.go", "subagent_type": "general-purpose"}),
		AnthropicTool("Write", map[string]any{"file_path": sub, "content": "package sub\n"}),
		AnthropicText("Wrote src/sub.go."),
		AnthropicText("The subagent wrote src/sub.go."),
	}, "-p", "use a subagent to write src/sub.go", "--allowedTools", "Agent "+tools)

	const marker = "SubagentStart hook additional context: "
	var given string
	for _, r := range cl.Requests {
		for _, text := range texts(r.Body) {
			if i := strings.Index(text, marker); i >= 0 {
				given = text[i+len(marker):]
			}
		}
	}
	if given == "" {
		t.Fatalf("no request carries the subagent's context (%d requests)", len(cl.Requests))
	}
	requireAll(t, "the subagent's context", given, goal, ledgerNow, ledgerNext, "(subagent)")
	if strings.Contains(given, "RS256") {
		t.Errorf("the subagent was given more than goal, now and next:\n%s", given)
	}

	names, all := p.handoffs()
	if len(names) != 1 {
		t.Fatalf("handoffs %q, want the session's one", names)
	}
	requireAll(t, "the session's handoff", all, "src/sub.go")
}
