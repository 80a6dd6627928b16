package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
)

type listHandoff struct {
	Path    string    `json:"path"`
	Event   string    `json:"event,omitempty"`
	Author  string    `json:"author,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Created time.Time `json:"created"`
	Stale   bool      `json:"stale"`
}

type listEntry struct {
	Name     string        `json:"name"`
	Path     string        `json:"path,omitempty"` // the ledger; "" when the work stream has handoffs only
	Active   bool          `json:"active"`
	Goal     string        `json:"goal,omitempty"`
	Now      string        `json:"now,omitempty"`
	Updated  string        `json:"updated,omitempty"`
	Problem  string        `json:"problem,omitempty"`
	Handoffs int           `json:"handoffs"`
	Authors  []string      `json:"authors"`
	Latest   *listHandoff  `json:"latest_handoff,omitempty"`
	Recent   []listHandoff `json:"recent_handoffs"`
}

type listOptions struct {
	Recent int // how many recent handoffs to read per work stream
	JSON   bool
}

func newListCmd(a *app) *cobra.Command {
	var o listOptions
	c := &cobra.Command{
		Use:   "list",
		Short: "List work streams: ledgers and their handoffs, whoever wrote them",
		Long: `List every work stream (a ledger, or handoffs that arrived from teammates), the active one
marked with *, with its goal and now, how many handoffs it has, who wrote the recent ones, and the
latest handoff: by whom, how long ago, on which branch, and whether it is stale (stale_after).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runList(a, o) })
		},
	}
	c.Flags().IntVar(&o.Recent, "recent", 10, "how many recent handoffs to read per work stream")
	return c
}

func runList(a *app, o listOptions) error {
	if o.Recent < 0 {
		return usageError{fmt.Errorf("--recent must be 0 or more, got %d", o.Recent)}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	active, _, _ := p.Active(a.getenv)
	now := a.now()
	stale := time.Duration(p.Config.StaleAfter)
	entries := []listEntry{}
	for _, name := range workStreams(p) {
		e := listEntry{Name: name, Active: name == active, Authors: []string{}, Recent: []listHandoff{}}
		if lp, _ := p.LedgerPath(name); lp != "" {
			if _, err := os.Stat(lp); err == nil {
				e.Path = p.Rel(lp)
				if l, _, err := loadLedger(p, name); err != nil {
					e.Problem = strings.Split(err.Error(), "\n")[0]
				} else if l != nil {
					e.Goal, e.Now, e.Updated = l.Goal, l.Now, l.Updated
				}
			}
		}
		files := p.HandoffFiles(name)
		e.Handoffs = len(files)
		seen := map[string]bool{}
		for i := len(files) - 1; i >= 0 && len(files)-i <= o.Recent; i-- {
			src, err := safefile.Read(files[i], p.WriteOptions())
			if err != nil {
				continue
			}
			h, err := handoff.Parse(src)
			if err != nil {
				continue
			}
			lh := listHandoff{Path: p.Rel(files[i]), Event: h.Meta.Event, Author: h.Meta.Author, Branch: h.Meta.Branch,
				Created: h.Meta.Created, Stale: stale > 0 && now.Sub(h.Meta.Created) > stale}
			e.Recent = append(e.Recent, lh)
			if e.Latest == nil {
				l := lh
				e.Latest = &l
			}
			if lh.Author != "" && !seen[lh.Author] {
				seen[lh.Author] = true
				e.Authors = append(e.Authors, lh.Author)
			}
		}
		entries = append(entries, e)
	}
	if o.JSON {
		return writeJSON(a.out, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.out, "no ledgers yet: start one with `continuity new NAME --goal TEXT`")
		return nil
	}
	for _, e := range entries {
		mark := " "
		if e.Active {
			mark = "*"
		}
		fmt.Fprintf(a.out, "%s %s", mark, e.Name)
		switch {
		case e.Path == "":
			fmt.Fprint(a.out, "  (handoffs only, no ledger here)")
		case e.Updated != "":
			fmt.Fprintf(a.out, "  (updated %s)", e.Updated)
		}
		fmt.Fprintln(a.out)
		if e.Problem != "" {
			fmt.Fprintf(a.out, "    problem: %s\n", e.Problem)
		}
		if e.Goal != "" {
			fmt.Fprintf(a.out, "    goal: %s\n", e.Goal)
		}
		if e.Now != "" {
			fmt.Fprintf(a.out, "    now:  %s\n", e.Now)
		}
		if e.Latest != nil {
			staleMark := ""
			if e.Latest.Stale {
				staleMark = ", stale"
			}
			by := inject.Byline(handoff.Meta{Event: e.Latest.Event, Author: e.Latest.Author, Branch: e.Latest.Branch, Created: e.Latest.Created}, now)
			fmt.Fprintf(a.out, "    handoffs: %d, latest %s (%s%s)\n", e.Handoffs, e.Latest.Path, by, staleMark)
			if len(e.Authors) > 1 {
				fmt.Fprintf(a.out, "    recent authors: %s\n", strings.Join(e.Authors, ", "))
			}
		}
	}
	return nil
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

// latestHandoff returns the newest handoff of work stream name, or "".
func latestHandoff(p *project.Project, name string) string {
	path, err := p.LatestHandoff(name)
	if err != nil {
		return ""
	}
	return path
}
