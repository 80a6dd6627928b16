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

// geminiVersion is the Gemini CLI release the tests pin (see
// /work/shared/codex-gemini-facts.md).
const geminiVersion = "0.61.0"

// geminiRunTimeout bounds one run of Gemini CLI: 1-2 s on an idle machine,
// but a node start-up and ten model calls took 50 s on a loaded one.
const geminiRunTimeout = 4 * time.Minute

// geminiBinary returns the pinned Gemini CLI's bundle: $GEMINI_BIN, else
// the npm install under ~/.cache/gemini-e2e/VERSION (where .ci/run and
// /work/shared/e2e/gemini-e2e put it). It skips the test, saying why, when
// node or the client is missing.
func geminiBinary(t *testing.T) string {
	t.Helper()
	requireE2E(t)
	if _, err := exec.LookPath("node"); err != nil {
		missingClient(t, "Gemini CLI "+geminiVersion+" (GEMINI_BIN)", fmt.Errorf("node (>= 20) is not on PATH: %w", err))
	}
	bin := os.Getenv("GEMINI_BIN")
	if bin == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			missingClient(t, "Gemini CLI "+geminiVersion+" (GEMINI_BIN)", fmt.Errorf("no home directory to find its cache: %w", err))
		}
		bin = filepath.Join(home, ".cache", "gemini-e2e", geminiVersion, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
	}
	if _, err := os.Stat(bin); err != nil {
		missingClient(t, "Gemini CLI "+geminiVersion+" (GEMINI_BIN)", fmt.Errorf("not installed at %s (npm install @google/gemini-cli@%s in ~/.cache/gemini-e2e/%s)", bin, geminiVersion, geminiVersion))
	}
	return bin
}

// geminiProject is a git repository with continuity registered for Gemini
// CLI, a Gemini CLI home of its own (GEMINI_CLI_HOME) that trusts the
// repository, and a stand-in Gemini API.
type geminiProject struct {
	*project
	home   string // GEMINI_CLI_HOME
	gemini string // the Gemini CLI bundle
	gapi   *GeminiServer
}

// newGeminiProject makes the repository, the home and the
// API. Like the user would, it trusts the folder in trustedFolders.json and
// picks API-key auth in the user settings. It registers nothing.
func newGeminiProject(t *testing.T) *geminiProject {
	t.Helper()
	bin := geminiBinary(t)
	p := newRepo(t)
	p.write("README.md", "# demo service\n\nSessions use cookies.\n")
	p.run("git", "commit", "-q", "-am", "say how sessions work")
	g := &geminiProject{project: p, home: t.TempDir(), gemini: bin, gapi: NewGemini()}
	t.Cleanup(g.gapi.Close)
	g.writeHome("settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}},`+
		`"privacy":{"usageStatisticsEnabled":false},"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false}}`+"\n")
	trust, _ := json.Marshal(map[string]string{p.dir: "TRUST_FOLDER"})
	g.writeHome("trustedFolders.json", string(trust)+"\n")
	return g
}

