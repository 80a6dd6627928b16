//go:build linux || darwin

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startClaude starts one stream-json client against api and feeds it
// prompts: each after the previous turn's result, the last one without
// waiting for its result. It returns once the last prompt is sent and api
// has answered (or hung on) every scripted response. The process is killed
// in the test's cleanup if it still runs.
func (p *project) startClaude(api *AnthropicServer, prompts ...string) *liveClient {
	p.t.Helper()
	cmd := exec.Command(p.claude, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--allowedTools", tools)
	cmd.Dir = p.dir
	cmd.Env = append(p.clientEnv(), "ANTHROPIC_BASE_URL="+api.URL) // the last one wins
	stdin, err := cmd.StdinPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	results := make(chan string, 8)
	ids := make(chan string, 1)
	c := launch(p.t, cmd, func(line []byte) {
		var ev map[string]any
		if json.Unmarshal(line, &ev) != nil {
			return
		}
		if id, _ := ev["session_id"].(string); id != "" {
			select {
			case ids <- id:
			default:
			}
		}
		if ev["type"] == "result" {
			results <- string(line)
		}
	})
	stderr := c.stderr
	send := func(prompt string) {
		line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			p.t.Fatalf("write %q: %v\nstderr: %s", prompt, err, stderr.String())
		}
	}
	for i, prompt := range prompts {
		send(prompt)
		if i == len(prompts)-1 {
			break
		}
		select {
		case r := <-results:
			if strings.Contains(r, `"is_error":true`) {
				p.t.Fatalf("turn %q: %s\nstderr: %s", prompt, r, stderr.String())
			}
		case <-c.done:
			p.t.Fatalf("turn %q: the client exited\nstderr: %s", prompt, stderr.String())
		case <-time.After(runTimeout):
			p.t.Fatalf("turn %q: no result\nstderr: %s", prompt, stderr.String())
		}
	}
	deadline := time.Now().Add(runTimeout)
	for api.Pending() > 0 || len(modelRequests(api.Requests())) == 0 {
		if time.Now().After(deadline) {
			p.t.Fatalf("the client did not reach the model's last scripted response (%d left)\nstderr: %s", api.Pending(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case c.id = <-ids:
	case <-time.After(10 * time.Second):
		p.t.Fatal("no session id from the client")
	}
	return c
}

// TestRecoverKilledSession: a session writes a file, replies, runs a
// command, and is killed while the model never answers; another session,
// also waiting on the model, is left running. The next session's first
// request carries the killed one's recovered handoff (its files, its
// command, its last reply, its real context size), the handoff lists them,
// and the running session is not recovered.
func TestRecoverKilledSession(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	tokenGo := filepath.Join(p.dir, "src", "auth", "token.go")
	const reply = "Wrote the refresh endpoint in src/auth/token.go; building next."
	const command = "echo built > build.log"

	// The model takes its time, as a real one does: a hook records as the
	// client only a process that started a second before it (not a wrapper).
	write := AnthropicTool("Write", map[string]any{"file_path": tokenGo, "content": "package auth\n\nfunc Refresh() error { return nil }\n"})
	write.Delay = 1500 * time.Millisecond
	dead := NewAnthropic(
		write,
		AnthropicResponse{Text: reply, InputTokens: 48000},
		AnthropicResponse{ToolUse: &ToolUse{Name: "Bash", Input: map[string]any{"command": command, "description": "build"}}, InputTokens: 52000},
		AnthropicHang(),
	)
	t.Cleanup(dead.Close)
	a := p.startClaude(dead, "write the token refresh endpoint", "now build it")

	running := NewAnthropic(AnthropicResponse{Text: "The README is short.", Delay: 1500 * time.Millisecond}, AnthropicHang())
	t.Cleanup(running.Close)
	b := p.startClaude(running, "read the README", "and now?")

	if _, err := os.Stat(filepath.Join(p.dir, "build.log")); err != nil {
		t.Fatalf("the killed session's command did not run: %v", err)
	}
	p.requireOwnClient(a, b)
	a.kill()

	next := p.runClaude([]AnthropicResponse{AnthropicText("Picking up the build.")}, "-p", "carry on")
	reqs := modelRequests(next.Requests)
	if len(reqs) == 0 {
		t.Fatal("the next session made no model request")
	}
	p.requireRecovered(strings.Join(texts(reqs[0].Body), "\n"), a, b,
		killedWork{agent: "claude", file: "src/auth/token.go", command: command, reply: reply, tokens: 52000})
	// The killed session's first turn ended: its Stop hook checkpointed
	// it (the recovery read on from there).
	state := p.read(filepath.Join(".git", "continuity", "sessions", a.id+".json"))
	if !strings.Contains(state, `"event": "Stop"`) || !strings.Contains(state, "checkpoint at ") {
		t.Errorf("no Stop checkpoint in the killed session's state:\n%s", state)
	}
}

// A Claude Code session killed in its very first turn, with no delay
// anywhere, ran only SessionStart before it died, when its client was
// younger than a second: the client is still found (by the name the host
// gives it, not taken for the terminal above it) and the session is
// recovered.
func TestRecoverKilledInFirstTurn(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	const command = "echo built > build.log"
	// Tool calls only: the turn never ends, so no Stop hook runs.
	dead := NewAnthropic(
		AnthropicTool("Write", map[string]any{"file_path": filepath.Join(p.dir, "src", "auth", "logout.go"), "content": "package auth\n"}),
		AnthropicResponse{ToolUse: &ToolUse{Name: "Bash", Input: map[string]any{"command": command, "description": "build"}}, InputTokens: 31000},
		AnthropicHang(),
	)
	t.Cleanup(dead.Close)
	a := p.startClaude(dead, "write the logout handler and build")
	running := NewAnthropic(AnthropicHang())
	t.Cleanup(running.Close)
	b := p.startClaude(running, "read the README")

	p.requireOwnClient(a, b)
	a.kill()
	next := p.runClaude([]AnthropicResponse{AnthropicText("Picking up.")}, "-p", "carry on")
	reqs := modelRequests(next.Requests)
	if len(reqs) == 0 {
		t.Fatal("the next session made no model request")
	}
	p.requireRecovered(strings.Join(texts(reqs[0].Body), "\n"), a, b,
		killedWork{agent: "claude", file: "src/auth/logout.go", command: command, tokens: 31000})
	if state := p.read(filepath.Join(".git", "continuity", "sessions", a.id+".json")); strings.Contains(state, `"event": "Stop"`) {
		t.Errorf("the killed session ended a turn; the case is one that never did:\n%s", state)
	}
}
