package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/workspace"
)

type configOptions struct{ JSON bool }

func newConfigCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print the effective configuration: the project's .continuity.yaml (committed) over the
user's $XDG_CONFIG_HOME/continuity/config.yaml over the defaults, with CONTINUITY_LEDGER_DIR,
CONTINUITY_HANDOFF_DIR, CONTINUITY_BUDGET, CONTINUITY_STALE_AFTER and CONTINUITY_DISABLE over all.
A bad value in a file is named on stderr and config exits 1; the hooks keep working on the
values that were valid.

Keys:
  ledger_dir, handoff_dir  directories inside the repository
  budget                   characters injected at a start: 500 to 9,900
  sources                  per source (startup, resume, clear, compact, fork): full, short or none
  handoff.sections         which sections a handoff holds: state, summary, goal, now, done, next,
                           decisions, files, commands, errors, requests (empty: all)
  handoff.max_bytes        the most a handoff holds: 2048 or more
  handoff.template         a handoff template inside the repository ("" = the embedded one)
  handoff.checks           the project's own test/build/lint commands, as regular expressions
  stale_after              when a handoff is stale, e.g. 36h or 7d
  redact.extra, redact.allow  secret patterns to add (name + pattern), known false positives
  retention.days, retention.max  how many handoffs thin keeps, by age and count
  disable                  true switches the hooks off here
  worktrees                shared or isolated: one stream across the repository's worktrees, or each its own
  subagents                what a subagent gets at its start: full, short or none
  sync                     off or ref: handoffs and snapshots travel on refs of continuity's own`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := configOptions{JSON: a.json}
			return a.runWith(o, func() error { return runConfig(a, o) })
		},
	}
}

func runConfig(a *app, o configOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	values, err := p.Config.Values()
	if err != nil {
		return err
	}
	problems := []string{}
	for _, e := range p.Config.Problems {
		problems = append(problems, e.Error())
	}
	if o.JSON {
		if err := writeJSON(a.out, struct {
			Values   []workspace.Value `json:"values"`
			Problems []string          `json:"problems"`
		}{values, problems}); err != nil {
			return err
		}
	} else {
		for _, v := range values {
			fmt.Fprintf(a.out, "%-22s %-28s %s\n", v.Key, v.Value, v.From)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	// A bad value is ignored (the hooks keep working on the others), but
	// config fails so that a person or a script checking it sees it.
	for _, pr := range problems {
		fmt.Fprintf(a.errw, "continuity: config: %s (ignored: the value in effect is shown above)\n", pr)
	}
	return errSilent
}
