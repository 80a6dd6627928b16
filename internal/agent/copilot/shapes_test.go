package copilot

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/transcript"
)

// event is one events.jsonl line, written to the shape of public Copilot
// CLI sessions (1.0.12 to 1.0.74) and of VS Code's agent.
func event(typ string, data map[string]any, extra ...string) string {
	r := map[string]any{"type": typ, "data": data, "id": "e", "timestamp": "2026-07-24T11:15:59.632Z"}
	for i := 0; i+1 < len(extra); i += 2 {
		r[extra[i]] = extra[i+1]
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// TestShapes: PowerShell commands, a failed tool's message, the token
// count of session.shutdown (older versions: currentTokens), the
// client's own user messages and a subagent's task and replies, which are
// not the session's.
func TestShapes(t *testing.T) {
	lines := []string{
		event("session.start", map[string]any{"context": map[string]any{"cwd": "/w/proj"}, "selectedModel": "claude-fable-5"}),
		event("user.message", map[string]any{"content": "fix the flaky e2e run", "attachments": []any{}}),
		event("user.message", map[string]any{"content": "<system_reminder>\nThe tools listed below are deferred.\n</system_reminder>", "source": "system"}),
		event("user.message", map[string]any{"content": "<skill-context name=\"writing-plans\">\nBase directory for this skill: /h/s\n</skill-context>", "source": "skill-writing-plans"}),
		event("tool.execution_start", map[string]any{"toolCallId": "p1", "toolName": "powershell", "arguments": map[string]any{"command": "npm test 2>&1 | Select-Object -Last 5", "description": "Run the tests"}}),
		event("tool.execution_complete", map[string]any{"toolCallId": "p1", "success": true, "result": map[string]any{"content": "Tests:       2 failed, 40 passed, 42 total\n<shellId: 0 completed with exit code 0>"}}),
		event("tool.execution_start", map[string]any{"toolCallId": "v1", "toolName": "view", "arguments": map[string]any{"path": "/w/proj/e2e/login.spec.ts"}}),
		event("tool.execution_complete", map[string]any{"toolCallId": "v1", "success": false, "error": map[string]any{"message": "Path does not exist", "code": "failure"}}),
		event("tool.execution_start", map[string]any{"toolCallId": "e1", "toolName": "edit", "arguments": map[string]any{"path": "/w/proj/e2e/auth.spec.ts"}}),
		event("tool.execution_complete", map[string]any{"toolCallId": "e1", "success": false, "error": map[string]any{"message": "Denied by preToolUse hook", "code": "denied"}}),
		event("tool.execution_start", map[string]any{"toolCallId": "t1", "toolName": "task", "arguments": map[string]any{"agent_type": "car", "prompt": "# Review the e2e fix"}}),
		event("subagent.started", map[string]any{"toolCallId": "t1", "agentName": "car"}, "agentId", "t1"),
		event("user.message", map[string]any{"content": "# Review the e2e fix\n\nYou are a reviewer."}, "agentId", "t1"),
		event("assistant.message", map[string]any{"content": "The fix looks right.", "parentToolCallId": "t1"}, "agentId", "t1"),
		event("tool.execution_start", map[string]any{"toolCallId": "s1", "toolName": "bash", "arguments": map[string]any{"command": "git commit -am review"}, "parentToolCallId": "t1"}, "agentId", "t1"),
		event("tool.execution_complete", map[string]any{"toolCallId": "s1", "success": true, "result": map[string]any{"content": "[fix 1a2b3c4] review"}, "parentToolCallId": "t1"}, "agentId", "t1"),
		event("assistant.message", map[string]any{"content": "Two tests still fail; next: the auth spec."}),
		event("session.shutdown", map[string]any{"shutdownType": "routine", "currentModel": "claude-fable-5", "currentTokens": 151750, "systemTokens": 35675}),
	}
	f, err := transcript.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), newDecoder("/w/proj", nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fix the flaky e2e run"}; !slices.Equal(f.Prompts, want) {
		t.Errorf("prompts %q, want %q", f.Prompts, want)
	}
	if want := []string{"npm test 2>&1 | Select-Object -Last 5", "git commit -am review"}; !slices.Equal(f.Commands, want) {
		t.Errorf("commands %q, want %q", f.Commands, want)
	}
	if len(f.Checks) != 1 || f.Checks[0].Command != "npm test" || f.Checks[0].Outcome != "failed" {
		t.Errorf("checks %+v, want npm test failed (its summary line, the pipe's exit being 0)", f.Checks)
	}
	if want := []string{"view: Path does not exist", "edit e2e/auth.spec.ts: Denied by preToolUse hook"}; !slices.Equal(f.Errors, want) {
		t.Errorf("errors %q, want %q", f.Errors, want)
	}
	if f.LastAssistant != "Two tests still fail; next: the auth spec." {
		t.Errorf("last reply %q: a subagent's is not the session's", f.LastAssistant)
	}
	if f.Tokens != 151750 || f.Model != "claude-fable-5" {
		t.Errorf("tokens %d model %q, want session.shutdown's", f.Tokens, f.Model)
	}
}
