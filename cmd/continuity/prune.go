package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

type pruneOptions struct{ DryRun, JSON bool }

func newPruneCmd(a *app) *cobra.Command {
	var o pruneOptions
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove old local state (never a ledger, a handoff or any committed file)",
		Long: `Remove local state, all under the git directory: remembered agent sessions older than
retention.days (default 30) or beyond the newest retention.max (default 200), and the temporary
files and directories writes leave (a killed write's included) once they are an hour old and no
write holds their lock. Lock files stay: deleting one another process has open would let two
writers in at once. Ledgers, handoffs and every other file in the work tree are never touched.
--json prints {"dry_run": BOOL, "removed": [PATH...]}. The session start hook runs it lazily,
at most once a day.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runPrune(a, o) })
		},
	}
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "say what would be removed, remove nothing")
	return c
}

func runPrune(a *app, o pruneOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	removed, err := core.Prune(p, a.now(), o.DryRun)
	if o.JSON {
		if removed == nil {
			removed = []string{}
		}
		if jerr := writeJSON(a.out, struct {
			DryRun  bool     `json:"dry_run"`
			Removed []string `json:"removed"`
		}{o.DryRun, removed}); jerr != nil {
			return jerr
		}
		if err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		return nil
	}
	for _, r := range removed {
		verb := "removed"
		if o.DryRun {
			verb = "would remove"
		}
		fmt.Fprintf(a.out, "%s %s\n", verb, r)
	}
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if len(removed) == 0 {
		fmt.Fprintln(a.out, "nothing to prune")
	}
	return nil
}
