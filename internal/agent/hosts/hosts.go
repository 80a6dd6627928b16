// Package hosts is the list of the coding agents continuity serves, written
// once: a new host is its package under internal/agent and one line here.
// Commands choose a host by name from it, readers name an agent by its
// title, and tests that go through every host range over it.
package hosts

import (
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/agent/copilot"
	"github.com/continuity-md/continuity/internal/agent/droid"
	"github.com/continuity-md/continuity/internal/agent/gemini"
	"github.com/continuity-md/continuity/internal/agent/qwen"
)

// all are the hosts, the default first, each served once.
var all = serve(claude.Host{}, codex.Host{}, gemini.Host{}, copilot.Host{}, droid.Host{}, qwen.Host{})

func serve(hs ...agent.Host) []agent.Served {
	out := make([]agent.Served, len(hs))
	for i, h := range hs {
		out[i] = agent.Serve(h)
	}
	return out
}

// All returns every host, the default first.
func All() []agent.Served { return append([]agent.Served(nil), all...) }

// Named returns the host called name, and false when there is none.
func Named(name string) (agent.Served, bool) {
	for _, h := range all {
		if h.Name() == name {
			return h, true
		}
	}
	return agent.Served{}, false
}

// TitleOf is the title of the host called name ("Claude Code"), or name
// itself when no host is called so: a handoff records its agent by name,
// which a build that does not know the host still shows.
func TitleOf(name string) string {
	if h, ok := Named(name); ok {
		return h.Title()
	}
	return name
}
