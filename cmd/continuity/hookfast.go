package main

import (
	"fmt"
	"strings"
)

// hookArgs reads the arguments of `continuity hook` without building the
// command tree (every hook call of every session pays for what it builds):
// the host from --agent NAME or --agent=NAME. ok is false for a call the
// command tree should handle (--help). Anything else it does not know is
// left aside with a note: a hook never fails on its own command line, since
// a host may read a non-zero exit as "block" (Codex's Stop hook then keeps
// the turn going).
func hookArgs(args []string) (agent string, notes []string, ok bool) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-h" || arg == "--help" || arg == "help":
			return "", nil, false
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
	return agent, notes, true
}

// runHookFast runs `continuity hook ARGS` straight from the command line.
// ok is false when the command tree must run it instead.
func runHookFast(a *app, args []string) (ok bool) {
	agent, notes, ok := hookArgs(args)
	if !ok {
		return false
	}
	for _, n := range notes {
		fmt.Fprintf(a.errw, "continuity hook: %s\n", n)
	}
	h, err := hostNamed(agent)
	if err != nil {
		fmt.Fprintf(a.errw, "continuity hook: %v; nothing done\n", err)
		return true
	}
	runHookFor(a, h)
	return true
}