func (g *geminiProject) writeHome(name, text string) {
	g.t.Helper()
	path := filepath.Join(g.home, ".gemini", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

// initGemini builds continuity, registers it for Gemini CLI in the
// repository and starts a work stream.
func (g *geminiProject) initGemini(stream, goal, now string, next ...string) {
	g.t.Helper()
	g.bin = continuityBinary(g.t)
	g.run(g.bin, "init", "--agent", "gemini")
	settings := g.read(".gemini/settings.json")
	if !strings.Contains(settings, "hook --agent gemini") {
		g.t.Fatalf("continuity init --agent gemini registered no hook in .gemini/settings.json:\n%s", settings)
	}
	g.run(g.bin, "new", stream, "--goal", goal)
	g.run(g.bin, "now", now)
	for _, n := range next {
		g.run(g.bin, "next", n)
	}
	// Committed as a team would: the registration and the ledger are not
	// the session's uncommitted work.
	g.run("git", "add", "-A")
	g.run("git", "commit", "-q", "-m", "Register continuity for Gemini CLI")
}

// geminiSession is the outcome of one Gemini CLI run.
type geminiSession struct {
	ID       string
	Response string
	Requests []GeminiRequest // the requests the API received during the run
	Stderr   string
}

// runGemini runs Gemini CLI once, headless, in the repository, with the
// responses scripted: runGemini(resps, "-p", "fix it", "--session-id", id).
// It adds --output-format json and --yolo (write tools run without asking).
func (g *geminiProject) runGemini(responses []GeminiResponse, args ...string) geminiSession {
	g.t.Helper()
	before := len(g.gapi.Requests())
	g.gapi.Push(responses...)
	args = append(append([]string{g.gemini}, args...), "--output-format", "json", "--yolo")
	ctx, cancel := context.WithTimeout(context.Background(), geminiRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = g.dir
	cmd.Env = append(append([]string(nil), g.env...),
		"GOOGLE_GEMINI_BASE_URL="+g.gapi.URL,
		"GEMINI_API_KEY=e2e-offline",
		"GEMINI_CLI_HOME="+g.home,
		"GEMINI_CLI_NO_RELAUNCH=1", // one process: a timeout kills the client itself
		"NO_COLOR=1",
	)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	g.t.Logf("gemini %s: %.1fs", strings.Join(args[1:], " "), time.Since(start).Seconds())
	if err != nil {
		g.t.Fatalf("gemini %s: %v\nstdout: %s\nstderr: %s", strings.Join(args[1:], " "), err, stdout.String(), stderr.String())
	}
	var out struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.SessionID == "" {
		g.t.Fatalf("gemini %s: no session id in output (%v):\n%s\nstderr: %s", strings.Join(args[1:], " "), err, stdout.String(), stderr.String())
	}
	return geminiSession{ID: out.SessionID, Response: out.Response, Requests: g.gapi.Requests()[before:], Stderr: stderr.String()}
}

// mainRequests keeps the main-loop model calls.
func mainRequests(reqs []GeminiRequest) []GeminiRequest {
	var out []GeminiRequest
	for _, r := range reqs {
		if r.Main() {
			out = append(out, r)
		}
	}
	return out
}

// geminiTexts returns every text a request sends the model: the system
// instruction's, then each content part's (function responses included).
func geminiTexts(body []byte) []string {
	sys, contents := requestTexts(body)
	return append(sys, contents...)
}

// requestTexts returns the texts of a request's system instruction and of
// its contents, apart.
func requestTexts(body []byte) (system, contents []string) {
	type part struct {
		Text             string          `json:"text"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
	}
	var req struct {
		SystemInstruction struct {
			Parts []part `json:"parts"`
		} `json:"systemInstruction"`
		Contents []struct {
			Parts []part `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil, nil
	}
	add := func(out []string, p part) []string {
		if p.Text != "" {
			out = append(out, p.Text)
		}
		if len(p.FunctionResponse) > 0 {
			out = append(out, string(p.FunctionResponse))
		}
		return out
	}
	for _, p := range req.SystemInstruction.Parts {
		system = add(system, p)
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			contents = add(contents, p)
		}
	}
	return system, contents
}

// hookContexts returns what hooks injected into a request's contents (the
// system instruction only talks about them), as the model sees it: the text of each <hook_context> block, with the &lt; and &gt;
// Gemini CLI escapes put back.
func hookContexts(body []byte) []string {
	var out []string
	_, contents := requestTexts(body)
	for _, text := range contents {
		for {
			i := strings.Index(text, "<hook_context>")
			if i < 0 {
				break
			}
			text = text[i+len("<hook_context>"):]
			end := strings.Index(text, "</hook_context>")
			if end < 0 {
				end = len(text)
			}
			out = append(out, strings.NewReplacer("&lt;", "<", "&gt;", ">").Replace(text[:end]))
			text = text[end:]
		}
	}
	return out
}

// chatFile returns the path of a session's Gemini CLI chat file.
func (g *geminiProject) chatFile(id string) string {
	g.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(g.home, ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".jsonl"))
	if len(matches) == 0 {
		g.t.Fatalf("no chat file for session %s under %s", id, g.home)
	}
	return matches[0]
}
