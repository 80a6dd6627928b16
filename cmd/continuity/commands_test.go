package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/core"
)

// TestArgvToOptions: each constructor only copies flags and arguments into
// its options; nothing runs.
func TestArgvToOptions(t *testing.T) {
	tests := []struct {
		argv []string
		want any
	}{
		{[]string{"now", "Logout", "endpoint"}, editOptions{Verb: "now", Items: []string{"Logout endpoint"}}},
		{[]string{"now", ""}, editOptions{Verb: "now", Items: []string{""}}},
		{[]string{"goal", "-l", "auth", "Ship it", "--json"}, editOptions{Verb: "goal", Stream: "auth", Items: []string{"Ship it"}, JSON: true}},
		{[]string{"done", " a ", "", "b"}, editOptions{Verb: "done", Items: []string{"a", "b"}}},
		{[]string{"done", "--stream", "auth", "a"}, editOptions{Verb: "done", Stream: "auth", Items: []string{"a"}}},
		{[]string{"search", "refresh", "--stream", "auth"}, searchOptions{Text: "refresh", Stream: "auth"}},
		{[]string{"import", "--all", "--stream", "billing"}, importOptions{Files: []string{}, All: true, Stream: "billing"}},
		{[]string{"next", "--remove", "x", "--ledger", "auth"}, editOptions{Verb: "next", Stream: "auth", Items: []string{"x"}, Remove: true}},
		{[]string{"constraint", "Keep /v1"}, editOptions{Verb: "constraint", Items: []string{"Keep /v1"}}},
		{[]string{"decide", "RS256", "--why", "rotation"}, editOptions{Verb: "decide", Items: []string{"RS256"}, Why: "rotation"}},
		{[]string{"new", "auth", "--goal", "Ship JWT auth"}, newOptions{Name: "auth", Goal: "Ship JWT auth"}},
		{[]string{"show", "auth", "--json"}, showOptions{Name: "auth", JSON: true}},
		{[]string{"list", "--recent", "3"}, listOptions{Recent: 3}},
		{[]string{"search", "refresh", "--author", "Ana", "--since", "7d", "--session", "auth"}, searchOptions{Text: "refresh", Author: "Ana", Since: "7d", Stream: "auth"}},
		{[]string{"lint", "a.md", "b.md"}, lintOptions{Files: []string{"a.md", "b.md"}}},
		{[]string{"config", "--json"}, configOptions{JSON: true}},
		{[]string{"demo", "--keep"}, demoOptions{Keep: true}},
		{[]string{"version"}, versionOptions{}},
		{[]string{"init", "--agent", "codex,gemini", "--user", "--command", "/bin/c", "--pre-commit"}, setupOptions{Agents: []string{"codex", "gemini"}, User: true, Command: "/bin/c", PreCommit: true}},
		{[]string{"uninstall", "--agent", "claude", "--agent", "codex", "--dir", "x"}, setupOptions{Agents: []string{"claude", "codex"}, Dir: "x"}},
		{[]string{"doctor", "--agent", "gemini"}, setupOptions{Agents: []string{"gemini"}}},
		{[]string{"scan", "--staged", "a.md"}, scanOptions{Files: []string{"a.md"}, Staged: true}},
		{[]string{"thin", "auth", "--keep", "3", "-n", "--json"}, thinOptions{Name: "auth", Keep: 3, DryRun: true, JSON: true}},
		{[]string{"thin"}, thinOptions{Keep: 10}},
		{[]string{"merge-ledger", "O", "A", "B", "P", "--ours-label", "main"}, core.MergeOptions{Base: "O", Ours: "A", Theirs: "B", Path: "P", OursLabel: "main"}},
		{[]string{"import", "--all", "-n", "--name", "billing"}, importOptions{Files: []string{}, All: true, DryRun: true, Stream: "billing"}},
		{[]string{"import", "x.md", "--stdout"}, importOptions{Files: []string{"x.md"}, Stdout: true}},
		{[]string{"prune", "--dry-run", "--json"}, pruneOptions{DryRun: true, JSON: true}},
		{[]string{"status", "--json"}, statusOptions{JSON: true}},
		{[]string{"log", "--stream", "auth", "--author", "Ana", "--agent", "codex", "--since", "7d", "-n", "5", "--json"}, logOptions{Stream: "auth", Author: "Ana", Agent: "codex", Since: "7d", Limit: 5, JSON: true}},
		{[]string{"serve", "--port", "7777"}, serveOptions{Port: 7777}},
		{[]string{"disable", "--user"}, disableOptions{Off: true, User: true}},
		{[]string{"enable"}, disableOptions{}},
		{[]string{"context", "--source", "resume", "--agent", "codex", "--json"}, contextOptions{Source: "resume", Agent: "codex", JSON: true}},
	}
	for _, tt := range tests {
		var got any
		var out, errw bytes.Buffer
		a := &app{out: &out, errw: &errw, getenv: func(string) string { return "" }, now: time.Now, parsed: func(o any) { got = o }}
		root := newRoot(a)
		root.SetArgs(tt.argv)
		if err := root.Execute(); err != nil {
			t.Errorf("%q: %v", tt.argv, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: options %+v, want %+v", tt.argv, got, tt.want)
		}
	}
}

// testApp is an app in a fresh directory (not a git repository) with buffers.
func testApp(t *testing.T) (*app, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	state := t.TempDir()
	var out, errw bytes.Buffer
	env := map[string]string{"XDG_STATE_HOME": state, "XDG_CONFIG_HOME": filepath.Join(state, "config")}
	return &app{out: &out, errw: &errw, dir: dir, getenv: func(k string) string { return env[k] },
		now: func() time.Time { return time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC) }}, &out, &errw
}

