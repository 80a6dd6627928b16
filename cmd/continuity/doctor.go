package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

func newDoctorCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the installation: binary, settings, hooks, directories, ledgers, last hook runs",
		Long: `Check that continuity works here, for each agent named by --agent (default: every agent whose
hooks are registered, or claude when none is): the settings files, each hook registered and in
the current form, the binary the hooks call; then the directories, the ledgers, the merge driver
and how the last hook runs ended. Exits 1 and says what to fix when a check fails.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWith(o, func() error { return runDoctor(a, o) })
		},
	}
	agentFlag(c, &o, "the agents to check")
	return c
}

func runDoctor(a *app, o setupOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	do := core.DoctorOptions{Project: p, Getenv: a.getenv, All: known, Default: known[0].Name()}
	if len(o.Agents) > 0 {
		if do.Hosts, err = selectHosts(o.Agents); err != nil {
			return err
		}
	}
	rep := core.Doctor(do)
	if a.json {
		if err := writeJSON(a.out, rep); err != nil {
			return err
		}
	} else {
		printChecks(a, rep)
	}
	if failed := rep.Failed(); failed > 0 {
		fmt.Fprintf(a.errw, "continuity: doctor: %s failed\n", plural(failed, "check"))
		return errSilent
	}
	return nil
}

// printChecks prints the checks in aligned columns, each host's under its
// name.
func printChecks(a *app, rep core.DoctorReport) {
	width := 0
	for _, c := range rep.Checks {
		width = max(width, len(c.Name))
	}
	agent := "-"
	for _, c := range rep.Checks {
		if c.Agent != agent {
			agent = c.Agent
			for _, h := range rep.Hosts {
				if h.Agent == agent {
					fmt.Fprintf(a.out, "%s (--agent %s)\n", h.Title, h.Agent)
				}
			}
			if agent == "" {
				fmt.Fprintln(a.out, "this repository")
			}
		}
		mark := "ok  "
		switch {
		case !c.OK:
			mark = "FAIL"
		case c.Note:
			mark = "NOTE"
		case c.Warn:
			mark = "WARN"
		}
		fmt.Fprintf(a.out, "%s %-*s %s\n", mark, width, c.Name, c.Info)
		if c.Fix != "" {
			fmt.Fprintf(a.out, "     %-*s fix: %s\n", width, "", c.Fix)
		}
	}
}
