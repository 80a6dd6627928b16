package claude

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

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

// Register adds continuity's hooks to Claude Code settings. A continuity
// hook already there in an older form (no --agent, another path) is
// rewritten to command in place.
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	return install.Add(settings, install.Hook{Command: command, Events: events,
		Timeouts: map[string]int{"Stop": stopTimeout, "SessionEnd": sessionEndTimeout}})
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
	st, err := install.Status(settings, events...)
	if err != nil {
		return agent.Status{}, err
	}
	out := agent.Status{Events: st}
	for _, ev := range install.Stale(st, events, name) {
		out.Stale = append(out.Stale, fmt.Sprintf("%s runs %q, without --agent %s", ev, st[ev], name))
	}
	if id := enabledPlugin(settings); id != "" {
		for _, ev := range events {
			if st[ev] == "" {
				st[ev] = install.HookCommand("continuity", name) + " (plugin " + id + ")"
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
