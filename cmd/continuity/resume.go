package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

func newResumeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "resume [NAME]",
		Short: "Make NAME the active ledger and print its context",
		Long: `Pick up a work stream: make NAME the active ledger in this worktree (when given) and print
the context a new session would get: the ledger and its latest handoff.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			e := a.env(hosts[0])
			if len(args) == 0 {
				name, err := a.activeName(p)
				if err != nil {
					return err
				}
				inj, err := core.Context(p, e, name, "startup", "")
				return printInjection(a, inj, err)
			}
			inj, err := core.Resume(p, e, args[0])
			if errors.Is(err, workspace.ErrBadName) {
				return usageError{Err: err}
			}
			if (err == nil || inj.Input.Ledger != nil || inj.Input.LedgerRaw != nil) && inj.Input.LedgerPath != "" {
				fmt.Fprintf(a.out, "active ledger: %s\n", inj.Input.LedgerPath)
			}
			return printInjection(a, inj, err)
		},
	}
}
