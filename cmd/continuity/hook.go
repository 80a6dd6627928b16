package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/localstate"
)

func newHookCmd(a *app) *cobra.Command {
	var agentName, event string
	c := &cobra.Command{
		Use:   "hook",
		Short: "The hook entry point: a payload on stdin, at most one JSON object on stdout",
		Long: `The hook entry point, registered by 'continuity init' (--agent names the host; without it,
the first of ` + hostNames() + `). Reads one hook payload on stdin; the host's event means:

  session start       inject the active ledger and its latest handoff
  before compaction   write a handoff from the transcript; update the ledger's files
  after compaction    add the compaction summary to that handoff
  session end         write a handoff, unless nothing is new since the last one

Any other event: nothing. It always exits 0 and never breaks the session: problems are
one line on stderr. CONTINUITY_DISABLE=1 turns it off; CONTINUITY_DEBUG=1 says more.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			runHookNamed(a, agentName, event)
			return nil
		},
	}
	c.Flags().StringVar(&agentName, "agent", "", "the host calling: "+hostNames()+" (default "+known[0].Name()+")")
	c.Flags().StringVar(&event, "event", "", "the host's event, for hosts whose payloads do not name it (registered by init)")
	return c
}

// hostNames lists the hosts' names.
func hostNames() string { return strings.Join(hostNameList(), ", ") }

func truthy(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s != "" && s != "0" && s != "false" && s != "no" && s != "off"
}

// runHookNamed runs the hook of the host called name, for its event when
// the host needs it named. A host's registration that another client runs
// (Copilot CLI runs Claude Code's) serves that client, or steps aside.
func runHookNamed(a *app, name, event string) {
	h, err := hostNamed(name)
	if err != nil {
		// Still exit 0: a host may read another exit code as
		// "block the session" (Claude Code's 2).
		fmt.Fprintf(a.errw, "continuity hook: %v; nothing done\n", err)
		return
	}
	if h.ForEvent != nil && event != "" {
		h = h.ForEvent(event)
	}
	for _, g := range known {
		if g.Hosting != nil && g.Name() != h.Name() {
			if served, hosting := g.Hosting(h.Name(), a.getenv); hosting {
				if h = served; h.Host == nil {
					return // the client's own registration answers this call
				}
				break
			}
		}
	}
	runHookFor(a, h)
}

// runHookFor reads the payload, lets the core act on the host's event and
// prints the host's answer. It never fails: whatever happens, the session
// goes on.
func runHookFor(a *app, h agent.Served) {
	if truthy(a.getenv("CONTINUITY_DISABLE")) {
		return
	}
	debugOn := truthy(a.getenv("CONTINUITY_DEBUG"))
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.errw, "continuity hook: internal error, nothing done: %v\n", r)
			if debugOn {
				a.errw.Write(debug.Stack())
			}
		}
	}()
	payload, err := readPayload(a.in, payloadWait)
	var ev agent.Event
	if err == nil {
		ev, err = h.Decode(payload)
	}
	if err != nil {
		fmt.Fprintf(a.errw, "continuity hook: %v; nothing done\n", err)
		return
	}
	k := core.Hook{Env: a.env(h), Dir: a.dir, Stderr: a.errw, Debug: debugOn, ByHand: a.outTerminal()}
	out, err := h.Encode(ev, k.Handle(ev))
	if err == nil && len(out) > 0 {
		_, err = a.out.Write(out)
	}
	if err != nil {
		fmt.Fprintf(a.errw, "continuity hook: write output: %v\n", err)
	}
}

// env is what the core's use cases take from the command: host h, the
// environment, the clock and the version.
func (a *app) env(h agent.Served) core.Env {
	return core.Env{Host: h, Getenv: a.getenv, Now: a.now(), Version: version, Self: selfBinary()}
}

// clientOf is the client process this command runs for (the agent whose
// shell ran it, or the terminal's program), when it can be identified: a
// printed context leaves that client's own sessions out of the others at
// work, as its hooks do.
func clientOf(h agent.Served) *localstate.Process {
	if !localstate.ProcessesSupported {
		return nil
	}
	id, _, err := localstate.ClientProcess(h.ClientNames...)
	if err != nil {
		return nil
	}
	return &id
}
