package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
)

// fakeCLI stands in for the continuity binary: it records each call and
// the environment it saw, makes the ledger on `new`, and answers the start
// hook with a context.
type fakeCLI struct {
	calls  []string
	hidden []string // variables the calls could not see
	fail   string   // a command that fails
}

func (f *fakeCLI) run(dir string, getenv func(string) string, stdin []byte, args ...string) ([]byte, []byte, error) {
	f.calls = append(f.calls, strings.Join(args, " "))
	for _, k := range []string{"CONTINUITY_LEDGER_DIR", "CLAUDE_ENV_FILE"} {
		if getenv(k) == "" {
			f.hidden = append(f.hidden, k)
		}
	}
	if args[0] == f.fail {
		return nil, []byte("boom"), errors.New("exit 1")
	}
	switch args[0] {
	case "new":
		path := filepath.Join(dir, "thoughts", "ledgers", "CONTINUITY_"+args[1]+".md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, nil, err
		}
		return []byte("created " + path + "\n"), nil, os.WriteFile(path, []byte("---\nsession: x\n---\n"), 0o644)
	case "init":
		h := claude.Host{}
		path, _ := h.SettingsPath(getenv, dir, agent.Project)
		settings, _, err := h.Register(nil, "continuity hook --agent claude")
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = os.WriteFile(path, settings, 0o644)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("x merge=y\n"), 0o644)
		}
		return nil, nil, err
	case "hook":
		ev, _ := claude.Host{}.Decode(stdin)
		if ev.Source == "compact" {
			return []byte(`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"the context"}}` + "\n"), nil, nil
		}
	}
	return []byte("ok\n"), nil, nil
}

// TestRunSteps: the demo runs its steps in order through the CLI, with the
// person's CONTINUITY_* settings and the host's private variables hidden,
// plays the host's compaction, and reports the ledger and the context.
func TestRunSteps(t *testing.T) {
	f := &fakeCLI{}
	env := map[string]string{"CONTINUITY_LEDGER_DIR": "/elsewhere", "CLAUDE_ENV_FILE": "/person/env", "PATH": os.Getenv("PATH"), "HOME": t.TempDir()}
	rep, err := Demo(DemoOptions{Host: claude.Host{}, Sample: claude.Sample{}, Getenv: func(k string) string { return env[k] }, Run: f.run})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.hidden) != 2*len(f.calls) {
		t.Errorf("the calls saw the person's variables: %d calls, hidden %v", len(f.calls), f.hidden)
	}
	if f.calls[0] != "init --agent claude --command continuity hook" || f.calls[len(f.calls)-1] != "hook --agent claude" {
		t.Errorf("calls %q", f.calls)
	}
	var cmds []string
	for _, st := range rep.Steps {
		cmds = append(cmds, st.Prompt+" "+st.Command)
	}
	got := strings.Join(cmds, "\n")
	for _, want := range []string{"$ continuity init", "$ claude", "$ continuity decide \"RS256, not HS256\" --why \"keys rotate per service\"",
		"> /compact (hook PreCompact)", "> /compact (hook SessionStart)", "> /compact (hook PostCompact)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no step %q in\n%s", want, got)
		}
	}
	if rep.Context != "the context" || rep.Ledger.Path != "thoughts/ledgers/CONTINUITY_auth-refactor.md" || rep.Kept {
		t.Errorf("report: context %q, ledger %+v", rep.Context, rep.Ledger)
	}
	if _, err := os.Stat(rep.Repository); err == nil {
		t.Error("the temporary repository was kept")
	}
}

func TestRunFails(t *testing.T) {
	f := &fakeCLI{fail: "now"}
	_, err := Demo(DemoOptions{Host: claude.Host{}, Sample: claude.Sample{}, Getenv: os.Getenv, Run: f.run})
	if err == nil || !strings.Contains(err.Error(), `continuity now "Token refresh endpoint"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a failing step: %v", err)
	}
}

func TestShellLine(t *testing.T) {
	if got := ShellLine([]string{"next", "Logout endpoint", "x"}); got != `continuity next "Logout endpoint" x` {
		t.Errorf("ShellLine = %q", got)
	}
}

// TestRunWithoutGitIdentity: on a fresh machine git may know no one (no
// configuration, no EMAIL, a host name it cannot make an address of); the
// demo's commits still run, with the demo's own author.
func TestRunWithoutGitIdentity(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"EMAIL", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	f := &fakeCLI{}
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": home}
	if _, err := Demo(DemoOptions{Host: claude.Host{}, Sample: claude.Sample{}, Getenv: func(k string) string { return env[k] }, Run: f.run}); err != nil {
		t.Fatal(err)
	}
}
