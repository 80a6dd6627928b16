package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
)

func newPruneCmd(a *app) *cobra.Command {
	var dryRun bool
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove old local state (never a ledger, a handoff or any committed file)",
		Long: `Remove local state, all under the git directory: remembered agent sessions older than
retention.days (default 30) or beyond the newest retention.max (default 200), and the temporary
files and directories writes leave (a killed write's included) once they are an hour old and no
write holds their lock. Lock files stay: deleting one another process has open would let two
writers in at once. Ledgers, handoffs and every other file in the work tree are never touched.
--json prints {"dry_run": BOOL, "removed": [PATH...]}. SessionStart runs it lazily, at most once
a day.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			removed, err := prune(p, a.now(), dryRun)
			if a.json {
				if removed == nil {
					removed = []string{}
				}
				if jerr := writeJSON(a.out, struct {
					DryRun  bool     `json:"dry_run"`
					Removed []string `json:"removed"`
				}{dryRun, removed}); jerr != nil {
					return jerr
				}
				if err != nil {
					return fmt.Errorf("prune: %w", err)
				}
				return nil
			}
			for _, r := range removed {
				verb := "removed"
				if dryRun {
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
		},
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be removed, remove nothing")
	return c
}

// staleTempAge is how old a temporary file or directory must be before prune
// removes it: far longer than any write takes.
const staleTempAge = time.Hour

// prune removes local state by age and count. It only ever looks inside the
// project's state directory. Failures do not stop it; the first is returned.
func prune(p *project.Project, now time.Time, dryRun bool) ([]string, error) {
	days, max := p.Config.Retention.Days, p.Config.Retention.Max
	cutoff := now.Add(-time.Duration(days) * 24 * time.Hour)
	var removed []string
	var first error
	fail := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	// Agent sessions: by age, then by count (newest kept).
	type entry struct {
		path string
		mod  time.Time
	}
	var sessions []entry
	if ents, err := os.ReadDir(filepath.Join(p.StateDir, "sessions")); err == nil {
		for _, e := range ents {
			if info, err := e.Info(); err == nil && !e.IsDir() {
				sessions = append(sessions, entry{filepath.Join(p.StateDir, "sessions", e.Name()), info.ModTime()})
			}
		}
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].mod.After(sessions[j].mod) })
	for i, s := range sessions {
		if (days > 0 && s.mod.Before(cutoff)) || (max > 0 && i >= max) {
			if !dryRun {
				if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					fail(err)
					continue
				}
			}
			removed = append(removed, s.path)
		}
	}
	// Temporary files and directories under the locks. Lock files are left
	// alone, even unlocked ones: a writer may open one just before the
	// unlink and lock it just after, while the next writer creates and
	// locks a new file at that path, and both would go ahead.
	lockDir := p.StateOptions().LockDir
	if strings.HasPrefix(lockDir, p.StateDir+string(filepath.Separator)) { // never outside local state
		tmp, err := safefile.RemoveStaleTemp(lockDir, now.Add(-staleTempAge), dryRun)
		removed = append(removed, tmp...)
		fail(err)
	}
	if !dryRun {
		stamp := filepath.Join(p.StateDir, "pruned")
		if err := os.WriteFile(stamp, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fail(fmt.Errorf("local state: %w", err))
		}
	}
	return removed, first
}

// pruneLazily prunes at most once a day; SessionStart calls it.
func pruneLazily(p *project.Project, now time.Time) {
	info, err := os.Stat(filepath.Join(p.StateDir, "pruned"))
	if err == nil && now.Sub(info.ModTime()) < 24*time.Hour {
		return
	}
	if _, err := os.Stat(p.StateDir); err != nil {
		return
	}
	_, _ = prune(p, now, false)
}
