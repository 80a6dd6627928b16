package e2e

import (
	"bufio"
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

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/codex"
)

// codexVersion is the Codex CLI release the tests pin (see /work/shared/codex-gemini-facts.md).
const codexVersion = "0.169.0"

// codexModel has bundled metadata in Codex (with it, the apply_patch tool).
const codexModel = "gpt-5.5"

// compactLimit is the model_auto_compact_token_limit the runs set: a reply
// reporting more input tokens makes Codex compact.
const compactLimit = 50000

// codexBinary returns the pinned Codex CLI (a node script): $CODEX_BIN, else
// the cache codex-e2e installs into. It skips the test, saying why, when
// node or the client is missing.
func codexBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		missingClient(t, "Codex CLI "+codexVersion+" (CODEX_BIN)", fmt.Errorf("node is not on PATH: %w", err))
	}
	bin := os.Getenv("CODEX_BIN")
	if bin == "" {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, ".cache", "codex-e2e", codexVersion, "node_modules", "@openai", "codex", "bin", "codex.js")
	}
	if _, err := os.Stat(bin); err != nil {
		missingClient(t, "Codex CLI "+codexVersion+" (CODEX_BIN)", fmt.Errorf("not installed at %s (npm install @openai/codex@%s in ~/.cache/codex-e2e/%s)", bin, codexVersion, codexVersion))
	}
	return bin
}

// codexProject is a project (a temporary git repository with continuity
// initialised) where Codex runs too: its own CODEX_HOME trusting the
// repository, continuity's hooks in the repository's .codex/hooks.json,
// and a stand-in Responses API.
type codexProject struct {
	*project
	codex string // the Codex CLI
	home  string // CODEX_HOME
	oai   *OpenAIServer
}

