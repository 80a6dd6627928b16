package install

import (
	"fmt"
	"path/filepath"

	"github.com/continuity-md/continuity/internal/agent"
)

// Settings says where an agent keeps the file that registers its hooks.
type Settings struct {
	Agent   string // the agent's name, which errors start with
	Project string // the file's path below a project's root
	User    string // the file's path below Home
	Home    string // the agent's home folder ("" when unknown)
	HomeVar string // what sets Home, named when it is unknown
}

// Path is the settings file for scope: Project below root, or User below
// Home. An unknown root or home is an error.
func (s Settings) Path(scope agent.Scope, root string) (string, error) {
	switch scope {
	case agent.Project:
		if root == "" {
			return "", fmt.Errorf("%s: no repository for the project's settings", s.Agent)
		}
		return filepath.Join(root, s.Project), nil
	case agent.User:
		if s.Home == "" {
			return "", fmt.Errorf("%s: no home folder for the user's settings (set %s)", s.Agent, s.HomeVar)
		}
		return filepath.Join(s.Home, s.User), nil
	}
	return "", fmt.Errorf("%s: unknown scope %d", s.Agent, scope)
}

// AgentStatus is what settings register for agent name: the continuity
// command of each event, and as stale each registration in an older form
// (see Stale), said as "EVENT runs …, without --agent NAME".
func AgentStatus(settings []byte, name string, events ...string) (agent.Status, error) {
	st, err := Status(settings, events...)
	if err != nil {
		return agent.Status{}, err
	}
	out := agent.Status{Events: st}
	for _, ev := range Stale(st, events, name) {
		out.Stale = append(out.Stale, fmt.Sprintf("%s runs %q, without --agent %s", ev, st[ev], name))
	}
	return out, nil
}
