package install

import "strings"

// HookCommand is the hook command init registers for agent: prog (the
// program that runs continuity, as the shell reads it) then
// "hook --agent AGENT". Naming the agent lets one binary serve several hosts.
func HookCommand(prog, agent string) string {
	return prog + " hook --agent " + agent
}

// Agent returns the agent a continuity hook command names with --agent NAME
// or --agent=NAME, "" when it names none (the form before hosts had names) or
// command is not a continuity hook.
func Agent(command string) string {
	words := shellWords(command)
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if !IsContinuityHook(command) {
		return ""
	}
	for i := 2; i < len(words); i++ {
		if v, ok := strings.CutPrefix(words[i], "--agent="); ok {
			return v
		}
		if words[i] == "--agent" && i+1 < len(words) {
			return words[i+1]
		}
	}
	return ""
}

// Stale lists, in events' order, the events whose registered command (in st,
// as Status returns it) is a continuity hook in an older form than the one
// init writes for agent: without --agent, or naming another agent. Init
// rewrites them in place; doctor names them.
func Stale(st map[string]string, events []string, agent string) []string {
	var stale []string
	for _, ev := range events {
		if c := st[ev]; c != "" && Agent(c) != agent {
			stale = append(stale, ev)
		}
	}
	return stale
}
