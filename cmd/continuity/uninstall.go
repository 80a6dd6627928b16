package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/project"
)

func newUninstallCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove exactly the hooks init added; ledgers and handoffs stay",
		Long: `Remove the hooks init registered with each agent named by --agent (default: claude). Once no
agent's hooks are left in the repository, the ledger merge driver and the pre-commit scan go too.
Ledgers and handoffs stay.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runUninstall(a, o) },
	}
	c.Flags().BoolVar(&o.User, "user", false, "remove them from the user's settings")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	agentFlag(c, &o, "the agents to remove the hooks from")
	return c
}

func runUninstall(a *app, o setupOptions) error {
	s, err := a.openSetup(o)
	if err != nil {
		return err
	}
	res := setupResult{Hosts: []hostResult{}, MergeDriver: "none", PreCommit: "none"}
	var lines []string
	for _, h := range s.hosts {
		r := hostResult{Agent: h.Name(), Title: h.Title(), Action: "none"}
		if r.Settings, err = h.SettingsPath(a.getenv, s.p.Root, s.scope); err != nil {
			return err
		}
		if _, err := os.Stat(r.Settings); errors.Is(err, fs.ErrNotExist) {
			lines = append(lines, fmt.Sprintf("no hooks to remove: %s does not exist", r.Settings))
		} else {
			changed, err := editSettings(r.Settings, s.settingsRoot(), h.Unregister)
			if err != nil {
				return err
			}
			if changed {
				r.Action = "removed"
				lines = append(lines, fmt.Sprintf("removed the continuity hooks from %s (ledgers and handoffs are kept)", r.Settings))
			} else {
				lines = append(lines, fmt.Sprintf("no continuity hooks in %s", r.Settings))
			}
		}
		res.Hosts = append(res.Hosts, r)
	}
	if o.User {
		return a.printSetup(res, lines)
	}
	if left := a.registeredHosts(s.p); len(left) > 0 {
		res.MergeDriver, res.PreCommit = "kept", "kept"
		lines = append(lines, "kept the ledger merge driver and the pre-commit scan: hooks for "+strings.Join(left, ", ")+" are still registered here")
		return a.printSetup(res, lines)
	}
	var msg string
	if res.MergeDriver, msg, err = unregisterMergeDriver(s.p); err != nil {
		return err
	}
	lines = appendLine(lines, msg)
	if res.PreCommit, msg, err = removePreCommit(s.p); err != nil {
		return err
	}
	lines = appendLine(lines, msg)
	return a.printSetup(res, lines)
}

// registeredHosts names the hosts whose project settings still register a
// continuity hook (a file that cannot be read or parsed counts: uninstall
// keeps the repository's installers rather than guess).
func (a *app) registeredHosts(p *project.Project) []string {
	var names []string
	for _, h := range hosts {
		path, err := h.SettingsPath(a.getenv, p.Root, host.Project)
		if err != nil {
			continue
		}
		b, err := readSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		st, err := h.Registered(b)
		if err != nil {
			names = append(names, h.Title())
			continue
		}
		for _, c := range st.Events {
			if install.IsContinuityHook(c) {
				names = append(names, h.Title())
				break
			}
		}
	}
	return names
}
