package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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
			e := a.env(known[0])
			if len(args) == 0 {
				name, err := a.activeName(p)
				if err != nil {
					return err
				}
				inj, err := core.Context(p, e, name, "startup", "")
				return printInjection(a, forPerson(inj), err)
			}
			inj, err := core.Resume(p, e, args[0])
			if errors.Is(err, workspace.ErrBadName) {
				return usageError{Err: err}
			}
			if (err == nil || inj.Input.Ledger != nil || inj.Input.LedgerRaw != nil) && inj.Input.LedgerPath != "" {
				fmt.Fprintf(a.out, "active ledger: %s\n", inj.Input.LedgerPath)
			}
			return printInjection(a, forPerson(inj), err)
		},
	}
}

// forPerson words the injection's first line for the person who ran
// resume rather than for a model at a session's start: "work stream
// "auth" (thoughts/ledgers/CONTINUITY_auth.md), last updated …", where the
// model reads "…, restored at session start (startup); …".
func forPerson(inj core.Injection) core.Injection {
	in := inj.Input
	if in.LedgerPath == "" {
		return inj
	}
	first, rest, _ := strings.Cut(inj.Text, "\n")
	if !strings.HasPrefix(first, "continuity: the ledger of work stream ") {
		return inj
	}
	head := "Work stream " + strconv.Quote(in.Name) + " (" + in.LedgerPath + ")"
	if in.Ledger != nil && in.Ledger.Updated != "" {
		head += ", last updated " + in.Ledger.Updated
	}
	inj.Text = head + ":\n" + rest
	return inj
}
