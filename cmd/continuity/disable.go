package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

type disableOptions struct {
	Off  bool // disable; else enable
	User bool // the user's configuration, for every repository
}

func newDisableCmd(a *app, off bool) *cobra.Command {
	o := disableOptions{Off: off}
	use, short, long := "enable", "Switch continuity's hooks back on", `Switch continuity's hooks back on for this repository (its .continuity.yaml loses the
disable line that 'continuity disable' wrote), or with --user for every repository of yours.`
	if off {
		use, short, long = "disable", "Switch continuity's hooks off (this repository, or --user)", `Switch continuity's hooks off for this repository: its .continuity.yaml (committed: for the
whole team) gets 'disable: true', and the hooks do nothing: no handoff, nothing injected. With --user
the user's configuration gets it, for every repository. doctor and context say so; 'continuity
enable' switches them back on. CONTINUITY_DISABLE=1 does the same for one shell.`
	}
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWith(o, func() error { return runDisable(a, o) })
		},
	}
	c.Flags().BoolVar(&o.User, "user", false, "the user's configuration (every repository), not this repository's")
	return c
}

func runDisable(a *app, o disableOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	path, opts := filepath.Join(p.Root, workspace.ConfigFile), p.WriteOptions()
	if o.User {
		opts.Root = workspace.UserConfigDir(a.getenv)
		if opts.Root == "" {
			return fmt.Errorf("disable --user: no configuration directory (set XDG_CONFIG_HOME or HOME)")
		}
		path = filepath.Join(opts.Root, "continuity", "config.yaml")
		if err := os.MkdirAll(opts.Root, 0o700); err != nil {
			return err
		}
	}
	opts.MaxSize = workspace.MaxConfigSize
	changed, err := core.SetDisabled(path, opts, o.Off)
	if err != nil {
		return err
	}
	where := "this repository (" + p.Rel(path) + ")"
	if o.User {
		where = "every repository of yours (" + path + ")"
	}
	verb := "enabled"
	if o.Off {
		verb = "disabled"
	}
	state := verb + " for " + where
	if !changed {
		state = "already " + state
	}
	fmt.Fprintf(a.out, "continuity: %s\n", state)
	// Another layer may still decide: say which.
	if q, err := a.project(); err == nil {
		if by := disabledBy(q); !o.Off && q.Config.Disable {
			fmt.Fprintf(a.out, "continuity: still disabled by %s\n", by)
		}
	}
	return nil
}

// disabledBy names where the configuration that disables continuity comes
// from: a file and its line, or the environment.
func disabledBy(p *workspace.Workspace) string {
	from := p.Config.From["disable"]
	if from == "" {
		return "the configuration"
	}
	if strings.HasPrefix(from, "$") {
		return from + " in the environment"
	}
	return from
}
