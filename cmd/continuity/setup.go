package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/core"
)

type setupOptions struct {
	User      bool
	Dir       string
	Command   string   // init: the program the hooks run
	PreCommit bool     // init: also install the git pre-commit hook that runs continuity scan
	Purge     bool     // uninstall: also remove the repository's local state
	Agents    []string // --agent, repeatable or comma-separated
}

// agentFlag adds --agent to init, uninstall and doctor.
func agentFlag(c *cobra.Command, o *setupOptions, usage string) {
	c.Flags().StringSliceVar(&o.Agents, "agent", nil, usage+" ("+strings.Join(hostNameList(), ", ")+"; repeatable or comma-separated)")
}

// selectHosts returns the hosts names name, each once, in the order given;
// none gives the default host.
func selectHosts(names []string) ([]agent.Served, error) {
	if len(names) == 0 {
		return []agent.Served{known[0]}, nil
	}
	var out []agent.Served
	seen := map[string]bool{}
	for _, n := range names {
		h, err := hostNamed(strings.TrimSpace(n))
		if err != nil {
			return nil, err
		}
		if !seen[h.Name()] {
			seen[h.Name()] = true
			out = append(out, h)
		}
	}
	return out, nil
}

// setupFor turns init's or uninstall's options into the use case's.
func (a *app) setupFor(o setupOptions) (core.SetupOptions, error) {
	hs, err := selectHosts(o.Agents)
	if err != nil {
		return core.SetupOptions{}, err
	}
	dir := a.dir
	if o.Dir != "" {
		dir = o.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.dir, dir)
		}
	}
	return core.SetupOptions{Dir: dir, Getenv: a.getenv, Hosts: hs, All: known, User: o.User, PreCommit: o.PreCommit, Purge: o.Purge}, nil
}

// printSetup prints init's or uninstall's result: its lines, or with
// --json the result.
func (a *app) printSetup(res core.SetupResult, err error) error {
	if err != nil {
		return err
	}
	if a.json {
		return writeJSON(a.out, res)
	}
	printLines(a.out, res.Lines)
	return nil
}
