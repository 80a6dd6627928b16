package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
// newest keep with substance stay, and of the older ones the last of each
// day; a chat-only handoff never outlives one with substance. Only
// handoffs git tracks unmodified are removed, so the change can be undone.
func Thin(p *workspace.Workspace, name string, keep int, dry bool) (Thinned, error) {
	res := Thinned{Stream: name, DryRun: dry, Removed: []string{}}
	if p.Repo.Root == "" {
		return res, ErrNoGit
	}
	files := p.HandoffFiles(name)
	git := gitfacts.Git{Repo: p.Repo}
	ctx := context.Background()
	substantial := func(f string) bool { return handoff.Substantial(readParsed(p, f)) }
	for _, f := range thinPlan(files, keep, substantial) {
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
// with substance stay (files, commands, a plan, checks, commits, a
// compaction or a recovery: see handoff.Substantial), and of the older
// ones with substance the last of each day; chat-only handoffs go, but for
// those newer than every one with substance when fewer than keep have any.
func thinPlan(files []string, keep int, substantial func(string) bool) (drop []string) {
	if len(files) <= keep {
		return nil
	}
	keepSet := map[string]bool{}
	kept := 0
	for i := len(files) - 1; i >= 0 && kept < keep; i-- {
		if substantial(files[i]) {
			keepSet[files[i]] = true
			kept++
		}
	}
	if kept < keep { // too few with substance: the newest others fill the count
		for i := len(files) - 1; i >= 0 && kept < keep; i-- {
			if !keepSet[files[i]] {
				keepSet[files[i]] = true
				kept++
			}
		}
	}
	day := func(f string) string {
		if t := handoff.Time(f); !t.IsZero() {
			return t.UTC().Format(time.DateOnly)
		}
		return f // undated: its own day, kept
	}
	var rest []string
	for _, f := range files {
		switch {
		case keepSet[f]:
		case !substantial(f):
			drop = append(drop, f)
		default:
			rest = append(rest, f)
		}
	}
	lastOfDay := map[string]string{}
	for _, f := range rest {
		lastOfDay[day(f)] = f
	}
	for _, f := range rest {
		if lastOfDay[day(f)] != f {
			drop = append(drop, f)
		}
	}
	slices.SortStableFunc(drop, func(a, b string) int { return slices.Index(files, a) - slices.Index(files, b) })
	return drop
}
