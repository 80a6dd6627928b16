package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/core"
)

type indexOptions struct {
	JSON bool
}

func newIndexCmd(a *app) *cobra.Command {
	var o indexOptions
	return &cobra.Command{
		Use:   "index",
		Short: "Index every session the agents keep for this repository (kept after they delete it)",
		Long: `Read every transcript the served agents keep of sessions in this repository and its worktrees
(` + joinHostTitles() + `), through the same reader as the hooks, and keep one redacted record per
session in local state (under the common git directory, never committed): agent, times, task,
requests, last reply, files, commands, checks, commits, tokens. A record stays after the agent
deletes the transcript, so log and search --in sessions still find it.

Only what was appended since the last run is read: a second run is near free. A transcript whose
records say it ran in another directory is never indexed here.`,
		Example: `  continuity index
  continuity search --in sessions "refresh token"`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runIndex(a) })
		},
	}
}

func runIndex(a *app) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	opts := core.IndexOptions{Hosts: known, Getenv: a.getenv, Now: a.now()}
	if a.isTerminal(a.errw) && !a.json {
		opts.Progress = func(done, total int) {
			if done == total {
				fmt.Fprint(a.errw, "\r\033[K")
				return
			}
			fmt.Fprintf(a.errw, "\r\033[Kindex: %d/%d sessions", done+1, total)
		}
	}
	res, err := core.Index(p, opts)
	if err != nil {
		return err
	}
	if a.json {
		return writeJSON(a.out, res)
	}
	names := make([]string, 0, len(res.PerAgent))
	for n := range res.PerAgent {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(a.out, "%s: %d sessions\n", n, res.PerAgent[n])
	}
	fmt.Fprintf(a.out, "%d found, %d read, %d unchanged; %d kept in the index\n", res.Found, res.Read, res.Unchanged, res.Kept)
	for _, pr := range res.Problems {
		fmt.Fprintf(a.errw, "continuity: index: %s\n", pr)
	}
	return nil
}

// joinHostTitles names, for people, the served agents whose sessions
// index can find (those that list their transcripts).
func joinHostTitles() string {
	var titles []string
	for _, h := range known {
		if agent.Serve(h).Sessions != nil {
			titles = append(titles, h.Title())
		}
	}
	return strings.Join(titles, ", ")
}
