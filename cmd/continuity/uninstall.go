package main

import (
	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

func newUninstallCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove exactly the hooks init added; ledgers and handoffs stay",
		Long: `Remove the hooks init registered with each agent named by --agent (default: claude), and a
settings file left holding nothing else. Once no agent's hooks are left in the repository, the
ledger merge driver and the pre-commit scan go too, and --purge removes the repository's local
state (sessions, checkpoints, the active ledger, under the git directory). Ledgers and handoffs
stay. doctor then says continuity was uninstalled; init installs it again.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWith(o, func() error { return runUninstall(a, o) })
		},
	}
	c.Flags().BoolVar(&o.User, "user", false, "remove them from the user's settings")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	c.Flags().BoolVar(&o.Purge, "purge", false, "also remove the repository's local state (never a committed file)")
	agentFlag(c, &o, "the agents to remove the hooks from")
	return c
}

func runUninstall(a *app, o setupOptions) error {
	so, err := a.setupFor(o)
	if err != nil {
		return err
	}
	return a.printSetup(core.Uninstall(so))
}
