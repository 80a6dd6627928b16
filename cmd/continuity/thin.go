package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/gitfacts"
)

type thinOptions struct {
	Name   string // work stream; "" for the active one
	Keep   int    // the newest handoffs kept whatever their day
	DryRun bool
	JSON   bool
	Out    io.Writer
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
			o.JSON, o.Out = a.json, a.out
			return runThin(a, o)
		},
	}
	c.Flags().IntVar(&o.Keep, "keep", o.Keep, "how many of the newest handoffs to keep whatever their day")
	c.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "say what would be removed, remove nothing")
	return c
}

func runThin(a *app, o thinOptions) error {
	if o.Keep < 1 {
		return usageError{errors.New("thin: --keep must be at least 1")}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	if p.Repo.Root == "" {
		return errors.New("thin: not in a git repository: handoffs are removed with git rm, so that the change can be reviewed and undone")
	}
	name, err := a.ledgerName(p, o.Name)
	if err != nil {
		return err
	}
	files := p.HandoffFiles(name)
	drop, kept := thinPlan(files, o.Keep)
	git := gitfacts.Git{Repo: p.Repo}
	ctx := context.Background()
	var remove []string
	for _, f := range drop {
		rel := p.Rel(f)
		if _, err := git.Run(ctx, "ls-files", "--error-unmatch", "--", rel); err != nil {
			kept = append(kept, rel+" (not committed: kept)")
			continue
		}
		if _, err := git.Run(ctx, "diff", "--quiet", "HEAD", "--", rel); err != nil {
			kept = append(kept, rel+" (changed since its commit: kept)")
			continue
		}
		remove = append(remove, rel)
	}
	if !o.DryRun && len(remove) > 0 {
		if _, err := git.Run(ctx, append([]string{"rm", "-q", "--"}, remove...)...); err != nil {
			return fmt.Errorf("thin: %w", err)
		}
	}
	if o.JSON {
		if remove == nil {
			remove = []string{}
		}
		return writeJSON(o.Out, struct {
			Stream  string   `json:"stream"`
			DryRun  bool     `json:"dry_run"`
			Removed []string `json:"removed"`
			Kept    int      `json:"kept"`
		}{name, o.DryRun, remove, len(files) - len(remove)})
	}
	verb := "removed"
	if o.DryRun {
		verb = "would remove"
	}
	for _, r := range remove {
		fmt.Fprintf(o.Out, "%s %s\n", verb, r)
	}
	for _, k := range kept {
		if strings.HasSuffix(k, ": kept)") {
			fmt.Fprintf(o.Out, "kept %s\n", k)
		}
	}
	switch {
	case len(remove) == 0:
		fmt.Fprintf(o.Out, "nothing to thin in %s\n", name)
	case !o.DryRun:
		fmt.Fprintf(o.Out, "%s: staged with git rm; review with git status, commit, or undo with git restore --staged --worktree\n", plural(len(remove), "handoff"))
	}
	return nil
}

// thinPlan splits handoffs (oldest first) into those to drop and those to
// keep: the newest keep stay, and of the older ones the last of each day.
func thinPlan(files []string, keep int) (drop, kept []string) {
	if len(files) <= keep {
		return nil, nil
	}
	old := files[:len(files)-keep]
	day := func(f string) string {
		if t := handoff.Time(f); !t.IsZero() {
			return t.UTC().Format(time.DateOnly)
		}
		return f // undated: its own day, kept
	}
	for i, f := range old {
		if i+1 < len(old) && day(old[i+1]) == day(f) {
			drop = append(drop, f)
		}
	}
	return drop, nil
}
