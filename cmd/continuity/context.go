package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

func newContextCmd(a *app) *cobra.Command {
	var source, id, name, agentName string
	c := &cobra.Command{
		Use:   "context",
		Short: "Print exactly what a session start would inject",
		Long: `Print exactly the text the session start hook would inject into the model's context for a
session started with --source (startup, resume, clear, compact, fork), for the host --agent
(its size limit and unit). --json prints the hook's whole JSON output (byte for byte what the
hook prints) instead.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(core.Sources, source) {
				return usageError{Err: fmt.Errorf("--source must be one of %s; got %q", strings.Join(core.Sources, ", "), source)}
			}
			h, p, name, err := a.hostAndLedger(agentName, name)
			if err != nil {
				return err
			}
			inj, err := core.Context(p, a.env(h), name, source, id)
			if a.json {
				ans := agent.Answer{Context: inj.Text, Message: inj.Message}
				if errors.Is(err, ledger.ErrNotFound) {
					ans = agent.Answer{Context: inject.NoLedger()}
				} else if inj.Problem != "" {
					fmt.Fprintf(a.errw, "continuity: %s\n", inj.Problem)
				}
				out, err := h.Encode(agent.Event{Kind: agent.Start, Source: source, SessionID: id}, ans)
				if err == nil {
					_, err = a.out.Write(out)
				}
				return err
			}
			return printInjection(a, inj, err)
		},
	}
	c.Flags().StringVar(&source, "source", "startup", "the session's source: startup, resume, clear, compact or fork")
	c.Flags().StringVar(&id, "session", "", "the agent session id (for --source compact: its fresh handoff)")
	c.Flags().StringVarP(&name, "ledger", "l", "", "this ledger instead of the active one")
	c.Flags().StringVar(&agentName, "agent", "", "the host: "+hostNames()+" (default "+hosts[0].Name()+")")
	return c
}

// hostAndLedger finds the host called agent, opens the project and checks
// the named ledger, or finds the active one when name is "".
func (a *app) hostAndLedger(agent, name string) (agent.Host, *workspace.Workspace, string, error) {
	h, err := hostNamed(agent)
	if err != nil {
		return nil, nil, "", err
	}
	p, err := a.project()
	if err != nil {
		return nil, nil, "", err
	}
	if err := workspace.CheckName(name); name != "" && err != nil {
		return nil, nil, "", usageError{Err: err} // named on the command line
	}
	name, err = a.ledgerName(p, name)
	return h, p, name, err
}

// printInjection prints an injection's text; a ledger that could not be
// read at all is an error, one that did not parse a line on stderr.
func printInjection(a *app, inj core.Injection, err error) error {
	if err != nil && inj.Input.Ledger == nil && inj.Input.LedgerRaw == nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
	}
	fmt.Fprintln(a.out, inj.Text)
	return nil
}
