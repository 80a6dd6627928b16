package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/config"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/session"
	"github.com/continuity-md/continuity/ledger"
)

// handoffFiles lists one work stream's handoff files, oldest first.
func handoffFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// workStreams lists every work stream that has a ledger or handoffs.
func workStreams(p *project.Project) []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] && project.CheckName(n) == nil {
			seen[n] = true
			names = append(names, n)
		}
	}
	infos, _ := p.Ledgers()
	for _, li := range infos {
		add(li.Name)
	}
	if ents, err := os.ReadDir(p.HandoffDir); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				add(e.Name())
			}
		}
	}
	return names
}

func newSearchCmd(a *app) *cobra.Command {
	var session, author, since string
	c := &cobra.Command{
		Use:   "search TEXT",
		Short: "Search ledgers and handoffs (filters: --session, --author, --since)",
		Long: `Search every ledger and handoff for TEXT (case-insensitive) and print FILE:LINE: the line.
--session keeps one work stream, --author the handoffs one person wrote (front matter author),
--since those written since a date (2026-11-01) or within a duration (7d, 36h).`,
		Example: `  continuity search "refresh token" --author Kim --since 7d`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[0]) == "" {
				return usageError{errors.New("search needs some text to look for")}
			}
			if session != "" {
				if err := project.CheckName(session); err != nil {
					return usageError{fmt.Errorf("--session: %w", err)}
				}
			}
			p, err := a.project()
			if err != nil {
				return err
			}
			var after time.Time
			if since != "" {
				if d, err := config.ParseDuration(since); err == nil {
					after = a.now().Add(-d)
				} else if t, err := time.Parse("2006-01-02", since); err == nil {
					after = t
				} else if t, err := time.Parse(time.RFC3339, since); err == nil {
					after = t
				} else {
					return usageError{fmt.Errorf("--since takes a date (2026-11-01) or a duration (7d), got %q", since)}
				}
			}
			needle := strings.ToLower(args[0])
			type hit struct {
				Path    string `json:"path"`
				Line    int    `json:"line"`
				Text    string `json:"text"`
				Session string `json:"session"`
				Kind    string `json:"kind"`
				Author  string `json:"author,omitempty"`
			}
			hits := []hit{}
			scan := func(path, session, kind, who string) {
				src, err := safefile.Read(path, p.WriteOptions())
				if err != nil {
					return
				}
				sc := bufio.NewScanner(bytes.NewReader(src))
				sc.Buffer(make([]byte, 64<<10), len(src)+1)
				for n := 1; sc.Scan(); n++ {
					if strings.Contains(strings.ToLower(sc.Text()), needle) {
						hits = append(hits, hit{p.Rel(path), n, strings.TrimSpace(sc.Text()), session, kind, who})
					}
				}
			}
			for _, name := range workStreams(p) {
				if session != "" && name != session {
					continue
				}
				if author == "" {
					if lp, _ := p.LedgerPath(name); lp != "" {
						if l, _, err := loadLedger(p, name); err == nil && l != nil && (after.IsZero() || l.Updated >= ledger.FormatTime(after)) {
							scan(lp, name, "ledger", "")
						}
					}
				}
				dir, _ := p.HandoffSessionDir(name)
				for _, f := range handoffFiles(dir) {
					src, err := safefile.Read(f, p.WriteOptions())
					if err != nil {
						continue
					}
					h, err := handoff.Parse(src)
					if err != nil {
						continue
					}
					if author != "" && !strings.EqualFold(h.Meta.Author, author) {
						continue
					}
					if !after.IsZero() && h.Meta.Created.Before(after) {
						continue
					}
					scan(f, name, "handoff", h.Meta.Author)
				}
			}
			if a.json {
				return writeJSON(a.out, hits)
			}
			for _, h := range hits {
				fmt.Fprintf(a.out, "%s:%d: %s\n", h.Path, h.Line, h.Text)
			}
			if len(hits) == 0 {
				fmt.Fprintf(a.errw, "continuity: no match for %q\n", args[0])
				return errSilent
			}
			return nil
		},
	}
	c.Flags().StringVar(&session, "session", "", "only this work stream")
	c.Flags().StringVar(&author, "author", "", "only handoffs by this author (git user.name)")
	c.Flags().StringVar(&since, "since", "", "only what was written since a date or within a duration (7d)")
	return c
}

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
			removed, err := session.Prune(p, a.now(), dryRun)
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
