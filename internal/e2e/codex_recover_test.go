//go:build linux || darwin

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// startCodex starts `codex exec` with prompt against api (its own stand-in)
// and returns once the client has asked for every scripted reply.
func (cp *codexProject) startCodex(api *OpenAIServer, prompt string) *liveClient {
	cp.t.Helper()
	argv := append(api.Args(codexModel), "exec", "--json", "--dangerously-bypass-hook-trust",
		"-s", "workspace-write", "-c", "model_auto_compact_token_limit="+itoa(compactLimit), prompt)
	cmd := exec.Command(cp.codex, argv...)
	cmd.Dir = cp.dir
	cmd.Env = append(append([]string(nil), cp.env...), "CODEX_HOME="+cp.home, "TMPDIR="+filepath.Join(cp.home, "tmp"), "NO_COLOR=1")
	ids := make(chan string, 1)
	c := startLive(cp.t, cmd, func(line []byte) {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "thread.started" {
			select {
			case ids <- ev.ThreadID:
			default:
			}
		}
	}, api.Pending)
	select {
	case c.id = <-ids:
	case <-time.After(10 * time.Second):
		cp.t.Fatalf("codex exec %q: no thread.started", prompt)
	}
	return c
}

// TestCodexRecoverKilledSession: a Codex session adds a file, says what
// it does next and runs a command, and is killed while the model never
// answers; another Codex session, also waiting on the model, is left
// running. The next session's first request carries the killed one's
// recovered handoff (its file, its command, its last reply, its real
// context size), the handoff lists them, and the running session is not
// recovered.
func TestCodexRecoverKilledSession(t *testing.T) {
	cp := newCodexProject(t, workStream, goal)
	const reply = "Added the refresh endpoint in src/token.go; building next."
	const command = "echo built > build.log"

	// The model takes its time on its first reply, as a real one does (a
	// hook takes an ancestor it does not know by name for the client only
	// once it is a second old; Codex's native client is known by name,
	// from its SessionStart on, its only hook before the turn ends).
	dead := NewOpenAI(
		Patch(addToken).After(1500*time.Millisecond),
		Exec(command).Saying(reply).Tokens(42000),
		OpenAIHang(),
	)
	t.Cleanup(dead.Close)
	a := cp.startCodex(dead, "write the token refresh endpoint and build it")

	running := NewOpenAI(Exec("cat app.txt").After(1500*time.Millisecond), OpenAIHang())
	t.Cleanup(running.Close)
	b := cp.startCodex(running, "read app.txt")

	if _, err := os.Stat(filepath.Join(cp.dir, "build.log")); err != nil {
		t.Fatalf("the killed session's command did not run: %v", err)
	}
	// Both record the native client, in their own process group, not the
	// node launcher's parent (the test) or a shell.
	cp.requireOwnClient(a, b)
	a.kill()

	next := cp.runCodex([]OpenAIResponse{OpenAIText("Picking up the build.")}, "carry on")
	reqs := codexModelRequests(next.Requests)
	if len(reqs) == 0 {
		t.Fatal("the next session made no model request")
	}
	ctx := cp.carried(reqs[0], cp.hookContexts(next.ID), "the next session")[0]
	cp.requireRecovered(ctx, a, b, killedWork{agent: "codex", file: "src/token.go", command: command, reply: reply, tokens: 42000})
}
