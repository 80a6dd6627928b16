package claude

import (
	"path/filepath"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/install"
)

// events are the hooks continuity registers with Claude Code, in order.
var events = []string{"SessionStart", "PreCompact", "PostCompact", "SessionEnd"}

// SettingsPath is .claude/settings.json in the project, or the user's
// settings.json in CLAUDE_CONFIG_DIR (default ~/.claude).
func (Host) SettingsPath(getenv func(string) string, root string, scope host.Scope) (string, error) {
	if scope == host.Project {
		return filepath.Join(root, ".claude", "settings.json"), nil
	}
	cfg, err := configDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg, "settings.json"), nil
}

// Register adds continuity's hooks to Claude Code settings.
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	return install.Add(settings, install.Hook{Command: command, Events: events,
		Timeouts: map[string]int{"SessionEnd": sessionEndTimeout}})
}

// Unregister removes what Register added.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, events...)
}

// Registered reports the command registered for each event.
func (Host) Registered(settings []byte) (host.Status, error) {
	st, err := install.Status(settings, events...)
	if err != nil {
		return host.Status{}, err
	}
	return host.Status{Events: st}, nil
}
