package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// agentsOf are the agents the work stream's handoffs name, in order.
func (p *project) agentsOf(names []string) []string {
	p.t.Helper()
	re := regexp.MustCompile(`(?m)^agent: "?([a-z]+)"?$`)
	var out []string
	for _, n := range names {
		m := re.FindStringSubmatch(p.read(filepath.Join("thoughts", "shared", "handoffs", workStream, n)))
		if m == nil {
			p.t.Fatalf("handoff %s names no agent", n)
		}
		out = append(out, m[1])
	}
	return out
}

// TestCopilotBesideClaudeCode: a repository registered for both Claude
// Code (.claude/settings.json, which Copilot CLI reads too) and Copilot
// CLI. Under Copilot, the Claude Code registration steps aside: one
// injection per session, handoffs labelled copilot. Claude Code then picks
// up Copilot's handoff, attributed, and labels its own claude. With
// Copilot's registration gone, the Claude Code one acts as Copilot under
// Copilot (its output shape, its label), never as Claude Code.
func TestCopilotBesideClaudeCode(t *testing.T) {
	cp := newCopilotProject(t)
	cp.claude, cp.config = claudeBinary(t), t.TempDir()
	cp.api = NewAnthropic()
	t.Cleanup(cp.api.Close)
	cp.run(cp.bin, "init")
	if s := cp.read(".claude/settings.json"); strings.Contains(s, `"PreCompact": [{"matcher": ""`) || !strings.Contains(s, `"matcher": "*"`) {
		t.Fatalf("init wrote a PreCompact matcher Copilot CLI rejects:\n%s", s)
	}
	cp.initCopilot(workStream, copilotGoal, copilotNow, copilotNext)

	r1 := cp.runCopilot([]ChatResponse{
		ChatCall("create", map[string]any{"path": filepath.Join(cp.dir, "made.txt"), "file_text": "made by copilot\n"}),
		ChatCall("bash", map[string]any{"command": "false", "description": "fail"}),
		ChatText("Made made.txt."),
	}, nil, "-p", "make made.txt", "--yolo")
	hooks := cp.hookRecords(r1.ID)
	if n := strings.Count(hooks, `"output":{"additionalContext":"continuity`); n != 1 {
		t.Errorf("%d injections in one Copilot session, want 1:\n%s", n, hooks)
	}
	first := turns(r1.Requests)
	if len(first) == 0 || strings.Count(strings.Join(userTexts(first[0]), "\n"), copilotGoal) != 1 {
		t.Errorf("the first request does not hold the ledger exactly once")
	}
	names, _ := cp.handoffs()
	if got := cp.agentsOf(names); strings.Join(got, ",") != "copilot" {
		t.Fatalf("handoffs of the Copilot session by %v, want one by copilot", got)
	}

	// Claude Code picks up Copilot's handoff, saying who wrote it.
	s := cp.runClaude([]AnthropicResponse{
		AnthropicTool("Write", map[string]any{"file_path": filepath.Join(cp.dir, "claude.txt"), "content": "by claude\n"}),
		AnthropicText("Wrote claude.txt."),
	}, "-p", "go on", "--allowedTools", "Write")
	ctx := strings.Join(cp.firstContexts(s, s.ID), "\n")
	if !strings.Contains(ctx, "made.txt") || !strings.Contains(ctx, "Copilot CLI") {
		t.Errorf("Claude Code's first request lacks Copilot's handoff, attributed:\n%s", ctx)
	}
	names, _ = cp.handoffs()
	if got := cp.agentsOf(names); strings.Join(got, ",") != "copilot,claude" {
		t.Errorf("handoffs by %v, want copilot's then claude's", got)
	}

	// Copilot's own registration gone: the Claude Code one serves Copilot.
	cp.run(cp.bin, "uninstall", "--agent", "copilot")
	r2 := cp.runCopilot([]ChatResponse{
		ChatCall("bash", map[string]any{"command": "echo second > second.txt", "description": "write"}),
		ChatText("Wrote second.txt."),
	}, nil, "-p", "write second.txt", "--yolo")
	names, _ = cp.handoffs()
	if got := cp.agentsOf(names); strings.Join(got, ",") != "copilot,claude,copilot" {
		t.Errorf("handoffs by %v, want the last by copilot", got)
	}
	second := turns(r2.Requests)
	if len(second) == 0 || strings.Count(strings.Join(userTexts(second[0]), "\n"), copilotGoal) != 1 {
		t.Errorf("the Claude Code registration did not give Copilot the ledger once (is .claude/settings.json rejected?)")
	}
}
