//go:build linux || darwin

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDroidRecoverKilledSession: a Droid session writes a file, runs a
// command and is killed while the model never answers (no Stop, no
// SessionEnd). The next session's first request says the killed one was
// recovered, and the recovered handoff, labelled droid, holds its file
// and command.
func TestDroidRecoverKilledSession(t *testing.T) {
	dp := newDroidProject(t)
	dp.run(dp.bin, "init", "--agent", "droid")
	dp.run(dp.bin, "new", workStream, "--goal", copilotGoal)
	dp.run("git", "add", "-A")
	dp.run("git", "commit", "-q", "-m", "Register continuity for Droid")
	const command = "echo built > build.log"

	dp.chat.Push(
		ChatCall("Create", map[string]any{"file_path": filepath.Join(dp.dir, "token.go"), "content": "package token\n"}),
		ChatCall("Execute", map[string]any{"command": command, "summary": "build", "riskLevel": "low", "riskLevelReason": "writes a log"}),
		ChatHang(),
	)
	cmd := exec.Command(dp.droid, "exec", "--auto", "high", "write the token file and build it")
	cmd.Dir = dp.dir
	cmd.Env = dp.clientEnv()
	a := startLive(t, cmd, nil, dp.chat.Pending)
	if _, err := os.Stat(filepath.Join(dp.dir, "build.log")); err != nil {
		t.Fatalf("the killed session's command did not run: %v", err)
	}
	sessions, _ := filepath.Glob(filepath.Join(dp.home, ".factory", "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %q, want one", sessions)
	}
	a.id = strings.TrimSuffix(filepath.Base(sessions[0]), ".jsonl")
	dp.requireOwnClient(a)
	a.kill()

	next := dp.runDroid([]ChatResponse{ChatText("Picking up the build.")}, "exec", "--auto", "high", "carry on")
	reqs := turns(next.Requests)
	if len(reqs) == 0 {
		t.Fatal("the next session made no model request")
	}
	ctx := strings.Join(userTexts(reqs[0]), "\n")
	recovered, _ := filepath.Glob(filepath.Join(dp.dir, "thoughts", "shared", "handoffs", workStream, "*_recovered_*.md"))
	if len(recovered) != 1 {
		t.Fatalf("recovered handoffs %q, want one\nthe next session's context:\n%s", recovered, ctx)
	}
	requireAll(t, "the next session's context", ctx, "The previous session ("+a.id+") ended without a handoff")
	src, _ := os.ReadFile(recovered[0])
	requireAll(t, "the recovered handoff", string(src), "event: \"recovered\"", "agent: \"droid\"", "agent_session: \""+a.id+"\"",
		"token.go", command)
}
