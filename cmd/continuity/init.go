package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
)

func newInitCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "init",
		Short: "Register the hooks with your coding agents and create the directories",
		Long: `Register continuity's hooks with each agent named by --agent (default: claude), in the
agent's settings for this project (with --user, the user's settings for every project), running
"continuity hook --agent NAME", and create the ledger and handoff directories. Every other setting, its order and formatting are
kept; files are written atomically; running init again changes nothing, except that a hook
registered in an older form is rewritten in place. A malformed settings file is refused untouched.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runInit(a, o) },
	}
	c.Flags().BoolVar(&o.User, "user", false, "register the hooks in the user's settings (all projects)")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	c.Flags().StringVar(&o.Command, "command", "", "the program the hooks run (default: this binary)")
	c.Flags().BoolVar(&o.PreCommit, "pre-commit", false, "also install a git pre-commit hook that refuses ledgers and handoffs holding secrets")
	agentFlag(c, &o, "the agents to register with")
	return c
}

func runInit(a *app, o setupOptions) error {
	s, err := a.openSetup(o)
	if err != nil {
		return err
	}
	prog := hookProgram(o.Command)
	res := setupResult{Hosts: []hostResult{}, MergeDriver: "none", PreCommit: "none"}
	var lines []string
	for _, h := range s.hosts {
		r, err := a.register(s, h, install.HookCommand(prog, h.Name()))
		if err != nil {
			return err
		}
		res.Hosts = append(res.Hosts, r)
		switch r.Action {
		case "registered":
			lines = append(lines, fmt.Sprintf("registered the hooks in %s (command: %s)", r.Settings, r.Command))
		case "updated":
			lines = append(lines, fmt.Sprintf("updated the hooks in %s to the command %s (was: %s)", r.Settings, r.Command, strings.Join(r.Rewrote, "; ")))
		default:
			lines = append(lines, fmt.Sprintf("hooks already registered in %s", r.Settings))
		}
	}
	if !o.User {
		p := s.p
		for _, d := range []string{p.LedgerDir, p.HandoffDir} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("create %s: %w", p.Rel(d), err)
			}
		}
		keep := filepath.Join(p.LedgerDir, ".gitkeep")
		if _, err := os.Stat(keep); errors.Is(err, fs.ErrNotExist) {
			if err := safefile.Create(keep, nil, p.WriteOptions()); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
		res.LedgerDir, res.HandoffDir = p.Rel(p.LedgerDir), p.Rel(p.HandoffDir)
		lines = append(lines, fmt.Sprintf("ledgers in %s, handoffs in %s", res.LedgerDir, res.HandoffDir))
		var msg string
		if res.MergeDriver, msg, err = registerMergeDriver(p, prog); err != nil {
			return err
		}
		lines = appendLine(lines, msg)
		if o.PreCommit {
			if res.PreCommit, msg, err = installPreCommit(p, prog); err != nil {
				return err
			}
			lines = appendLine(lines, msg)
		}
		if ls, _ := p.Ledgers(); len(ls) == 0 {
			lines = append(lines, "next: continuity new NAME --goal \"what this work stream is for\"")
		}
	}
	return a.printSetup(res, lines)
}

// register registers h's hooks, running command, in its settings for
// s.scope.
func (a *app) register(s *setup, h host.Host, command string) (hostResult, error) {
	r := hostResult{Agent: h.Name(), Title: h.Title(), Command: command}
	path, err := h.SettingsPath(a.getenv, s.p.Root, s.scope)
	if err != nil {
		return r, err
	}
	r.Settings = path
	changed, err := editSettings(path, s.settingsRoot(), func(old []byte) ([]byte, bool, error) {
		if st, err := h.Registered(old); err == nil {
			r.Rewrote = st.Stale
		}
		return h.Register(old, command)
	})
	switch {
	case err != nil:
		return r, err
	case !changed:
		r.Action, r.Rewrote = "unchanged", nil
	case len(r.Rewrote) > 0:
		r.Action = "updated"
	default:
		r.Action = "registered"
	}
	return r, nil
}

func appendLine(lines []string, msg string) []string {
	if msg == "" {
		return lines
	}
	return append(lines, msg)
}
