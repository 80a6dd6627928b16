package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copilotVersion is the Copilot CLI release the tests pin (see /work/shared/copilot-droid-facts.md).
const copilotVersion = "1.0.102"

// copilotCache is where copilot-e2e installs the pinned client.
func copilotCache() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "copilot-e2e", copilotVersion)
}

// copilotBinary returns the pinned Copilot CLI's native binary: the one
// beside $COPILOT_BIN (the npm package's npm-loader.js, as .ci/run installs
// it) or $COPILOT_BIN itself, else the one copilot-e2e installs. The native
// binary runs as one process, so a kill reaches the client. It skips the
// test, saying why, when the client is missing.
func copilotBinary(t *testing.T) string {
	t.Helper()
	modules := filepath.Join(copilotCache(), "node_modules")
	bin := os.Getenv("COPILOT_BIN")
	if strings.HasSuffix(bin, ".js") {
		modules, bin = filepath.Dir(filepath.Dir(filepath.Dir(bin))), ""
	}
	if bin == "" {
		if matches, _ := filepath.Glob(filepath.Join(modules, "@github", "copilot-*", "copilot")); len(matches) > 0 {
			bin = matches[0]
		}
	}
	if bin == "" {
		missingClient(t, "Copilot CLI "+copilotVersion+" (COPILOT_BIN)", fmt.Errorf("not installed in %s (npm install @github/copilot@%s there)", modules, copilotVersion))
	}
	if _, err := os.Stat(bin); err != nil {
		missingClient(t, "Copilot CLI "+copilotVersion+" (COPILOT_BIN)", err)
	}
	return bin
}

// copilotProject is a repository where Copilot CLI runs: its own
// COPILOT_HOME and a stand-in Chat Completions API.
type copilotProject struct {
	*project
	copilot string
	home    string // COPILOT_HOME
	chat    *ChatServer
}

func newCopilotProject(t *testing.T) *copilotProject {
	t.Helper()
	requireE2E(t)
	bin := copilotBinary(t)
	p := newRepo(t)
	var env []string
	for _, kv := range p.env {
		if !strings.HasPrefix(kv, "COPILOT_") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	p.env = env
	cp := &copilotProject{project: p, copilot: bin, home: t.TempDir(), chat: NewChat()}
	t.Cleanup(cp.chat.Close)
	p.bin = continuityBinary(t)
	return cp
}

// initCopilot registers continuity for Copilot CLI in the repository and
// starts a work stream with a goal, now and next; all committed.
func (cp *copilotProject) initCopilot(stream, goal, now, next string) {
	cp.t.Helper()
	cp.run(cp.bin, "init", "--agent", "copilot")
	if h := cp.read(".github/hooks/continuity.json"); !strings.Contains(h, "hook --agent copilot --event sessionStart") {
		cp.t.Fatalf("init --agent copilot registered nothing:\n%s", h)
	}
	cp.run(cp.bin, "new", stream, "--goal", goal)
	cp.run(cp.bin, "now", now)
	cp.run(cp.bin, "next", next)
	cp.run("git", "add", "-A")
	cp.run("git", "commit", "-q", "-m", "Register continuity for Copilot CLI")
}

// copilotRun is one run of the client.
type copilotRun struct {
	ID       string
	Requests []ChatRequest
	Stderr   string
}

// runCopilot runs `copilot ARGS` in the repository with the replies
// scripted: trusted (--trust-folder, or COPILOT_ALLOW_ALL for --resume),
// offline, with the given environment added (e.g. a context limit).
func (cp *copilotProject) runCopilot(responses []ChatResponse, extraEnv []string, args ...string) copilotRun {
	cp.t.Helper()
	before := len(cp.chat.Requests())
	cp.chat.Push(responses...)
	argv := []string{"--no-auto-update"}
	env := append(append([]string(nil), cp.env...), "COPILOT_HOME="+cp.home, "XDG_CACHE_HOME="+filepath.Join(copilotCache(), "xdg-cache"),
		"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+cp.chat.URL+"/v1", "COPILOT_MODEL=claude-sonnet-4.6",
		"COPILOT_AUTO_UPDATE=false", "NO_COLOR=1")
	resuming := false
	for _, a := range args {
		resuming = resuming || strings.HasPrefix(a, "--resume")
	}
	if resuming {
		env = append(env, "COPILOT_ALLOW_ALL=true")
	} else {
		argv = append(argv, "--trust-folder")
	}
	argv = append(argv, args...)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cp.copilot, argv...)
	cmd.Dir, cmd.Env = cp.dir, append(env, extraEnv...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	cp.t.Logf("copilot %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		cp.t.Fatalf("copilot %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return copilotRun{ID: cp.sessionID(), Requests: cp.chat.Requests()[before:], Stderr: stderr.String()}
}

// sessionID is the session in COPILOT_HOME whose events changed last.
func (cp *copilotProject) sessionID() string {
	cp.t.Helper()
	ents, _ := filepath.Glob(filepath.Join(cp.home, "session-state", "*", "events.jsonl"))
	if len(ents) == 0 {
		cp.t.Fatalf("no session in %s", cp.home)
	}
	newest, at := "", time.Time{}
	for _, e := range ents {
		if fi, err := os.Stat(e); err == nil && fi.ModTime().After(at) {
			newest, at = e, fi.ModTime()
		}
	}
	return filepath.Base(filepath.Dir(newest))
}

// turns are the requests of the agent's turns (offering tools, not a
// compaction), in order.
func turns(reqs []ChatRequest) []ChatRequest {
	var out []ChatRequest
	for _, r := range reqs {
		if r.Tools && !r.Compaction {
			out = append(out, r)
		}
	}
	return out
}

// userTexts are the user messages of a request.
func userTexts(r ChatRequest) []string {
	var out []string
	for _, m := range ChatMessages(r.Body) {
		if m.Role == "user" {
			out = append(out, m.Text)
		}
	}
	return out
}

// hookRecords are the hook.start and hook.end records of session id's events.
func (cp *copilotProject) hookRecords(id string) string {
	b, _ := os.ReadFile(filepath.Join(cp.home, "session-state", id, "events.jsonl"))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, `{"type":"hook.`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
