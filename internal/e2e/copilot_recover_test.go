//go:build linux || darwin

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCopilotRecoverKilledSession: a Copilot session writes a file, runs a
// command and is killed while the model never answers (no agentStop, no
// sessionEnd). The next session's first request says the killed one was
// recovered, and the recovered handoff, labelled copilot, holds its file
// and command.
func TestCopilotRecoverKilledSession(t *testing.T) {
	cp := newCopilotProject(t)
	cp.initCopilot(workStream, copilotGoal, copilotNow, copilotNext)
	const command = "echo built > build.log"

	dead := NewChat(
		ChatCall("create", map[string]any{"path": filepath.Join(cp.dir, "token.go"), "file_text": "package token\n"}),
		ChatCall("bash", map[string]any{"command": command, "description": "build"}),
		ChatHang(),
	)
	t.Cleanup(dead.Close)
	cmd := exec.Command(cp.copilot, "--no-auto-update", "--trust-folder", "-p", "write the token file and build it", "--yolo")
	cmd.Dir = cp.dir
	cmd.Env = append(append([]string(nil), cp.env...), "COPILOT_HOME="+cp.home, "XDG_CACHE_HOME="+filepath.Join(copilotCache(), "xdg-cache"),
		"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+dead.URL+"/v1", "COPILOT_MODEL=claude-sonnet-4.6",
		"COPILOT_AUTO_UPDATE=false", "NO_COLOR=1")
	a := startLive(t, cmd, nil, dead.Pending)
	if _, err := os.Stat(filepath.Join(cp.dir, "build.log")); err != nil {
		t.Fatalf("the killed session's command did not run: %v", err)
	}
	a.id = cp.sessionID()
	time.Sleep(time.Second) // Copilot writes its events about every half second
	cp.requireOwnClient(a)
	a.kill()

	next := cp.runCopilot([]ChatResponse{ChatText("Picking up the build.")}, nil, "-p", "carry on", "--yolo")
	reqs := turns(next.Requests)
	if len(reqs) == 0 {
		t.Fatal("the next session made no model request")
	}
	ctx := strings.Join(userTexts(reqs[0]), "\n")
	recovered, _ := filepath.Glob(filepath.Join(cp.dir, "thoughts", "shared", "handoffs", workStream, "*_recovered_*.md"))
	if len(recovered) != 1 {
		t.Fatalf("recovered handoffs %q, want one\nthe next session's context:\n%s", recovered, ctx)
	}
	requireAll(t, "the next session's context", ctx, "The previous session ("+a.id+") ended without a handoff")
	src, _ := os.ReadFile(recovered[0])
	requireAll(t, "the recovered handoff", string(src), "event: \"recovered\"", "agent: \"copilot\"", "agent_session: \""+a.id+"\"",
		"token.go", command)
}
