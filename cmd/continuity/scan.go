package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/redact"
)

type scanOptions struct {
	Files  []string
	Staged bool
}

func newScanCmd(a *app) *cobra.Command {
	var o scanOptions
	c := &cobra.Command{
		Use:   "scan [FILE...]",
		Short: "Find secrets in ledgers and handoffs (pre-commit, CI); exit 1 if any",
		Long: `Find secrets (cloud and API keys, tokens, private keys, passwords in URLs and
assignments, high-entropy values next to secret words) in the given files, or
in every ledger and handoff. Prints file:line: kind for each, never the secret,
and exits 1 when any is found. --staged scans the ledgers and handoffs staged
for the next commit, as git will commit them (the pre-commit hook that
` + "`continuity init --pre-commit`" + ` installs runs this).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			return a.runWith(o, func() error { return runScan(a, o) })
		},
	}
	c.Flags().BoolVar(&o.Staged, "staged", false, "scan the ledgers and handoffs staged for commit")
	return c
}

func runScan(a *app, o scanOptions) error {
	if o.Staged && len(o.Files) > 0 {
		return usageError{Err: errors.New("scan takes files or --staged, not both")}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	hits, n, err := core.Scan(p, core.ScanOptions{Dir: a.dir, Files: o.Files, Staged: o.Staged, Index: a.getenv("GIT_INDEX_FILE")})
	if err != nil {
		return err
	}
	if a.json {
		if err := writeJSON(a.out, hits); err != nil {
			return err
		}
	} else {
		for _, h := range hits {
			fmt.Fprintf(a.out, "%s:%d: %s\n", h.File, h.Line, h.Kind)
		}
	}
	if len(hits) > 0 {
		files := map[string]bool{}
		for _, h := range hits {
			files[h.File] = true
		}
		fmt.Fprintf(a.errw, "continuity: scan: %s in %s; replace each with a marker such as %s (or allow a false positive in the project config)\n",
			plural(len(hits), "secret"), plural(len(files), "file"), redact.Marker(hits[0].Kind))
		return errSilent
	}
	switch {
	case a.json || o.Staged:
		// A pre-commit hook that passes says nothing: git prints its own
		// lines on every commit, and a clean scan is not news.
	case n == 0:
		fmt.Fprintln(a.out, "no ledgers or handoffs to scan")
	default:
		fmt.Fprintf(a.out, "no secrets found in %s\n", plural(n, "file"))
	}
	return nil
}
