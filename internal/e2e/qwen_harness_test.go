package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// qwenVersion is the Qwen Code release the tests pin (see
// /work/shared/next-hosts-facts.md).
const qwenVersion = "0.24.4"

// qwenNodeVersion is the Node it runs on: it needs Node 22, which npm's
// node package brings.
const qwenNodeVersion = "22.23.3"

// qwenClient returns the pinned Qwen Code's Node and entry script: $QWEN_BIN
// (the entry script) and $QWEN_NODE, else those script/test (or qwen-e2e)
// installs under ~/.cache/qwen-e2e. It skips the test, saying why, when
// either is missing.
func qwenClient(t *testing.T) (node, entry string) {
	t.Helper()
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "qwen-e2e")
	entry, node = os.Getenv("QWEN_BIN"), os.Getenv("QWEN_NODE")
	if entry == "" {
		entry = filepath.Join(cache, qwenVersion, "node_modules", "@qwen-code", "qwen-code", "cli-entry.js")
	}
	if node == "" {
		node = filepath.Join(cache, "node", qwenNodeVersion, "node_modules", "node", "bin", "node")
		if _, err := os.Stat(node); err != nil {
			node = filepath.Join(cache, "node-"+qwenNodeVersion, "node_modules", "node", "bin", "node") // qwen-e2e's
		}
	}
	for _, f := range []string{entry, node} {
		if _, err := os.Stat(f); err != nil {
			missingClient(t, "Qwen Code "+qwenVersion+" on Node "+qwenNodeVersion+" (QWEN_BIN, QWEN_NODE)",
				fmt.Errorf("%v (npm install @qwen-code/qwen-code@%s in %s/%s, node@%s in %s/node/%s)", err, qwenVersion, cache, qwenVersion, qwenNodeVersion, cache, qwenNodeVersion))
		}
	}
	return node, entry
}

// qwenProject is a repository where Qwen Code runs: its own HOME (Qwen Code
// keeps settings and chats in HOME/.qwen) and a stand-in Chat Completions API.
type qwenProject struct {
	*project
	node, entry string
	home        string
	chat        *ChatServer
}

func newQwenProject(t *testing.T) *qwenProject {
	t.Helper()
	requireE2E(t)
	node, entry := qwenClient(t)
	p := newRepo(t)
	qp := &qwenProject{project: p, node: node, entry: entry, home: t.TempDir(), chat: NewChat()}
	t.Cleanup(qp.chat.Close)
	// Qwen Code's compression must get a <state_snapshot> back.
	qp.chat.SetSummary("<state_snapshot>\n" + qwenSummary + "\n</state_snapshot>")
	p.bin = continuityBinary(t)
	settings, _ := json.MarshalIndent(map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	}, "", "  ")
	if err := os.MkdirAll(filepath.Join(qp.home, ".qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(qp.home, ".qwen", "settings.json"), append(settings, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// The hooks' git needs an identity under the test's HOME.
	os.WriteFile(filepath.Join(qp.home, ".gitconfig"), []byte("[user]\n\tname = E2E Tester\n\temail = e2e@example.invalid\n"), 0o644)
	return qp
}

// qwenTimeout bounds one headless run: Qwen Code's bundle takes 7-20 s a
// run on a quiet machine and over 90 s on two loaded cores.
const qwenTimeout = 5 * time.Minute

// qwenSummary is what the stand-in answers a compression with.
const qwenSummary = "QWEN-E2E-SUMMARY: made.txt was written and app.txt edited."

// clientEnv is the environment Qwen Code runs in: the test's HOME and the
// stand-in as its OpenAI-compatible endpoint.
func (qp *qwenProject) clientEnv() []string {
	var env []string
	for _, kv := range qp.env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "QWEN_") && !strings.HasPrefix(kv, "OPENAI_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+qp.home, "QWEN_CODE_NO_RELAUNCH=true", "NO_COLOR=1",
		"OPENAI_BASE_URL="+qp.chat.URL+"/v1", "OPENAI_API_KEY=e2e-offline", "OPENAI_MODEL=m1")
}

// command is Qwen Code run with args in the repository.
func (qp *qwenProject) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, qp.node, append([]string{qp.entry}, args...)...)
	cmd.Dir = qp.dir
	cmd.Env = qp.clientEnv()
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// runQwen runs `qwen ARGS` headless in the repository with the replies
// scripted, and returns the requests it made.
func (qp *qwenProject) runQwen(responses []ChatResponse, args ...string) []ChatRequest {
	qp.t.Helper()
	before := len(qp.chat.Requests())
	qp.chat.Push(responses...)
	ctx, cancel := context.WithTimeout(context.Background(), qwenTimeout)
	defer cancel()
	cmd := qp.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	qp.t.Logf("qwen %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		qp.t.Fatalf("qwen %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return qp.chat.Requests()[before:]
}

// chats are the session ids of the chat files Qwen Code keeps.
func (qp *qwenProject) chats() []string {
	files, _ := filepath.Glob(filepath.Join(qp.home, ".qwen", "projects", "*", "chats", "*.jsonl"))
	var ids []string
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
	}
	return ids
}

// systemText is the system prompt of a request.
func systemText(r ChatRequest) string {
	var out []string
	for _, m := range ChatMessages(r.Body) {
		if m.Role == "system" {
			out = append(out, m.Text)
		}
	}
	return strings.Join(out, "\n")
}
