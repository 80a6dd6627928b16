package main

import (
	"fmt"
	"strings"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/agent/copilot"
	"github.com/continuity-md/continuity/internal/agent/droid"
	"github.com/continuity-md/continuity/internal/agent/gemini"
)

// hosts are the coding agents continuity serves, the default first.
var hosts = []agent.Host{claude.Host{}, codex.Host{}, gemini.Host{}, copilot.Host{}, droid.Host{}}

// hostNamed returns the host called name ("" is the default, the first).
func hostNamed(name string) (agent.Host, error) {
	if name == "" {
		return hosts[0], nil
	}
	for _, h := range hosts {
		if h.Name() == name {
			return h, nil
		}
	}
	return nil, usageError{Err: fmt.Errorf("unknown agent %q: use %s", name, strings.Join(hostNameList(), ", "))}
}

// hostNameList lists the hosts' names, the default first.
func hostNameList() []string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name()
	}
	return names
}
