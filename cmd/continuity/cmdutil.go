package main

// What continuity's commands share in how they are called and how they answer
// (as gh's pkg/cmdutil does): usage errors and the argument checks that make
// them, the error already explained, the --json writer, and wording helpers.
// It knows cobra, never a use case.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// UsageError marks an error in how a command was called (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ErrSilent is a failure already explained on stderr (exit 1, no message).
var ErrSilent = errors.New("failed")

// TypedUsage makes every usage mistake cobra finds in root's tree a
// UsageError: a wrong argument count or an unknown subcommand (the
// commands' Args), and a required flag left out (checked before the
// command runs). Flag parse errors go through root's flag error function.
// The exit code is then decided by type, never by cobra's wording.
func TypedUsage(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		args := c.Args
		if args == nil {
			args = defaultArgs
		}
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return UsageError{err}
			}
			return nil
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if !root.Runnable() {
		// Only a runnable command has its Args checked: the root prints
		// its help when called bare, as cobra does for a command group.
		root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// defaultArgs is what cobra checks when a command sets no Args: a root
// command with subcommands takes no argument that is not one of them; any
// other command takes anything.
func defaultArgs(cmd *cobra.Command, args []string) error {
	if cmd.HasParent() || !cmd.HasSubCommands() || len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

// StrictCompletion makes cobra's completion command refuse a missing or
// unknown shell as a usage error naming the shells it knows (by default it
// prints its help and succeeds, which a setup script would not notice).
func StrictCompletion(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		slices.Sort(shells)
		known := strings.Join(shells[:len(shells)-1], ", ") + " or " + shells[len(shells)-1]
		if len(shells) == 1 {
			known = shells[0]
		}
		// Reached only when no shell subcommand matched.
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return UsageError{fmt.Errorf("completion needs a shell: %s", known)}
			}
			return UsageError{fmt.Errorf("completion: unknown shell %q: use %s", args[0], known)}
		}
	}
}

// WriteJSON prints v as indented JSON, with &, < and > as they are (a
// command line such as "a && b" stays readable).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// PrintLines prints each line.
func PrintLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// Plural is "1 word" or "N words".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// FirstLine is an error's first line.
func FirstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// CommandName is a command as typed after "continuity" ("now", "completion bash").
func CommandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), "continuity ")
}

// argsWanted says what a command's arguments are: its "args" annotation
// ("the text of the step"), else the placeholders of its Use line.
func argsWanted(cmd *cobra.Command) string {
	if w := cmd.Annotations["args"]; w != "" {
		return w
	}
	_, rest, _ := strings.Cut(cmd.Use, " ")
	if rest == "" {
		return "no arguments"
	}
	return rest
}

// ExactArgs accepts exactly n arguments, saying what they are otherwise.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == n:
			return nil
		case n == 0:
			return UsageError{fmt.Errorf("%s: takes no arguments, got %q", CommandName(cmd), strings.Join(args, " "))}
		case n == 1 && len(args) == 0:
			return UsageError{fmt.Errorf("%s: needs %s", CommandName(cmd), argsWanted(cmd))}
		}
		return UsageError{fmt.Errorf("%s: takes %s (%s), got %d (quote text that has spaces)", CommandName(cmd), Plural(n, "argument"), argsWanted(cmd), len(args))}
	}
}

// MinArgs accepts n arguments or more.
func MinArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return UsageError{fmt.Errorf("%s: needs %s", CommandName(cmd), argsWanted(cmd))}
		}
		return nil
	}
}

// MaxArgs accepts n arguments or fewer.
func MaxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return UsageError{fmt.Errorf("%s: takes at most %s, got %d arguments", CommandName(cmd), argsWanted(cmd), len(args))}
		}
		return nil
	}
}

// streamFlag adds --stream, the one flag that names a work stream, to c,
// with the names older versions used (--ledger and its -l, --session,
// --name) kept as hidden aliases of it: scripts written for them keep
// working, help shows one word.
func streamFlag(c *cobra.Command, p *string, usage string, aliases ...string) {
	c.Flags().StringVar(p, "stream", "", usage)
	for _, alias := range aliases {
		if alias == "ledger" {
			c.Flags().StringVarP(p, alias, "l", "", usage)
		} else {
			c.Flags().StringVar(p, alias, "", usage)
		}
		_ = c.Flags().MarkHidden(alias)
		_ = c.Flags().SetAnnotation(alias, streamAlias, []string{"true"})
	}
}

// streamAlias annotates a flag that is another name of --stream.
const streamAlias = "continuity-stream-alias"
