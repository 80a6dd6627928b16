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

// startGemini starts Gemini CLI headless as session id with prompt against
// api (its own stand-in), as a person runs it (it relaunches itself in a
// child node process), and returns once the client has asked for every
// scripted reply.
func (g *geminiProject) startGemini(api *GeminiServer, id, prompt string) *liveClient {
	g.t.Helper()
	cmd := exec.Command("node", g.gemini, "-p", prompt, "--session-id", id, "--output-format", "json", "--yolo")
	cmd.Dir = g.dir
	cmd.Env = append(append([]string(nil), g.env...),
		"GOOGLE_GEMINI_BASE_URL="+api.URL, "GEMINI_API_KEY=e2e-offline", "GEMINI_CLI_HOME="+g.home, "NO_COLOR=1")
	c := startLive(g.t, cmd, nil, api.Pending)
	c.id = id
	return c
}

// TestGeminiRecoverKilledSession: a Gemini CLI session writes a file, says
// what it does next and runs a command, and is killed while the model
// never answers; another session, also waiting on the model, is left
// running. The next session's first request carries the killed one's
// recovered handoff (its file, its command, its last reply, its real
// context size), the handoff lists them, and the running session is not
// recovered.
func TestGeminiRecoverKilledSession(t *testing.T) {
	const (
		deadID    = "0b7e4c1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d"
		runningID = "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f"
		reply     = "Wrote the refresh endpoint in src/auth/token.go; building next."
		command   = "echo built > build.log"
	)
	g := newGeminiProject(t)
	g.initGemini(workStream, goal, ledgerNow, ledgerNext)
	tokenGo := filepath.Join(g.dir, "src", "auth", "token.go")

	// The model takes its time on its first reply, as a real one does: a
	// hook records as the client only a process that started a second
	// before it (not a wrapper, nor the test).
	dead := NewGemini(
		GeminiTool("write_file", map[string]any{"file_path": tokenGo, "content": "package auth\n\nfunc Refresh() error { return nil }\n"}).After(1500*time.Millisecond),
		GeminiTool("run_shell_command", map[string]any{"command": command, "description": "build"}).Saying(reply).Tokens(42000),
		GeminiHang(),
	)
	t.Cleanup(dead.Close)
	a := g.startGemini(dead, deadID, "write the token refresh endpoint and build it")

	running := NewGemini(GeminiTool("read_file", map[string]any{"file_path": filepath.Join(g.dir, "README.md")}).After(1500*time.Millisecond), GeminiHang())
	t.Cleanup(running.Close)
	b := g.startGemini(running, runningID, "read the README")

	if _, err := os.Stat(filepath.Join(g.dir, "build.log")); err != nil {
		t.Fatalf("the killed session's command did not run: %v", err)
	}
	g.requireOwnClient(a, b)
	a.kill()

	next := g.runGemini([]GeminiResponse{GeminiText("Picking up the build.")}, "-p", "carry on")
	main := mainRequests(next.Requests)
	if len(main) == 0 {
		t.Fatal("the next session made no model request")
	}
	g.requireRecovered(strings.Join(hookContexts(main[0].Body), "\n"), a, b,
		killedWork{agent: "gemini", file: "src/auth/token.go", command: command, reply: reply, tokens: 42000})
}