func TestRunEditDoneMovesNow(t *testing.T) {
	a, out, _ := testApp(t)
	if err := runNew(a, newOptions{Name: "auth", Goal: "Ship JWT auth"}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []editOptions{
		{Verb: "now", Items: []string{"Refresh endpoint"}},
		{Verb: "next", Items: []string{"Logout endpoint", "Tests"}},
	} {
		if err := runEdit(a, o); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if err := runEdit(a, editOptions{Verb: "done", Items: []string{"Refresh endpoint"}}); err != nil {
		t.Fatal(err)
	}
	want := "1 item added to done (thoughts/ledgers/CONTINUITY_auth.md)\nnow: Logout endpoint (was first in next)\n"
	if out.String() != want {
		t.Errorf("done printed %q, want %q", out, want)
	}
	out.Reset()
	if err := runShow(a, showOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Now       string
		Next      []string
		Done      []string
		Decisions []any
	}
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if l.Now != "Logout endpoint" || !reflect.DeepEqual(l.Next, []string{"Tests"}) || !reflect.DeepEqual(l.Done, []string{"Refresh endpoint"}) {
		t.Errorf("after done: %+v", l)
	}
	if !strings.Contains(out.String(), `"decisions": []`) || strings.Contains(out.String(), "null") {
		t.Errorf("show --json: empty lists must be []:\n%s", out)
	}
}

func TestRunEditUsage(t *testing.T) {
	a, _, _ := testApp(t)
	for _, o := range []editOptions{
		{Verb: "goal", Items: []string{""}},
		{Verb: "next"},
		{Verb: "decide", Items: []string{"RS256"}},
	} {
		var ue usageError
		if err := runEdit(a, o); !errors.As(err, &ue) {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

func TestRunLintMissingAndJSON(t *testing.T) {
	a, out, errw := testApp(t)
	err := runLint(a, lintOptions{Files: []string{"nosuch.md"}})
	if !errors.Is(err, errSilent) || out.String() != "nosuch.md: no such file\n" || errw.String() != "continuity: 1 file with problems\n" {
		t.Errorf("lint nosuch.md: %v, stdout %q, stderr %q", err, out, errw)
	}
	out.Reset()
	if err := os.WriteFile(filepath.Join(a.dir, "ok.md"), []byte("---\nsession: ok\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runLint(a, lintOptions{Files: []string{"ok.md"}, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"files\": 1,\n  \"problems\": []\n}\n"; out.String() != want {
		t.Errorf("lint --json = %q, want %q", out, want)
	}
}

func TestJSONRefused(t *testing.T) {
	var out, errw bytes.Buffer
	code := run([]string{"merge-ledger", "a", "b", "c", "d", "--json"}, strings.NewReader(""), &out, &errw)
	if code != 2 || out.Len() != 0 || !strings.HasPrefix(errw.String(), "continuity: merge-ledger: no --json") {
		t.Errorf("merge-ledger --json: exit %d, stdout %q, stderr %q", code, out.String(), errw.String())
	}
}

// TestListShowContextSize: list and show say how full the agent's context
// was at the latest handoff, from its front matter, in text and --json;
// nothing when the handoff does not say.
func TestListShowContextSize(t *testing.T) {
	a, out, _ := testApp(t)
	if err := runNew(a, newOptions{Name: "auth", Goal: "Ship JWT auth"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(a.dir, "thoughts", "shared", "handoffs", "auth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, extra string) {
		src := "---\nsession: auth\ncreated: 2026-11-22T12:00:00Z\nevent: pre-compact\nauthor: Kim\n" + extra + "---\n\n## Summary\n\nx\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("2026-11-22T12-00-00Z_pre-compact_aaaaaaaa.md", "")
	out.Reset()
	if err := runList(a, listOptions{Recent: 10}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "handed off") {
		t.Errorf("list, no tokens:\n%s", out)
	}
	write("2026-11-22T13-00-00Z_pre-compact_bbbbbbbb.md", "model: model-x\ntokens: 153412\n")
	out.Reset()
	if err := runList(a, listOptions{Recent: 10}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "_pre-compact_bbbbbbbb.md (pre-compact by Kim, 2 h ago), handed off at 153k tokens\n") {
		t.Errorf("list:\n%s", out)
	}
	out.Reset()
	if err := runList(a, listOptions{Recent: 10, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"tokens": 153412`) || !strings.Contains(out.String(), `"model": "model-x"`) {
		t.Errorf("list --json:\n%s", out)
	}
	out.Reset()
	if err := runShow(a, showOptions{Terminal: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "_pre-compact_bbbbbbbb.md") || !strings.Contains(out.String(), "(handed off at 153k tokens)") {
		t.Errorf("show:\n%s", out)
	}
	out.Reset()
	if err := runShow(a, showOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Stream string
		Latest struct {
			Path   string
			Tokens int
		} `json:"latest_handoff"`
	}
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil || shown.Stream != "auth" || shown.Latest.Tokens != 153412 {
		t.Errorf("show --json: %+v, %v\n%s", shown, err, out)
	}
	out.Reset()
	if err := runShow(a, showOptions{}); err != nil || strings.Contains(out.String(), "handed off") {
		t.Errorf("show piped must print the file's exact bytes:\n%s", out)
	}
}

// TestExitCodesByType: the exit code follows the error's type, never its
// wording: cobra's usage mistakes exit 2, and a file operation that fails
// with EINVAL ("invalid argument", the word cobra uses for a bad flag
// value) is a failure, exit 1.
func TestExitCodesByType(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"nosuchcommand"}, 2},
		{[]string{"show", "a", "b", "c"}, 2},
		{[]string{"list", "--recent", "x"}, 2},
		{[]string{"list", "--nosuchflag"}, 2},
		{[]string{"lint", "bad\x00name.md"}, 1},
	} {
		var out, errw bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &out, &errw)
		if code != tt.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tt.args, code, tt.code, errw.String())
		}
	}
}
