// Package cmdutil holds what continuity's commands share in how they are
// called and how they answer (as gh's pkg/cmdutil does): usage errors and
// the argument checks that make them, the error already explained, the
// --json writer, and wording helpers. It knows cobra, never a use case.
package main

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

// IsCobraUsage reports whether err is cobra's word for a usage mistake (an
// unknown command or flag, a wrong argument count).
func IsCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "flag needs an argument", "invalid argument", "required flag"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
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
