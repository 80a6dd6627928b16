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

// droidVersion is the Droid release the tests pin (see /work/shared/copilot-droid-facts.md).
const droidVersion = "0.215.0"

// droidBinary returns the pinned Droid's native binary: $DROID_BIN, else the
// one droid-e2e installs. It skips the test, saying why, when missing.
func droidBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("DROID_BIN")
	if bin == "" {
		home, _ := os.UserHomeDir()
		matches, _ := filepath.Glob(filepath.Join(home, ".cache", "droid-e2e", droidVersion, "node_modules", "@factory", "cli-*", "bin", "droid"))
		if len(matches) > 0 {
			bin = matches[0]
		}
	}
	if bin == "" {
		missingClient(t, "Droid "+droidVersion+" (DROID_BIN)", fmt.Errorf("not installed (npm install droid@%s in ~/.cache/droid-e2e/%s)", droidVersion, droidVersion))
	}
	if _, err := os.Stat(bin); err != nil {
		missingClient(t, "Droid "+droidVersion+" (DROID_BIN)", err)
	}
	return bin
}

// droidProject is a repository where Droid runs: its own HOME (Droid keeps
// settings and sessions in HOME/.factory) and a stand-in Chat Completions API.
type droidProject struct {
	*project
	droid string
	home  string
	chat  *ChatServer
}

func newDroidProject(t *testing.T) *droidProject {
	t.Helper()
	requireE2E(t)
	bin := droidBinary(t)
	p := newRepo(t)
	dp := &droidProject{project: p, droid: bin, home: t.TempDir(), chat: NewChat()}
	t.Cleanup(dp.chat.Close)
	p.bin = continuityBinary(t)
	// Droid's bring-your-own-model settings: a custom model at the stand-in.
	settings, _ := json.MarshalIndent(map[string]any{
		"customModels": []any{map[string]any{"model": "m1", "displayName": "m1", "baseUrl": dp.chat.URL + "/v1",
			"apiKey": "e2e-offline", "provider": "generic-chat-completion-api", "maxOutputTokens": 8192}},
		"sessionDefaultSettings": map[string]any{"model": "custom:m1"},
		"cloudSessionSync":       false,
	}, "", "  ")
	if err := os.MkdirAll(filepath.Join(dp.home, ".factory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dp.home, ".factory", "settings.json"), append(settings, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// The hooks' git needs an identity under the test's HOME.
	os.WriteFile(filepath.Join(dp.home, ".gitconfig"), []byte("[user]\n\tname = E2E Tester\n\temail = e2e@example.invalid\n"), 0o644)
	return dp
}

// clientEnv is the environment Droid runs in: the test's HOME.
func (dp *droidProject) clientEnv() []string {
	var env []string
	for _, kv := range dp.env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "FACTORY_") && !strings.HasPrefix(kv, "DROID_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+dp.home, "FACTORY_DROID_AUTO_UPDATE_ENABLED=false", "NO_COLOR=1")
}

// droidRun is one run of `droid exec`.
type droidRun struct {
	Requests []ChatRequest
	Stdout   string
}

// runDroid runs `droid ARGS` in the repository with the replies scripted.
func (dp *droidProject) runDroid(responses []ChatResponse, args ...string) droidRun {
	dp.t.Helper()
	before := len(dp.chat.Requests())
	dp.chat.Push(responses...)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dp.droid, args...)
	cmd.Dir = dp.dir
	cmd.Env = dp.clientEnv()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	start := time.Now()
	err := cmd.Run()
	dp.t.Logf("droid %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		dp.t.Fatalf("droid %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return droidRun{Requests: dp.chat.Requests()[before:], Stdout: stdout.String()}
}
