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

Keys: ledger_dir, handoff_dir, budget (characters injected, under 10,000), sources (per source:
full, short or none), handoff.sections, handoff.max_bytes, stale_after (e.g. 7d), redact.extra
(name + pattern), redact.allow, retention.days, retention.max, disable.`,
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
