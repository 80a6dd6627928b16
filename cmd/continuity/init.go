package main

import (
	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
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
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWith(o, func() error { return runInit(a, o) })
		},
	}
	c.Flags().BoolVar(&o.User, "user", false, "register the hooks in the user's settings (all projects)")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	c.Flags().StringVar(&o.Command, "command", "", "the program the hooks run (default: this binary)")
	c.Flags().BoolVar(&o.PreCommit, "pre-commit", false, "also install a git pre-commit hook that refuses ledgers and handoffs holding secrets")
	agentFlag(c, &o, "the agents to register with")
	return c
}

func runInit(a *app, o setupOptions) error {
	so, err := a.setupFor(o)
	if err != nil {
		return err
	}
	so.Program = core.Program(o.Command)
	return a.printSetup(core.Init(so))
}
