package main

import (
	"fmt"
	"strings"
)

// hookArgs reads the arguments of `continuity hook` without building the
// command tree (every hook call of every session pays for what it builds):
// the host from --agent NAME or --agent=NAME, and the host's event from
// --event NAME or --event=NAME (for hosts whose payloads do not name it). ok is false for a call the
// command tree should handle (--help). Anything else it does not know is
// left aside with a note: a hook never fails on its own command line, since
// a host may read a non-zero exit as "block" (Codex's Stop hook then keeps
// the turn going).
func hookArgs(args []string) (agent, event string, notes []string, ok bool) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-h" || arg == "--help" || arg == "help":
			return "", "", nil, false
		case arg == "--event" && i+1 < len(args):
			event = args[i+1]
			i++
		case strings.HasPrefix(arg, "--event="):
			event = strings.TrimPrefix(arg, "--event=")
		case arg == "--agent" && i+1 < len(args):
			agent = args[i+1]
			i++
		case strings.HasPrefix(arg, "--agent="):
			agent = strings.TrimPrefix(arg, "--agent=")
		case arg == "--json":
		default:
			notes = append(notes, fmt.Sprintf("argument %q ignored", arg))
		}
	}
	return agent, event, notes, true
}

// runHookFast runs `continuity hook ARGS` straight from the command line.
// ok is false when the command tree must run it instead.
func runHookFast(a *app, args []string) (ok bool) {
	agent, event, notes, ok := hookArgs(args)
	if !ok {
		return false
	}
	for _, n := range notes {
		fmt.Fprintf(a.errw, "continuity hook: %s\n", n)
	}
	runHookNamed(a, agent, event)
	return true
}
