package e2e

import (
	"strings"
	"testing"
)

// TestHarnessWithRealClient checks the harness itself, without continuity: a
// shell hook's additionalContext must reach the mock, and a scripted Write
// must run.
func TestHarnessWithRealClient(t *testing.T) {
	p := newProject(t)
	p.write("hook.sh", "#!/bin/sh\ncat >/dev/null\n"+
		`echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"smoke-goal-1234"}}'`+"\n")
	p.run("chmod", "+x", "hook.sh")
	p.write(".claude/settings.json", `{"hooks":{"SessionStart":[{"matcher":"","hooks":[{"type":"command","command":"`+
		p.dir+`/hook.sh"}]}]}}`)

	s := p.runClaude([]AnthropicResponse{
		AnthropicTool("Write", map[string]any{"file_path": p.dir + "/out.txt", "content": "written\n"}),
		AnthropicText("all done"),
	}, "-p", "write the file", "--allowedTools", "Write")

	if s.Result != "all done" {
		t.Errorf("result = %q, want the scripted text", s.Result)
	}
	if got := p.read("out.txt"); got != "written\n" {
		t.Errorf("out.txt = %q", got)
	}
	reqs := modelRequests(s.Requests)
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (prompt, tool result)", len(reqs))
	}
	ctx := injected(reqs[0].Body)
	if len(ctx) != 1 || !strings.HasPrefix(ctx[0], "smoke-goal-1234") {
		t.Errorf("injected contexts = %q, want one starting with smoke-goal-1234", ctx)
	}
	if errs := p.toolErrors(s.ID); len(errs) > 0 {
		t.Errorf("tool errors: %v", errs)
	}
}
