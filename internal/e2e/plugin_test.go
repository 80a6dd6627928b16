package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Claude Code plugin lives in the repository: the marketplace file at
// .claude-plugin/marketplace.json lists one plugin, ./plugin.
const (
	pluginDir = "plugin"
	pluginID  = "continuity@continuity" // plugin name @ marketplace name
)

// repoRoot returns the module's root directory (this package is internal/e2e).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude-plugin", "marketplace.json")); err != nil {
		t.Fatalf("no marketplace file in the repository: %v", err)
	}
	return root
}

// validation is the part of `claude plugin validate --json` the tests read.
type validation struct {
	Success  bool             `json:"success"`
	Target   string           `json:"target"`
	Manifest *validatedFile   `json:"manifest"`
	Contents []validatedFile  `json:"contents"`
	Advice   []map[string]any `json:"advice"`
	Provides *struct {
		Hooks []struct {
			Event   string `json:"event"`
			Command string `json:"command"`
		} `json:"hooks"`
		Skills []string `json:"skills"`
	} `json:"provides"`
	Directory *struct {
		Findings []struct {
			Code     string `json:"code"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"findings"`
	} `json:"directory"`
}

type validatedFile struct {
	File     string    `json:"file"`
	Errors   []finding `json:"errors"`
	Warnings []finding `json:"warnings"`
}

type finding struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// validate runs the pinned client's `plugin validate --strict --json` on dir
// and fails the test on any error, warning or advice it reports. The checks
// of Anthropic's plugin directory (a catalog this plugin is not submitted to:
// licence, icon) are logged, not failed.
func validate(t *testing.T, dir string) validation {
	t.Helper()
	claude := claudeBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "plugin", "validate", "--strict", "--json", dir)
	cmd.Env = append(cleanEnv(), "PATH="+os.Getenv("PATH"), "CLAUDE_CONFIG_DIR="+t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run() // exit 1 on failure; the report says why
	var v validation
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("claude plugin validate %s: %v (exit: %v)\nstdout: %s\nstderr: %s", dir, err, runErr, stdout.String(), stderr.String())
	}
	files := v.Contents
	if v.Manifest != nil {
		files = append([]validatedFile{*v.Manifest}, files...)
	}
	for _, f := range files {
		for _, e := range f.Errors {
			t.Errorf("%s: error at %s: %s", f.File, e.Path, e.Message)
		}
		for _, w := range f.Warnings {
			t.Errorf("%s: warning at %s: %s", f.File, w.Path, w.Message)
		}
	}
	for _, a := range v.Advice {
		t.Errorf("%s: advice: %v", dir, a)
	}
	if !v.Success || runErr != nil {
		t.Errorf("claude plugin validate --strict %s failed (exit: %v)\nstdout: %s\nstderr: %s", dir, runErr, stdout.String(), stderr.String())
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		t.Errorf("claude plugin validate %s wrote to stderr: %s", dir, s)
	}
	if v.Directory != nil {
		for _, f := range v.Directory.Findings {
			t.Logf("plugin directory check (not failed): %s %s: %s", f.Severity, f.Code, f.Message)
		}
	}
	return v
}

