package main

import (
	"fmt"
	"strings"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/host/claude"
	"github.com/continuity-md/continuity/internal/host/codex"
	"github.com/continuity-md/continuity/internal/host/gemini"
)

// hosts are the coding agents continuity serves, the default first.
var hosts = []host.Host{claude.Host{}, codex.Host{}, gemini.Host{}}

// hostNamed returns the host called name ("" is the default, the first).
func hostNamed(name string) (host.Host, error) {
	if name == "" {
		return hosts[0], nil
	}
	var names []string
	for _, h := range hosts {
		if h.Name() == name {
			return h, nil
		}
		names = append(names, h.Name())
	}
	return nil, usageError{fmt.Errorf("unknown agent %q: use %s", name, strings.Join(names, ", "))}
}
