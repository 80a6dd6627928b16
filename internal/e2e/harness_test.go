package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// claudeVersion is the Claude Code release the tests pin (see /work/shared/claude-code-facts.md).
const claudeVersion = "2.1.328"

// runTimeout bounds one run of the client; a normal run takes a few seconds.
const runTimeout = 90 * time.Second

var (
	buildDir string // holds the continuity binary for the whole test binary run

	claudeOnce sync.Once
	claudePath string
	claudeErr  error

	buildOnce sync.Once
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	flag.Parse() // testkit.Short reads -short
	if testkit.Short() && os.Getenv("CONTINUITY_REQUIRE_E2E") != "1" {
		fmt.Println("end-to-end tests skipped: they run with " + testkit.LongEnv + "=1 (script/test sets it)")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "continuity-e2e-bin-")
	if err != nil {
		panic(err)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireE2E skips the test when CONTINUITY_SKIP_E2E=1.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("CONTINUITY_SKIP_E2E") == "1" {
		t.Skip("CONTINUITY_SKIP_E2E=1")
	}
}

// missingClient skips the test because a real client cannot be had here
// (no Node.js or npm to install it), saying why, unless
// CONTINUITY_REQUIRE_E2E=1 (CI sets it), where that fails the test.
func missingClient(t *testing.T, client string, why error) {
	t.Helper()
	msg := fmt.Sprintf("end-to-end test skipped: no %s here (%v); set its binary's path in the environment, or install Node.js and npm", client, why)
	if os.Getenv("CONTINUITY_REQUIRE_E2E") == "1" {
		t.Fatal(msg + " (CONTINUITY_REQUIRE_E2E=1)")
	}
	t.Skip(msg)
}

// errNoNpm says the client is neither given nor installed and cannot be
// installed: npm is not on PATH.
var errNoNpm = errors.New("npm is not on PATH to install it")

// claudeBinary returns the pinned Claude Code executable: $CLAUDE_BIN, else the
// cached npm install, else it installs it into the cache. It fails the test when
// none of that works.
func claudeBinary(t *testing.T) string {
	t.Helper()
	claudeOnce.Do(func() { claudePath, claudeErr = findClaude() })
	if errors.Is(claudeErr, errNoNpm) {
		missingClient(t, "Claude Code "+claudeVersion+" (CLAUDE_BIN)", claudeErr)
	}
	if claudeErr != nil {
		t.Fatalf("no Claude Code %s (set CLAUDE_BIN, or CONTINUITY_SKIP_E2E=1 to skip): %v", claudeVersion, claudeErr)
	}
	return claudePath
}

func findClaude() (string, error) {
	if p := os.Getenv("CLAUDE_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	cache := filepath.Join(home, ".cache", "claude-e2e", claudeVersion)
	bin := filepath.Join(cache, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errNoNpm
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	pkg := filepath.Join(cache, "package.json")
	if _, err := os.Stat(pkg); err != nil {
		if err := os.WriteFile(pkg, []byte(`{"private":true}`+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
		"@anthropic-ai/claude-code@"+claudeVersion)
	cmd.Dir = cache
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &cmdError{cmd: "npm install", err: err, out: string(out)}
	}
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	return bin, nil
}

// cmdError is a failed command with its output.
type cmdError struct {
	cmd string
	err error
	out string
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + e.out }

// continuityBinary builds ./cmd/continuity once and returns its path.
func continuityBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildPath = filepath.Join(buildDir, "continuity")
		cmd := exec.Command("go", "build", "-o", buildPath, "github.com/continuity-md/continuity/cmd/continuity")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &cmdError{cmd: "go build", err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build ./cmd/continuity: %v", buildErr)
	}
	return buildPath
}

// cleanEnv is the test process's environment without anything that would
// point the client or our hooks at a real account, session or config.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "ANTHROPIC_") || strings.HasPrefix(name, "CLAUDE") ||
			strings.HasPrefix(name, "CONTINUITY_") || strings.HasPrefix(name, "GIT_") || name == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// project is a temporary git repository with a Claude config dir and a mock API.
type project struct {
	t      *testing.T
	dir    string // the repository (the client's cwd)
	config string // CLAUDE_CONFIG_DIR
	bin    string // the continuity binary
	claude string // the Claude Code binary
	api    *AnthropicServer
	env    []string
}

// newProject makes a git repository with one commit and a running mock API.
// It registers nothing: see initContinuity.
func newProject(t *testing.T) *project {
	t.Helper()
	requireE2E(t)
	claude := claudeBinary(t)
	p := newRepo(t)
	p.claude, p.config = claude, t.TempDir()
	p.api = NewAnthropic()
	t.Cleanup(p.api.Close)
	return p
}

// newRepo makes a git repository with one commit (README.md), for any client.
func newRepo(t *testing.T) *project {
	t.Helper()
	p := &project{t: t, dir: t.TempDir()}
	// Resolve symlinks (e.g. /tmp on macOS) so paths compare with what the client reports.
	if d, err := filepath.EvalSymlinks(p.dir); err == nil {
		p.dir = d
	}
	p.env = append(cleanEnv(),
		"PATH="+buildDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=E2E Tester", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=E2E Tester", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
	)
	p.run("git", "init", "-q", "-b", "main")
	p.run("git", "config", "user.name", "E2E Tester")
	p.run("git", "config", "user.email", "e2e@example.invalid")
	p.write("README.md", "# demo service\n")
	p.run("git", "add", "README.md")
	p.run("git", "commit", "-q", "-m", "initial")
	return p
}

// initContinuity builds continuity, runs `continuity init` and `continuity new`.
func (p *project) initContinuity(session, goal string) {
	p.t.Helper()
	p.bin = continuityBinary(p.t)
	p.run(p.bin, "init")
	settings := p.read(".claude/settings.json")
	if !strings.Contains(settings, "continuity") {
		p.t.Fatalf("continuity init registered no hook in .claude/settings.json:\n%s", settings)
	}
	p.run(p.bin, "new", session, "--goal", goal)
}

// run runs a program in the repository and returns its stdout; any failure is fatal.
func (p *project) run(name string, args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		p.t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", filepath.Base(name), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func (p *project) write(rel, content string) {
	p.t.Helper()
	path := filepath.Join(p.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) read(rel string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, rel))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// session is the outcome of one client run.
type session struct {
	ID       string             // the session id the client printed
	Result   string             // its final text
	Requests []AnthropicRequest // the model requests made during the run
}

// runClaude runs the client once in the repository with the given responses
// scripted, e.g. runClaude(resps, "-p", "fix it"). It adds
// --output-format json and returns the session id and the requests it made.
func (p *project) runClaude(responses []AnthropicResponse, args ...string) session {
	p.t.Helper()
	before := len(p.api.Requests())
	p.api.Push(responses...)
	env := p.clientEnv()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.claude, append(args, "--output-format", "json")...)
	cmd.Dir = p.dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	p.t.Logf("claude %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		p.t.Fatalf("claude %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	var out struct {
		SessionID string `json:"session_id"`
		Result    string `json:"result"`
		IsError   bool   `json:"is_error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.SessionID == "" {
		p.t.Fatalf("claude %s: no session id in output (%v):\n%s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	if out.IsError {
		p.t.Fatalf("claude %s reported an error: %s", strings.Join(args, " "), stdout.String())
	}
	return session{ID: out.SessionID, Result: out.Result, Requests: p.api.Requests()[before:]}
}

// clientEnv is the environment of one client run against the project's mock API.
func (p *project) clientEnv() []string {
	return append(append([]string(nil), p.env...),
		"ANTHROPIC_BASE_URL="+p.api.URL,
		"ANTHROPIC_API_KEY=sk-e2e-offline",
		"CLAUDE_CONFIG_DIR="+p.config,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	)
}

// streamTurn is what one user message fed on stdin to a stream-json run produced.
type streamTurn struct {
	Prompt   string             // the user message sent
	Result   string             // the text of its "result" event
	Requests []AnthropicRequest // the requests the API received during the turn
}

// streamSession is the outcome of one stream-json client run.
type streamSession struct {
	ID     string
	Turns  []streamTurn
	Events []map[string]any // every event printed on stdout, decoded
}

// runClaudeStream runs ONE client process with --input-format stream-json
// --output-format stream-json and feeds it prompts as user messages on
// stdin, one at a time: each is written after the previous turn's "result"
// event, and stdin is closed after the last one. Slash commands such as
// "/compact ..." work as prompts. It returns the session id and, per turn,
// the requests the mock API received.
func (p *project) runClaudeStream(responses []AnthropicResponse, prompts []string, args ...string) streamSession {
	p.t.Helper()
	p.api.Push(responses...)
	args = append(append([]string(nil), args...), "-p", "--input-format", "stream-json",
		"--output-format", "stream-json", "--verbose")
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.claude, args...)
	cmd.Dir = p.dir
	cmd.Env = p.clientEnv()
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	fail := func(format string, a ...any) {
		p.t.Helper()
		_ = stdin.Close()
		cancel()
		_ = cmd.Wait()
		p.t.Fatalf("claude stream-json %s: "+format+"\nstderr: %s", append(append([]any{strings.Join(args, " ")}, a...), stderr.String())...)
	}
	send := func(prompt string) {
		line, _ := json.Marshal(map[string]any{"type": "user",
			"message": map[string]any{"role": "user", "content": prompt}})
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			fail("write %q: %v", prompt, err)
		}
	}
	var out streamSession
	before := len(p.api.Requests())
	turn := 0
	if len(prompts) == 0 {
		_ = stdin.Close()
	} else {
		send(prompts[0])
	}
	sc := bufio.NewScanner(stdoutPipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		out.Events = append(out.Events, ev)
		if id, _ := ev["session_id"].(string); id != "" && out.ID == "" {
			out.ID = id
		}
		if ev["type"] != "result" || turn >= len(prompts) {
			continue
		}
		if isErr, _ := ev["is_error"].(bool); isErr {
			fail("turn %d (%q) reported an error: %s", turn+1, prompts[turn], sc.Text())
		}
		res, _ := ev["result"].(string)
		all := p.api.Requests()
		out.Turns = append(out.Turns, streamTurn{Prompt: prompts[turn], Result: res, Requests: all[before:]})
		before = len(all)
		turn++
		if turn < len(prompts) {
			send(prompts[turn])
		} else {
			_ = stdin.Close()
		}
	}
	err = cmd.Wait()
	p.t.Logf("claude %s (stream-json, %d prompts): %.1fs", strings.Join(args, " "), len(prompts), time.Since(start).Seconds())
	if err != nil {
		p.t.Fatalf("claude stream-json %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr.String())
	}
	if turn < len(prompts) {
		p.t.Fatalf("claude stream-json %s: %d of %d prompts got a result event\nstderr: %s", strings.Join(args, " "), turn, len(prompts), stderr.String())
	}
	if out.ID == "" {
		p.t.Fatalf("claude stream-json %s: no session id in %d events", strings.Join(args, " "), len(out.Events))
	}
	return out
}

// transcript returns the lines of a session's transcript, decoded.
func (p *project) transcript(id string) []map[string]any {
	p.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(p.config, "projects", "*", id+".jsonl"))
	if len(matches) != 1 {
		p.t.Fatalf("transcript of session %s: found %d files", id, len(matches))
	}
	f, err := os.Open(matches[0])
	if err != nil {
		p.t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			lines = append(lines, m)
		}
	}
	if err := sc.Err(); err != nil {
		p.t.Fatal(err)
	}
	return lines
}

// hookRun is one hook_success attachment the client recorded in a transcript.
type hookRun struct {
	Name       string // e.g. "SessionStart:startup"
	Command    string
	DurationMs float64
	ExitCode   float64
	Stdout     string
	Stderr     string
}

// hookRuns returns the runs of our hook (command mentioning continuity) recorded in a transcript.
func (p *project) hookRuns(id string) []hookRun {
	var runs []hookRun
	for _, line := range p.transcript(id) {
		a, _ := line["attachment"].(map[string]any)
		if line["type"] != "attachment" || a == nil || a["type"] != "hook_success" {
			continue
		}
		r := hookRun{}
		r.Name, _ = a["hookName"].(string)
		r.Command, _ = a["command"].(string)
		r.DurationMs, _ = a["durationMs"].(float64)
		r.ExitCode, _ = a["exitCode"].(float64)
		r.Stdout, _ = a["stdout"].(string)
		r.Stderr, _ = a["stderr"].(string)
		if strings.Contains(r.Command, "continuity") {
			runs = append(runs, r)
		}
	}
	return runs
}

// toolErrors returns the text of every tool_result with is_error in a transcript.
func (p *project) toolErrors(id string) []string {
	var errs []string
	for _, line := range p.transcript(id) {
		msg, _ := line["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			b, _ := c.(map[string]any)
			if b["type"] == "tool_result" && b["is_error"] == true {
				j, _ := json.Marshal(b["content"])
				errs = append(errs, string(j))
			}
		}
	}
	return errs
}

// contextMarker introduces a SessionStart hook's additionalContext in what the client sends.
const contextMarker = "SessionStart hook additional context: "

// texts returns every text the request body carries to the model: system
// blocks and message contents (strings, text blocks, tool results).
func texts(body []byte) []string {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []string
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, s)
			return
		}
		var blocks []struct {
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &blocks) != nil {
			return
		}
		for _, b := range blocks {
			if b.Text != "" {
				out = append(out, b.Text)
			}
			if len(b.Content) > 0 {
				walk(b.Content)
			}
		}
	}
	walk(req.System)
	for _, m := range req.Messages {
		walk(m.Content)
	}
	return out
}

// injected returns the SessionStart additional contexts in a request body:
// from each marker to the end of its system reminder.
func injected(body []byte) []string {
	var out []string
	for _, text := range texts(body) {
		for {
			i := strings.Index(text, contextMarker)
			if i < 0 {
				break
			}
			text = text[i+len(contextMarker):]
			end := strings.Index(text, "</system-reminder>")
			if end < 0 {
				end = len(text)
			}
			out = append(out, text[:end])
			text = text[end:]
		}
	}
	return out
}

// additionalContext returns the SessionStart additionalContext in a hook's stdout ("" when none).
func additionalContext(stdout string) string {
	var out struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal([]byte(stdout), &out) != nil {
		return ""
	}
	return out.HookSpecificOutput.AdditionalContext
}

// modelRequests drops compaction and count_tokens requests.
func modelRequests(reqs []AnthropicRequest) []AnthropicRequest {
	var out []AnthropicRequest
	for _, r := range reqs {
		if !r.Compaction && !r.CountTokens {
			out = append(out, r)
		}
	}
	return out
}

// timeHook runs `continuity hook` directly on a recorded payload from
// testdata/payloads, pointed at a real session of this project, and returns
// its wall time. The client records durationMs only for SessionStart, so this
// is how the other events are timed. The hook must exit 0 with stdout empty
// or one JSON object.
func (p *project) timeHook(payloadFile, sessionID string) time.Duration {
	p.t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "payloads", payloadFile))
	if err != nil {
		p.t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		p.t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(p.config, "projects", "*", sessionID+".jsonl"))
	if len(matches) != 1 {
		p.t.Fatalf("transcript of %s not found", sessionID)
	}
	payload["session_id"], payload["transcript_path"], payload["cwd"] = sessionID, matches[0], p.dir
	in, _ := json.Marshal(payload)

	cmd := exec.Command(p.bin, "hook")
	cmd.Dir = p.dir
	cmd.Env = append(append([]string(nil), p.env...), "CLAUDE_PROJECT_DIR="+p.dir, "CLAUDE_CODE_SESSION_ID="+sessionID)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	if err != nil {
		p.t.Errorf("continuity hook < %s: %v\nstderr: %s", payloadFile, err, stderr.String())
	}
	if out := bytes.TrimSpace(stdout.Bytes()); len(out) > 0 {
		var obj map[string]any
		if json.Unmarshal(out, &obj) != nil {
			p.t.Errorf("continuity hook < %s: stdout is not one JSON object: %s", payloadFile, out)
		}
	}
	return elapsed
}