// TestPluginValidates runs the real client's validator on the plugin and on
// the marketplace, and checks that the plugin provides our four hooks (each
// through the fail-soft wrapper, SessionEnd with a 30 s timeout) and the skill.
func TestPluginValidates(t *testing.T) {
	requireE2E(t)
	root := repoRoot(t)

	m := validate(t, root)
	if m.Manifest == nil || !strings.HasSuffix(m.Target, filepath.Join(".claude-plugin", "marketplace.json")) {
		t.Errorf("validating the repository did not read the marketplace file: target %q", m.Target)
	}

	v := validate(t, filepath.Join(root, pluginDir))
	if v.Provides == nil {
		t.Fatal("the validator reports nothing the plugin provides")
	}
	events := map[string]string{}
	for _, h := range v.Provides.Hooks {
		events[h.Event] = h.Command
	}
	for _, ev := range []string{"SessionStart", "PreCompact", "PostCompact", "Stop", "SessionEnd"} {
		if c := events[ev]; !strings.Contains(c, "${CLAUDE_PLUGIN_ROOT}/hooks/continuity-hook.sh") {
			t.Errorf("hook %s: command %q, want the plugin's continuity-hook.sh", ev, c)
		}
	}
	if len(events) != 5 {
		t.Errorf("plugin hooks for %d events (%v), want 5", len(events), events)
	}
	if !slicesContains(v.Provides.Skills, "continuity:continuity") {
		t.Errorf("plugin skills = %v, want continuity:continuity", v.Provides.Skills)
	}

	// The validator does not print timeouts: read them from the hooks file.
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Timeout int `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	raw, err := os.ReadFile(filepath.Join(root, pluginDir, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &hooks); err != nil {
		t.Fatalf("hooks.json: %v", err)
	}
	if se := hooks.Hooks["SessionEnd"]; len(se) != 1 || len(se[0].Hooks) != 1 || se[0].Hooks[0].Timeout != 30 {
		t.Errorf("SessionEnd hook timeout: %+v, want one hook with timeout 30 (the client's default is 1.5 s)", se)
	}
	if st := hooks.Hooks["Stop"]; len(st) != 1 || len(st[0].Hooks) != 1 || st[0].Hooks[0].Timeout != 10 {
		t.Errorf("Stop hook timeout: %+v, want one hook with timeout 10 (the client waits for it)", st)
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// serveMarketplace commits the repository's marketplace and plugin files into
// a fresh git repository and serves it over git's smart HTTP protocol on
// 127.0.0.1, the way a user's `/plugin marketplace add owner/repo` clones it
// from GitHub. It returns the clone URL.
func serveMarketplace(t *testing.T, p *project) string {
	t.Helper()
	root := repoRoot(t)
	src := t.TempDir()
	for _, d := range []string{".claude-plugin", pluginDir} {
		if err := os.CopyFS(filepath.Join(src, d), os.DirFS(filepath.Join(root, d))); err != nil {
			t.Fatal(err)
		}
	}
	// os.CopyFS drops the exec bit; git should record what the repository holds.
	if err := filepath.WalkDir(filepath.Join(root, pluginDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil || info.Mode()&0o111 == 0 {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		return os.Chmod(filepath.Join(src, rel), 0o755)
	}); err != nil {
		t.Fatal(err)
	}
	served := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"commit", "-q", "-m", "continuity plugin"},
		{"clone", "-q", "--bare", ".", filepath.Join(served, "continuity.git")},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = p.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + served, "GIT_HTTP_EXPORT_ALL=1"},
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/continuity.git"
}

// claudeCLI runs a non-session client command (e.g. plugin install) with the
// project's offline environment and config dir, and returns its stdout.
func (p *project) claudeCLI(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.claude, args...)
	cmd.Dir = p.dir
	cmd.Env = append(append([]string(nil), p.env...),
		"ANTHROPIC_BASE_URL="+p.api.URL, "ANTHROPIC_API_KEY=sk-e2e-offline", "CLAUDE_CONFIG_DIR="+p.config,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		p.t.Fatalf("claude %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// installPlugin adds the repository's marketplace (served over git) and
// installs the plugin in the project's config dir, as a user would.
func (p *project) installPlugin() {
	p.t.Helper()
	url := serveMarketplace(p.t, p)
	p.claudeCLI("plugin", "marketplace", "add", url)
	p.claudeCLI("plugin", "install", pluginID)
	if list := p.claudeCLI("plugin", "list"); !strings.Contains(list, pluginID) {
		p.t.Fatalf("claude plugin list does not show %s:\n%s", pluginID, list)
	}
}

// pluginRuns returns the SessionStart runs of the plugin's hook recorded in
// a session's transcript (the client records its Stop runs too).
func (p *project) pluginRuns(id string) (plugin, direct []hookRun) {
	for _, r := range p.hookRuns(id) {
		if !strings.HasPrefix(r.Name, "SessionStart") {
			continue
		}
		if strings.Contains(r.Command, "continuity-hook.sh") {
			plugin = append(plugin, r)
		} else {
			direct = append(direct, r)
		}
	}
	return plugin, direct
}

// TestPluginInstallRunsHooks installs the plugin from the repository's
// marketplace (cloned over git from 127.0.0.1) into a fresh config dir,
// without `continuity init`, and checks that a session injects the ledger's
// goal, that compaction writes a handoff through the plugin's hooks, and that
// the skill is loaded.
func TestPluginInstallRunsHooks(t *testing.T) {
	p := newProject(t)
	p.bin = continuityBinary(t)
	p.run(p.bin, "new", workStream, "--goal", goal)
	p.installPlugin()

	work := p.runClaude([]AnthropicResponse{
		AnthropicTool("Write", map[string]any{"file_path": filepath.Join(p.dir, "src", "auth", "token.go"),
			"content": "package auth\n\nfunc Refresh() error { return nil }\n"}),
		AnthropicText("Added the refresh endpoint."),
	}, "-p", "add the token refresh endpoint", "--allowedTools", tools)

	ctx := p.firstContexts(work, work.ID)
	if !anyContains(ctx, goal) {
		t.Errorf("the plugin's SessionStart context lacks the goal %q:\n%s", goal, strings.Join(ctx, "\n---\n"))
	}
	plugin, direct := p.pluginRuns(work.ID)
	if len(plugin) != 1 || plugin[0].Name != "SessionStart:startup" || plugin[0].ExitCode != 0 {
		t.Errorf("plugin hook runs = %+v, want one SessionStart:startup exiting 0", plugin)
	}
	if len(direct) != 0 {
		t.Errorf("hook runs not through the plugin: %+v", direct)
	}
	reqs := modelRequests(work.Requests)
	if !anyContains(texts(reqs[0].Body), "continuity:continuity") {
		t.Error("the first request does not list the plugin's skill continuity:continuity")
	}

	p.runClaude(nil, "--resume", work.ID, "-p", "/compact keep the auth notes")
	names, all := p.handoffs()
	if len(names) == 0 {
		t.Fatal("no handoff written after /compact with the plugin's hooks")
	}
	if !strings.Contains(all, "src/auth/token.go") {
		t.Errorf("the handoffs do not name the file written:\n%s", all)
	}
	t.Logf("handoffs: %v", names)
}

// TestPluginWithoutBinary checks the fail-soft path: with the plugin
// installed and no continuity on PATH, a session runs normally, the hook
// exits 0 and tells the person how to install the binary.
func TestPluginWithoutBinary(t *testing.T) {
	p := newProject(t)
	p.installPlugin()
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "continuity")); err != nil {
			path = append(path, dir)
		}
	}
	for i, kv := range p.env {
		if strings.HasPrefix(kv, "PATH=") {
			p.env[i] = "PATH=" + strings.Join(path, string(os.PathListSeparator))
		}
	}
	s := p.runClaude([]AnthropicResponse{AnthropicText("hello")}, "-p", "say hello")
	if s.Result != "hello" {
		t.Errorf("result = %q, want the scripted text", s.Result)
	}
	plugin, _ := p.pluginRuns(s.ID)
	if len(plugin) != 1 || plugin[0].ExitCode != 0 {
		t.Fatalf("plugin hook runs = %+v, want one exiting 0", plugin)
	}
	if !strings.Contains(plugin[0].Stdout, "go install github.com/continuity-md/continuity/cmd/continuity@latest") {
		t.Errorf("without the binary the hook printed %q, want the install line", plugin[0].Stdout)
	}
	if ctx := injected(modelRequests(s.Requests)[0].Body); len(ctx) != 0 {
		t.Errorf("without the binary something was injected: %q", ctx)
	}
}

// TestPluginAndInitBoth registers continuity twice, through the plugin and
// through `continuity init`. Claude Code runs both (measured: two SessionStart
// runs, the ledger injected twice), so the plugin's wrapper steps aside when
// the settings register a runnable `continuity hook`: the ledger must reach
// the model once, and a compaction must write one handoff.
func TestPluginAndInitBoth(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	p.installPlugin()
	p.env = append(p.env, "CONTINUITY_DEBUG=1") // the wrapper says when it steps aside
	s := p.runClaude([]AnthropicResponse{AnthropicText("hello")}, "-p", "say hello")

	plugin, direct := p.pluginRuns(s.ID)
	if len(plugin) != 1 || len(direct) != 1 {
		t.Fatalf("hook runs: %d through the plugin, %d registered by init; want 1 and 1 (the client runs both)", len(plugin), len(direct))
	}
	if plugin[0].ExitCode != 0 || plugin[0].Stdout != "" || !strings.Contains(plugin[0].Stderr, "stepping aside") {
		t.Errorf("the plugin's hook did not step aside: exit %v, stdout %q, stderr %q", plugin[0].ExitCode, plugin[0].Stdout, plugin[0].Stderr)
	}
	if !strings.Contains(additionalContext(direct[0].Stdout), goal) {
		t.Errorf("the hook init registered printed no goal: %q", direct[0].Stdout)
	}
	n := 0
	for _, x := range texts(modelRequests(s.Requests)[0].Body) {
		n += strings.Count(x, "Goal: "+goal)
	}
	if n != 1 {
		t.Errorf("the goal reached the model %d times, want once", n)
	}

	p.runClaude(nil, "--resume", s.ID, "-p", "/compact keep the notes")
	names, _ := p.handoffs()
	pre := 0
	for _, name := range names {
		if strings.Contains(name, "_pre-compact_") {
			pre++
		}
	}
	if pre != 1 {
		t.Errorf("%d pre-compact handoffs, want 1: %v", pre, names)
	}
}
