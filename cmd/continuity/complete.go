package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/continuity-md/continuity/internal/core"
)

// completeStreams offers the repository's work streams (ledgers and
// handoff folders) that start with what was typed.
func completeStreams(a *app) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		p, err := a.project()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range core.Names(p) {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeStreamArg offers work streams for a command's one NAME argument.
func completeStreamArg(a *app) cobra.CompletionFunc {
	streams := completeStreams(a)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return streams(cmd, args, toComplete)
	}
}

// completeAgents offers the agents' names for --agent.
func completeAgents(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, n := range hostNameList() {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// streamArgCommands take a work stream's name as their argument.
var streamArgCommands = map[string]bool{"show": true, "use": true, "resume": true, "thin": true}

// addCompletions teaches shell completion the values continuity knows: a
// work stream's name where a command takes one (as its argument, or
// --stream and its older names), and the agents' names for --agent.
func addCompletions(a *app, root *cobra.Command) {
	for _, c := range root.Commands() {
		if streamArgCommands[c.Name()] {
			c.ValidArgsFunction = completeStreamArg(a)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "stream" || f.Annotations[streamAlias] != nil {
				_ = c.RegisterFlagCompletionFunc(f.Name, completeStreams(a))
			}
		})
		if c.Flags().Lookup("agent") != nil {
			_ = c.RegisterFlagCompletionFunc("agent", completeAgents)
		}
	}
}