// newCodexProject makes the repository (one commit: app.txt, notes.txt,
// old.txt), initialises continuity with a ledger, and registers the Codex
// hooks through the codex host. The Claude Code parts (p.claude) are set
// only by tests that run Claude Code too.
func newCodexProject(t *testing.T, ledgerName, goal string) *codexProject {
	t.Helper()
	requireE2E(t)
	cp := &codexProject{codex: codexBinary(t), home: t.TempDir(), oai: NewOpenAI()}
	t.Cleanup(cp.oai.Close)
	p := &project{t: t, dir: t.TempDir(), config: t.TempDir(), api: NewAnthropic()}
	t.Cleanup(p.api.Close)
	if d, err := filepath.EvalSymlinks(p.dir); err == nil {
		p.dir = d
	}
	var env []string
	for _, kv := range cleanEnv() {
		if !strings.HasPrefix(kv, "CODEX_") && !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	p.env = append(env,
		"PATH="+buildDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=E2E Tester", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=E2E Tester", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
	)
	cp.project = p
	p.run("git", "init", "-q", "-b", "main")
	p.run("git", "config", "user.name", "E2E Tester")
	p.run("git", "config", "user.email", "e2e@example.invalid")
	p.write("app.txt", "line one\nline two\n")
	p.write("notes.txt", "keep\n")
	p.write("old.txt", "old\n")
	p.run("git", "add", ".")
	p.run("git", "commit", "-q", "-m", "initial")
	p.initContinuity(ledgerName, goal)

	getenv := func(k string) string {
		if k == "CODEX_HOME" {
			return cp.home
		}
		return ""
	}
	path, err := codex.Host{}.SettingsPath(getenv, p.dir, agent.Project)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _, err := codex.Host{}.Register(nil, p.bin+" hook --agent codex")
	if err != nil {
		t.Fatal(err)
	}
	p.write(strings.TrimPrefix(path, p.dir+"/"), string(hooks))
	// Codex runs project hooks only in a project its user config trusts.
	trust := "[projects." + strconvQuote(p.dir) + "]\ntrust_level = \"trusted\"\n"
	if err := os.WriteFile(filepath.Join(cp.home, "config.toml"), []byte(trust), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cp.home, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	return cp
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// codexRun is the outcome of one `codex exec` run.
type codexRun struct {
	ID       string          // the session (thread) id
	Requests []OpenAIRequest // the API requests made during the run
	Stderr   string
}

// runCodex runs `codex exec` once in the repository with the responses
// scripted, e.g. runCodex(resps, "fix it") or runCodex(resps, "resume", id,
// "go on"). Hooks run without per-hook trust (--dangerously-bypass-hook-trust:
// exec cannot ask), in the workspace-write sandbox, compacting above
// compactLimit input tokens.
func (cp *codexProject) runCodex(responses []OpenAIResponse, args ...string) codexRun {
	cp.t.Helper()
	before := len(cp.oai.Requests())
	cp.oai.Push(responses...)
	argv := append(cp.oai.Args(codexModel), "exec", "--json", "--dangerously-bypass-hook-trust",
		"-s", "workspace-write", "-c", "model_auto_compact_token_limit="+itoa(compactLimit))
	argv = append(argv, args...)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cp.codex, argv...)
	cmd.Dir = cp.dir
	cmd.Env = append(append([]string(nil), cp.env...), "CODEX_HOME="+cp.home, "TMPDIR="+filepath.Join(cp.home, "tmp"), "NO_COLOR=1")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	cp.t.Logf("codex exec %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		cp.t.Fatalf("codex exec %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	run := codexRun{Requests: cp.oai.Requests()[before:], Stderr: stderr.String()}
	for _, line := range strings.Split(stdout.String(), "\n") {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "thread.started":
			run.ID = ev.ThreadID
		case "turn.failed":
			cp.t.Fatalf("codex exec %s: the turn failed: %s\nstderr: %s", strings.Join(args, " "), line, stderr.String())
		}
	}
	if run.ID == "" {
		cp.t.Fatalf("codex exec %s: no thread.started in its output:\n%s", strings.Join(args, " "), stdout.String())
	}
	return run
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// rollout returns the records of session id's rollout, decoded.
func (cp *codexProject) rollout(id string) []map[string]any {
	cp.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(cp.home, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	if len(matches) != 1 {
		cp.t.Fatalf("rollout of session %s: found %d files", id, len(matches))
	}
	f, err := os.Open(matches[0])
	if err != nil {
		cp.t.Fatal(err)
	}
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			recs = append(recs, m)
		}
	}
	return recs
}

// hookContexts returns, in order, the SessionStart contexts Codex recorded
// in session id's rollout (developer messages of kind hooks.additional_context).
// Only continuity's hooks are registered, so they are what it printed.
func (cp *codexProject) hookContexts(id string) []string {
	var out []string
	for _, r := range cp.rollout(id) {
		p, _ := r["payload"].(map[string]any)
		if r["type"] != "response_item" || p["type"] != "message" || p["role"] != "developer" {
			continue
		}
		meta, _ := p["internal_chat_message_metadata_passthrough"].(map[string]any)
		kinds, _ := meta["content_item_kinds"].([]any)
		if len(kinds) == 0 || kinds[0] != "hooks.additional_context" {
			continue
		}
		content, _ := p["content"].([]any)
		var texts []string
		for _, c := range content {
			m, _ := c.(map[string]any)
			s, _ := m["text"].(string)
			texts = append(texts, s)
		}
		out = append(out, strings.Join(texts, "\n"))
	}
	return out
}

// developerTexts returns the developer messages of a request.
func developerTexts(r OpenAIRequest) []string {
	var out []string
	for _, m := range Messages(r.Body) {
		if m.Role == "developer" {
			out = append(out, m.Text)
		}
	}
	return out
}

// codexModelRequests drops compaction requests.
func codexModelRequests(reqs []OpenAIRequest) []OpenAIRequest {
	var out []OpenAIRequest
	for _, r := range reqs {
		if !r.Compaction && r.Path == "/v1/responses" {
			out = append(out, r)
		}
	}
	return out
}

// carried returns the contexts among printed that request r carries whole,
// as developer messages of their own. It fails when none is.
func (cp *codexProject) carried(r OpenAIRequest, printed []string, what string) []string {
	cp.t.Helper()
	dev := developerTexts(r)
	var out []string
	for _, c := range printed {
		for _, d := range dev {
			if d == c {
				out = append(out, c)
				break
			}
		}
	}
	if len(out) == 0 {
		var heads []string
		for _, d := range dev {
			heads = append(heads, strings.SplitN(d, "\n", 2)[0])
		}
		cp.t.Fatalf("%s: request %d carries none of the %d contexts our hook printed; its developer messages begin:\n%s",
			what, r.N, len(printed), strings.Join(heads, "\n"))
	}
	return out
}

// requireAll fails for each want that text lacks.
func requireAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
