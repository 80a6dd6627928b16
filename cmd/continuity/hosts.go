package main

import (
	"fmt"
	"strings"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/hosts"
)

// known are the hosts this command serves (hosts.All), the default first,
// each served once: its optional capabilities found here.
var known = hosts.All()

// hostNamed returns the host called name ("" is the default, the first).
func hostNamed(name string) (agent.Served, error) {
	if name == "" {
		return known[0], nil
	}
	for _, h := range known {
		if h.Name() == name {
			return h, nil
		}
	}
	return agent.Served{}, usageError{Err: fmt.Errorf("unknown agent %q: use %s", name, strings.Join(hostNameList(), ", "))}
}

// hostNameList lists the hosts' names, the default first.
func hostNameList() []string {
	names := make([]string, len(known))
	for i, h := range known {
		names[i] = h.Name()
	}
	return names
}
