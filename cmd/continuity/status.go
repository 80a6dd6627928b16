package main

import (
	"fmt"
	"github.com/continuity-md/continuity/internal/agent/hosts"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/inject"
)

type statusOptions struct {
	JSON bool
}

func newStatusCmd(a *app) *cobra.Command {
	var o statusOptions
	return &cobra.Command{
		Use:   "status",
		Short: "The repository's live and recent agent sessions, across its worktrees",
		Long: `Show the agent sessions at work in this repository, in every worktree, live ones first: the
agent, the worktree and branch, the work stream, when it started, its last hook, and the files it
touched most recently. A session is live while its client process runs (or, when the process could
not be identified, for 30 minutes after its last hook); one that is over stays listed for a day.
With sync: ref, a first line says this machine's name and how the last push and fetch of its
snapshots went, and names the latest failure (` + "`continuity sync`" + ` shows it in full).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runStatus(a, o) })
		},
	}
}

func runStatus(a *app, o statusOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	now := a.now()
	sessions := core.Status(p, now)
	if o.JSON {
		if sessions == nil {
			sessions = []core.RepoSessionStatus{}
		}
		return writeJSON(a.out, sessions)
	}
	if p.Repo.Root == "" {
		fmt.Fprintln(a.out, "not in a git repository: no sessions are recorded")
		return nil
	}
	if core.Syncing(p) {
		st := core.SyncState(p, now)
		fmt.Fprintf(a.out, "sync: %s\n", st.Line(now))
		if st.Problem != "" {
			fmt.Fprintf(a.out, "sync: %s\n", st.Problem)
		}
	}
	if len(sessions) == 0 {
		fmt.Fprintln(a.out, "no agent sessions recorded in this repository in the last day")
		return nil
	}
	for _, s := range sessions {
		state := "over"
		if s.Live {
			state = "live"
		}
		where := s.Worktree
		if rel := relTo(p.Root, s.Worktree); rel != "" {
			where = rel
		}
		if s.Branch != "" {
			where += " (" + s.Branch + ")"
		} else {
			where += " (detached)"
		}
		stream := s.Stream
		if stream == "" {
			stream = "-"
		}
		fmt.Fprintf(a.out, "%s  %s  %s  stream %s  session %s\n", state, hosts.TitleOf(s.Agent), where, stream, s.ID)
		fmt.Fprintf(a.out, "      started %s ago, last hook %s ago\n", inject.Age(now.Sub(s.Started)), inject.Age(now.Sub(s.Active)))
		if len(s.Files) > 0 {
			files := s.Files
			if len(files) > 5 {
				files = files[len(files)-5:]
			}
			fmt.Fprintf(a.out, "      files: %s\n", strings.Join(files, ", "))
		}
	}
	return nil
}

// relTo names dir for people from root: "." for root itself, else a
// relative path such as "../proj-wt" ("" when there is none).
func relTo(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return ""
	}
	return rel
}
