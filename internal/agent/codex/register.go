package codex

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
)

// events are the Codex hook events continuity registers, in order. Stop
// (a turn's end) lets the core checkpoint what it has read: Codex kills a
// SessionEnd hook after 3 s at most, so the end must find little new.
var events = []string{"SessionStart", "PreCompact", "PostCompact", "Stop", "SessionEnd"}

// startMatcher is SessionStart's matcher: every source Codex sends.
const startMatcher = "startup|resume|clear|compact"

// hook is what Register writes for command.
func hook(command string) install.Hook {
	return install.Hook{
		Command:  command,
		Events:   events,
		Matchers: map[string]string{"SessionStart": startMatcher},
		Timeouts: map[string]int{"SessionEnd": endTimeout},
	}
}

// SettingsPath is the hooks file for scope: .codex/hooks.json in the
// repository (Codex runs it only in a trusted project), or the user's
// $CODEX_HOME/hooks.json (~/.codex/hooks.json).
func (Host) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	return install.Settings{Agent: "codex", Project: filepath.Join(".codex", "hooks.json"), User: "hooks.json",
		Home: home(getenv), HomeVar: "CODEX_HOME or HOME"}.Path(scope, root)
}

// Register adds continuity's hooks to a Codex hooks.json, keeping every
// other byte; registering twice changes nothing. A registration with
// another matcher or timeout is removed and written again (install.Add
// rewrites only a command).
func (h Host) Register(settings []byte, command string) ([]byte, bool, error) {
	in := settings
	if len(h.differences(settings)) > 0 {
		var err error
		if settings, _, err = install.Remove(settings, events...); err != nil {
			return nil, false, err
		}
	}
	out, _, err := install.Add(settings, hook(command))
	if err != nil {
		return nil, false, err
	}
	return out, !bytes.Equal(out, in), nil
}

// Unregister removes exactly what Register added.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, events...)
}

// Registered reports the command registered for each event, registrations
// init would rewrite, and what keeps Codex from running them: an untrusted
// project, hooks nobody has trusted yet.
func (h Host) Registered(settings []byte) (agent.Status, error) {
	st, err := install.Status(settings, events...)
	if err != nil {
		return agent.Status{}, err
	}
	status := agent.Status{Events: st}
	for _, ev := range events {
		if cmd := st[ev]; cmd != "" && !strings.Contains(cmd, "--agent codex") {
			status.Stale = append(status.Stale, ev+": the command does not say --agent codex")
		}
	}
	status.Stale = append(status.Stale, h.differences(settings)...)
	registered := false
	for _, cmd := range st {
		registered = registered || cmd != ""
	}
	if registered {
		status.Ignored, status.Notes = h.trustNotes()
	}
	return status, nil
}

// differences names continuity hooks whose matcher or timeout is not the
// one Register writes.
func (Host) differences(settings []byte) []string {
	var out []string
	if !gjson.ValidBytes(settings) {
		return nil
	}
	hooks := gjson.GetBytes(settings, "hooks")
	for _, ev := range events {
		hooks.Get(gjson.Escape(ev)).ForEach(func(_, group gjson.Result) bool {
			group.Get("hooks").ForEach(func(_, e gjson.Result) bool {
				if !install.IsContinuityHook(e.Get("command").Str) {
					return true
				}
				if ev == "SessionStart" && group.Get("matcher").Str != startMatcher {
					out = append(out, fmt.Sprintf("SessionStart: matcher %q, not %q (some sources get no context)", group.Get("matcher").Str, startMatcher))
				}
				if ev == "SessionEnd" && e.Get("timeout").Int() != endTimeout {
					out = append(out, fmt.Sprintf("SessionEnd: timeout %s, not %d (Codex kills the hook after about 1 s without it)", e.Get("timeout").Raw, endTimeout))
				}
				return true
			})
			return true
		})
	}
	return out
}

// trustNotes says what Codex needs before it runs the hooks: project
// hooks run only in a project its config.toml trusts, and no hook runs
// until it is trusted itself (or Codex runs with
// --dangerously-bypass-hook-trust).
func (h Host) trustNotes() (ignored, notes []string) {
	dir := home(h.env)
	if dir == "" {
		return nil, []string{"Codex runs hooks only in a trusted project, and only hooks you have trusted; CODEX_HOME and HOME are unset, so continuity cannot tell whether they are"}
	}
	cfgPath := filepath.Join(dir, "config.toml")
	src, err := safefile.Read(cfgPath, safefile.Options{MaxSize: 4 << 20})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, []string{fmt.Sprintf("cannot read %s to tell whether Codex trusts this project: %v", cfgPath, err)}
	}
	cfg := readConfig(src)
	root := h.root
	if root == "" {
		root = repoRoot()
	}
	if root != "" && !cfg.trusts(root) {
		ignored = append(ignored, fmt.Sprintf("Codex does not trust %s, so it ignores the project's .codex/hooks.json (hooks in %s are not affected): trust the project when Codex asks, or add to %s:\n  [projects.%s]\n  trust_level = \"trusted\"",
			root, filepath.Join(dir, "hooks.json"), cfgPath, tomlQuote(root)))
	}
	if !cfg.hookTrusted {
		notes = append(notes, fmt.Sprintf("Codex runs a hook only once you have trusted it, and %s trusts none yet: start codex in the repository and accept continuity's hooks when it lists them for review (codex exec, which cannot ask, runs them only with --dangerously-bypass-hook-trust)", cfgPath))
	}
	return ignored, notes
}

// repoRoot is the repository holding the working directory (the nearest
// directory with a .git entry), "" when none: the project Registered
// speaks of when the host was not situated.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// trusts reports whether the config trusts dir (as given, or with its
// symbolic links resolved).
func (c config) trusts(dir string) bool {
	candidates := []string{filepath.Clean(dir)}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		candidates = append(candidates, r)
	}
	for _, d := range candidates {
		if c.projects[d] == "trusted" {
			return true
		}
	}
	return false
}

// tomlQuote is s as a TOML basic string.
func tomlQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
