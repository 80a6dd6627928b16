package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

func newMergeLedgerCmd(a *app) *cobra.Command {
	var o core.MergeOptions
	c := &cobra.Command{
		Use:   "merge-ledger BASE OURS THEIRS PATH",
		Short: "Git merge driver for ledgers (registered by init): merges them field by field",
		Long: `A git merge driver, run by git as "continuity merge-ledger %O %A %B %P" for the files
.gitattributes marks merge=continuity-ledger (continuity init registers both). It merges the
ledger's front matter field by field (lists as unions, decisions by their text, updated as the
later time) and its body line by line, writes the result to OURS, and exits 0 when clean, 1
when conflict markers were left. A side that is not a valid ledger falls back to git's own
line merge (git merge-file). With git 2.44 and later, init also passes the branch names
(--ours-label %X --theirs-label %Y --base-label %S), and the conflict markers name them.`,
		Args: exactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Base, o.Ours, o.Theirs, o.Path = args[0], args[1], args[2], args[3]
			return a.runWith(o, func() error { return runMergeLedger(a, o) })
		},
	}
	c.Flags().StringVar(&o.BaseLabel, "base-label", "", "the base's name in conflict markers (git's %S)")
	c.Flags().StringVar(&o.OursLabel, "ours-label", "", "our side's name in conflict markers (git's %X)")
	c.Flags().StringVar(&o.TheirsLabel, "theirs-label", "", "their side's name in conflict markers (git's %Y)")
	return c
}

func runMergeLedger(a *app, o core.MergeOptions) error {
	o.Dir, o.Getenv, o.Now = a.dir, a.getenv, a.now()
	res, err := core.Merge(o)
	if res.ByLine != "" {
		fmt.Fprintf(a.errw, "continuity: %s: merged line by line (%s)\n", o.Path, res.ByLine)
	}
	switch {
	case err != nil:
		return err
	case res.Conflicts > 0 && res.ByLine != "":
		fmt.Fprintf(a.errw, "continuity: %s: %s left; resolve the markers\n", o.Path, plural(res.Conflicts, "conflict"))
		return errSilent
	case res.Conflicts > 0:
		fmt.Fprintf(a.errw, "continuity: %s: merged with %s; resolve the markers\n", o.Path, plural(res.Conflicts, "conflict"))
		return errSilent
	case res.ByLine == "":
		fmt.Fprintf(a.errw, "continuity: %s: merged cleanly\n", o.Path)
	}
	return nil
}
