package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/workspace"
)

// ErrNoGit is Thin's answer outside a git repository.
var ErrNoGit = errors.New("thin: not in a git repository: handoffs are removed with git rm, so that the change can be reviewed and undone")

// Thinned is what Thin removed (or, dry, would remove) and kept.
type Thinned struct {
	Stream  string   `json:"stream"`
	DryRun  bool     `json:"dry_run"`
	Removed []string `json:"removed"` // relative to the root
	Kept    int      `json:"kept"`    // handoffs left
	// Spared are the handoffs the plan dropped but git could not bring
	// back, each with why: "PATH (not committed: kept)".
	Spared []string `json:"-"`
}

// Thin removes the older handoffs of work stream name with git rm: the
// newest keep stay, and of the older ones the last of each day. Only
// handoffs git tracks unmodified are removed, so the change can be undone.
func Thin(p *workspace.Workspace, name string, keep int, dry bool) (Thinned, error) {
	res := Thinned{Stream: name, DryRun: dry, Removed: []string{}}
	if p.Repo.Root == "" {
		return res, ErrNoGit
	}
	files := p.HandoffFiles(name)
	git := gitfacts.Git{Repo: p.Repo}
	ctx := context.Background()
	for _, f := range thinPlan(files, keep) {
		rel := p.Rel(f)
		if _, err := git.Run(ctx, "ls-files", "--error-unmatch", "--", rel); err != nil {
			res.Spared = append(res.Spared, rel+" (not committed: kept)")
			continue
		}
		if _, err := git.Run(ctx, "diff", "--quiet", "HEAD", "--", rel); err != nil {
			res.Spared = append(res.Spared, rel+" (changed since its commit: kept)")
			continue
		}
		res.Removed = append(res.Removed, rel)
	}
	res.Kept = len(files) - len(res.Removed)
	if !dry && len(res.Removed) > 0 {
		if _, err := git.Run(ctx, append([]string{"rm", "-q", "--"}, res.Removed...)...); err != nil {
			return res, fmt.Errorf("thin: %w", err)
		}
	}
	return res, nil
}

// thinPlan returns the handoffs (oldest first) to drop: the newest keep
// stay, and of the older ones the last of each day.
func thinPlan(files []string, keep int) (drop []string) {
	if len(files) <= keep {
		return nil
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
	return drop
}
