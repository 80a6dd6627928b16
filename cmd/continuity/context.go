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

type contextOptions struct {
	Source, Session, Stream, Agent string // Session: the agent's session id
	JSON                           bool   // a continuity object
	HookOutput                     bool   // the hook's own JSON, byte for byte
}

func newContextCmd(a *app) *cobra.Command {
	var o contextOptions
	c := &cobra.Command{
		Use:   "context",
		Short: "Print exactly what a session start would inject",
		Long: `Print exactly the text the session start hook would inject into the model's context for a
session started with --source (startup, resume, clear, compact, fork), for the host --agent
(its size limit and unit). --json prints it as an object (agent, source, stream, context,
message, problem, disabled); --hook-output prints the hook's whole JSON output, byte for byte
what the hook prints. With continuity disabled (continuity disable) nothing is injected.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runContext(a, o) })
		},
	}
	c.Flags().StringVar(&o.Source, "source", "startup", "the session's source: startup, resume, clear, compact or fork")
	c.Flags().StringVar(&o.Session, "session", "", "the agent session id (for --source compact: its fresh handoff)")
	streamFlag(c, &o.Stream, "this work stream instead of the active one", "ledger")
	c.Flags().StringVar(&o.Agent, "agent", "", "the host: "+hostNames()+" (default "+known[0].Name()+")")
	c.Flags().BoolVar(&o.HookOutput, "hook-output", false, "print the hook's own JSON output, byte for byte")
	return c
}

// shownContext is context's --json output.
type shownContext struct {
	Agent    string `json:"agent"`
	Source   string `json:"source"`
	Stream   string `json:"stream,omitempty"`
	Context  string `json:"context"`
	Message  string `json:"message,omitempty"`
	Problem  string `json:"problem,omitempty"`
	Disabled bool   `json:"disabled"`
}

func runContext(a *app, o contextOptions) error {
	if !slices.Contains(core.Sources, o.Source) {
		return usageError{Err: fmt.Errorf("--source must be one of %s; got %q", strings.Join(core.Sources, ", "), o.Source)}
	}
	if o.JSON && o.HookOutput {
		return usageError{Err: errors.New("context: --json or --hook-output, not both")}
	}
	h, err := hostNamed(o.Agent)
	if err != nil {
		return err
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	if p.Config.Disable {
		// The hooks do nothing at all: nothing is injected.
		fmt.Fprintf(a.errw, "continuity: disabled here (disable: true, from %s): a session start injects nothing; `continuity enable` turns it back on\n", disabledBy(p))
		if o.JSON {
			return writeJSON(a.out, shownContext{Agent: h.Name(), Source: o.Source, Disabled: true})
		}
		return nil
	}
	h, p, name, err := a.hostAndLedger(o.Agent, o.Stream)
	if err != nil {
		return err
	}
	e := a.env(h)
	e.Client = clientOf(h)
	inj, err := core.Context(p, e, name, o.Source, o.Session)
	if !o.JSON && !o.HookOutput {
		return printInjection(a, inj, err)
	}
	ans := agent.Answer{Context: inj.Text, Message: inj.Message}
	problem := inj.Problem
	if errors.Is(err, ledger.ErrNotFound) {
		ans, problem = agent.Answer{Context: inject.NoLedger()}, ""
	} else if err != nil && inj.Input.Ledger == nil && inj.Input.LedgerRaw == nil {
		return err
	}
	if problem != "" {
		fmt.Fprintf(a.errw, "continuity: %s\n", problem)
	}
	if o.JSON {
		return writeJSON(a.out, shownContext{Agent: h.Name(), Source: o.Source, Stream: name, Context: ans.Context, Message: ans.Message, Problem: problem})
	}
	out, err := h.Encode(agent.Event{Kind: agent.Start, Source: o.Source, SessionID: o.Session}, ans)
	if err == nil {
		_, err = a.out.Write(out)
	}
	return err
}

// hostAndLedger finds the host called agent, opens the project and checks
// the named ledger, or finds the active one when name is "".
func (a *app) hostAndLedger(agentName, name string) (agent.Served, *workspace.Workspace, string, error) {
	h, err := hostNamed(agentName)
	if err != nil {
		return agent.Served{}, nil, "", err
	}
	p, err := a.project()
	if err != nil {
		return agent.Served{}, nil, "", err
	}
	if err := workspace.CheckName(name); name != "" && err != nil {
		return agent.Served{}, nil, "", usageError{Err: err} // named on the command line
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
