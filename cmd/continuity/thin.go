package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

type thinOptions struct {
	Name   string // work stream; "" for the active one
	Keep   int    // the newest handoffs kept whatever their day
	DryRun bool
	JSON   bool
}

func newThinCmd(a *app) *cobra.Command {
	o := thinOptions{Keep: 10}
	c := &cobra.Command{
		Use:   "thin [NAME]",
		Short: "Remove older handoffs of a work stream with git rm, for you to review and commit",
		Long: `Thin a work stream's handoffs (the active one, or NAME): the newest --keep (default 10) stay,
and of the older ones only the last of each day. The rest are removed with 'git rm', so the change
is staged for you to review ('git status', 'git diff --staged') and commit, or undo with
'git restore --staged --worktree PATH...'. Only handoffs git tracks unmodified are removed: one that
is not committed yet could not be brought back, and is kept. --dry-run lists what would go.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			o.JSON = a.json
			return a.runWith(o, func() error { return runThin(a, o) })
		},
	}
	c.Flags().IntVar(&o.Keep, "keep", o.Keep, "how many of the newest handoffs to keep whatever their day")
	c.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "say what would be removed, remove nothing")
	return c
}

func runThin(a *app, o thinOptions) error {
	if o.Keep < 1 {
		return usageError{Err: errors.New("thin: --keep must be at least 1")}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	if p.Repo.Root == "" {
		return core.ErrNoGit
	}
	name, err := a.ledgerName(p, o.Name)
	if err != nil {
		return err
	}
	if !core.HasStream(p, name) {
		return core.StreamNotFound(p, name)
	}
	res, err := core.Thin(p, name, o.Keep, o.DryRun)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.out, res)
	}
	verb := "removed"
	if o.DryRun {
		verb = "would remove"
	}
	for _, r := range res.Removed {
		fmt.Fprintf(a.out, "%s %s\n", verb, r)
	}
	for _, k := range res.Spared {
		fmt.Fprintf(a.out, "kept %s\n", k)
	}
	switch {
	case len(res.Removed) == 0:
		fmt.Fprintf(a.out, "nothing to thin in %s\n", name)
	case !o.DryRun:
		fmt.Fprintf(a.out, "%s: staged with git rm; review with git status, commit, or undo with git restore --staged --worktree\n", plural(len(res.Removed), "handoff"))
	}
	return nil
}
