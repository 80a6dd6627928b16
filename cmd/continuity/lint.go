package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

type lintOptions struct {
	Files []string // none: every ledger in the ledger directory
	JSON  bool
}

func newLintCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "lint [FILE...]",
		Short: "Validate ledgers (all of them by default); exit 1 on any problem",
		Long: `Validate ledgers and print each problem as FILE:LINE: PROBLEM. With no FILE, every ledger in
the ledger directory is checked. For pre-commit hooks and CI: exit 1 when any problem is found.
--json prints {"files": N, "problems": [{"file", "line", "message"}]}.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o := lintOptions{Files: args, JSON: a.json}
			return a.runWith(o, func() error { return runLint(a, o) })
		},
	}
}

func runLint(a *app, o lintOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	report, err := core.Lint(p, a.dir, o.Files)
	if err != nil {
		return err
	}
	if o.JSON {
		if err := writeJSON(a.out, report); err != nil {
			return err
		}
	} else {
		for _, pr := range report.Problems {
			if pr.Line > 0 {
				fmt.Fprintf(a.out, "%s:%d: %s\n", pr.File, pr.Line, pr.Message)
			} else {
				fmt.Fprintf(a.out, "%s: %s\n", pr.File, pr.Message)
			}
		}
	}
	if bad := report.BadFiles(); bad > 0 {
		fmt.Fprintf(a.errw, "continuity: %s with problems\n", plural(bad, "file"))
		return errSilent
	}
	if !o.JSON {
		fmt.Fprintf(a.out, "%s ok\n", plural(report.Files, "ledger"))
	}
	return nil
}
