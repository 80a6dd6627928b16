package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
)

// events are the hooks continuity registers with Claude Code, in order.
// Stop (a turn's end) checkpoints what the transcript held, so that a
// session that dies without SessionEnd can still be handed off.
// SubagentStart gives a subagent its context (its other hooks carry its
// parent's session and are its parent's).
var events = []string{"SessionStart", "SubagentStart", "PreCompact", "PostCompact", "Stop", "SessionEnd"}

// stopTimeout (seconds) is the Stop timeout Register writes: the client
// waits for Stop hooks before the next turn, and a checkpoint stops
// reading at its own deadline well inside it.
const stopTimeout = 10

// name is the host's name in the hook command (--agent claude).
const name = "claude"

// HookEvents are the events Register registers, in order.
func (Host) HookEvents() []string { return append([]string(nil), events...) }

// SettingsPath is .claude/settings.json in the project, or the user's
// settings.json in CLAUDE_CONFIG_DIR (default ~/.claude).
func (Host) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	if scope == agent.Project {
		return filepath.Join(root, ".claude", "settings.json"), nil
	}
	cfg, err := configDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg, "settings.json"), nil
}

// SettingsFiles are the settings files Claude Code reads for a session in
// root that can register hooks, most specific first: the project's, the
// project's local (uncommitted) one, the user's. Doctor reads them all.
func (h Host) SettingsFiles(getenv func(string) string, root string) ([]string, error) {
	user, err := h.SettingsPath(getenv, root, agent.User)
	if err != nil {
		return nil, err
	}
	return []string{
		filepath.Join(root, ".claude", "settings.json"),
		filepath.Join(root, ".claude", "settings.local.json"),
		user,
	}, nil
}

// strict are the events whose matcher Copilot CLI, which reads the
// project's .claude/settings.json too, refuses to find empty: one empty
// matcher there and it rejects the whole file ("matcher cannot be empty",
// measured with 1.0.102). "*" matches everything in both clients.
var strict = []string{"SubagentStart", "PreCompact"}

// matchers are the matchers Register writes: "*" on the strict events.
var matchers = map[string]string{"SubagentStart": "*", "PreCompact": "*"}

// Register adds continuity's hooks to Claude Code settings. A continuity
// hook already there in an older form (no --agent, another path) is
// rewritten to command in place; an empty matcher of ours on a strict
// event becomes "*".
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	out, _, err := install.Add(fixMatchers(settings), install.Hook{Command: command, Events: events, Matchers: matchers,
		Timeouts: map[string]int{"Stop": stopTimeout, "SessionEnd": sessionEndTimeout}})
	if err != nil {
		return nil, false, err
	}
	return out, !bytes.Equal(out, settings), nil
}

// fixMatchers is settings with the empty matcher of each strict event's
// group that holds a continuity hook replaced by "*", in place: every
// other byte stays.
func fixMatchers(settings []byte) []byte {
	var at []gjson.Result
	forEmptyMatchers(settings, func(_ string, m gjson.Result, mine bool) {
		if mine {
			at = append(at, m)
		}
	})
	slices.SortFunc(at, func(a, b gjson.Result) int { return a.Index - b.Index })
	out := settings
	for i := len(at) - 1; i >= 0; i-- {
		m := at[i]
		if m.Index <= 0 || m.Index+len(m.Raw) > len(out) || string(out[m.Index:m.Index+len(m.Raw)]) != m.Raw {
			continue // no offset to edit at: leave it to doctor's note
		}
		out = append(append(append([]byte(nil), out[:m.Index]...), `"*"`...), out[m.Index+len(m.Raw):]...)
	}
	return out
}

// holdsContinuity reports whether a matcher group holds a continuity hook.
func holdsContinuity(group gjson.Result) bool {
	mine := false
	group.Get("hooks").ForEach(func(_, e gjson.Result) bool {
		mine = install.IsContinuityHook(e.Get("command").Str)
		return !mine
	})
	return mine
}

// forEmptyMatchers calls fn with each matcher "" of a strict event's
// group in settings, and whether the group holds a continuity hook.
func forEmptyMatchers(settings []byte, fn func(ev string, m gjson.Result, mine bool)) {
	if !gjson.ValidBytes(settings) {
		return
	}
	for _, ev := range strict {
		gjson.GetBytes(settings, "hooks."+ev).ForEach(func(_, group gjson.Result) bool {
			if m := group.Get("matcher"); m.Type == gjson.String && m.Str == "" {
				fn(ev, m, holdsContinuity(group))
			}
			return true
		})
	}
}

// rejected says, for doctor, why Copilot CLI would reject settings (an
// empty matcher on a strict event): registrations of continuity's that
// init rewrites, and a note.
func rejected(settings []byte) (stale []string, note string) {
	var others []string
	forEmptyMatchers(settings, func(ev string, _ gjson.Result, mine bool) {
		if mine {
			stale = append(stale, ev+`: matcher "", which Copilot CLI rejects (init writes "*")`)
		} else if !slices.Contains(others, ev) {
			others = append(others, ev)
		}
	})
	if len(stale) == 0 && len(others) == 0 {
		return nil, ""
	}
	note = `Copilot CLI rejects this whole file, and runs none of its hooks, because a matcher is "" ("matcher cannot be empty")`
	if len(others) > 0 {
		return stale, note + ": give the " + strings.Join(others, " and ") + ` group "matcher": "*" (Claude Code reads it the same), or remove the key`
	}
	return stale, note + ": run `continuity init` again, which writes \"*\""
}

// Unregister removes what Register added.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, events...)
}

// Registered reports the command registered for each event, the
// registrations in an older form (Stale: "EVENT runs …, without --agent
// claude"), and, for an event registered nowhere
// else, the continuity plugin when the settings enable it: its hooks run
// "continuity hook --agent claude" through the binary on PATH.
func (Host) Registered(settings []byte) (agent.Status, error) {
	out, err := install.AgentStatus(settings, name, events...)
	if err != nil {
		return agent.Status{}, err
	}
	if stale, note := rejected(settings); note != "" {
		out.Stale = append(out.Stale, stale...)
		out.Notes = append(out.Notes, note)
	}
	if id := enabledPlugin(settings); id != "" {
		for _, ev := range events {
			if out.Events[ev] == "" {
				out.Events[ev] = install.HookCommand("continuity", name) + " (plugin " + id + ")"
			}
		}
	}
	return out, nil
}

// enabledPlugin returns the id of the continuity plugin when settings
// enable it ("continuity@MARKETPLACE": true), else "".
func enabledPlugin(settings []byte) string {
	var s struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return ""
	}
	var ids []string
	for id, on := range s.EnabledPlugins {
		if b, ok := on.(bool); ok && b && strings.HasPrefix(id, "continuity@") {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	sort.Strings(ids)
	return ids[0]
}
