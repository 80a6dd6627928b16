package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/project"
)

// app carries what every command reads and writes: its IO, the environment
// and the clock, so tests can run commands with buffers and a fixed time.
type app struct {
	in     io.Reader
	out    io.Writer
	errw   io.Writer
	getenv func(string) string
	now    func() time.Time
	dir    string // working directory
	json   bool
	// parsed, when set, receives a command's options instead of the
	// command running: tests check argv → options with it.
	parsed func(opts any)
}

// runWith hands a command's options to a.parsed when set, else runs it.
func (a *app) runWith(opts any, run func() error) error {
	if a.parsed != nil {
		a.parsed(opts)
		return nil
	}
	return run()
}

// usageError marks an error in how a command was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errSilent is a failure already explained on stderr (exit 1, no message).
var errSilent = errors.New("failed")

// run executes the command line and returns the exit code: 0 success,
// 1 failure, 2 usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	wd, _ := os.Getwd()
	a := &app{in: stdin, out: stdout, errw: stderr, getenv: os.Getenv, now: clock(os.Getenv("CONTINUITY_NOW")), dir: wd}
	if len(args) > 0 && args[0] == "hook" && runHookFast(a, args[1:]) {
		return 0 // a hook always exits 0
	}
	if printsUserText(args) {
		o, e := &redactedOut{w: stdout}, &redactedOut{w: stderr}
		defer o.flush()
		defer e.flush()
		a.out, a.errw, stdout, stderr = o, e, o, e
	}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	if errors.Is(err, errSilent) {
		return 1
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(stderr, "continuity: %v\nRun 'continuity --help' for usage.\n", err)
		return 2
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(stderr, "continuity: %s\n", line)
	}
	return 1
}

// clock returns the time source: the real clock, or a fixed instant when
// CONTINUITY_NOW holds an RFC 3339 time (for reproducible tests and demos).
func clock(fixed string) func() time.Time {
	if t, err := time.Parse(time.RFC3339, fixed); err == nil {
		return func() time.Time { return t }
	}
	return time.Now
}

func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "flag needs an argument", "invalid argument", "required flag"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "continuity",
		Short: "Keep a coding agent's work continuous across compaction, /clear, restarts and teammates",
		Long: `continuity keeps a ledger per work stream (thoughts/ledgers/CONTINUITY_<name>.md),
writes a handoff from the session's transcript whenever Claude Code is about to lose
context (thoughts/shared/handoffs/<name>/…), and injects both back when a session starts.

Start with:  continuity demo            (the whole loop on sample data)
             continuity init            (register the hooks in this repository)
             continuity new NAME --goal "what this work stream is for"`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print machine-readable JSON (refused by commands that print none)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if a.json && !printsJSON[cmd.Name()] {
			return usageError{fmt.Errorf("%s: no --json: it prints no JSON", commandName(cmd))}
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddGroup(&cobra.Group{ID: "ledger", Title: "Ledger commands:"}, &cobra.Group{ID: "hooks", Title: "Hooks and handoffs:"}, &cobra.Group{ID: "setup", Title: "Setup:"})
	for _, c := range []*cobra.Command{
		newNewCmd(a), newUseCmd(a), newScalarCmd(a, "goal"), newScalarCmd(a, "now"),
		newListEditCmd(a, "done"), newListEditCmd(a, "next"), newListEditCmd(a, "question"), newListEditCmd(a, "constraint"),
		newDecideCmd(a), newShowCmd(a), newListCmd(a), newSearchCmd(a), newLintCmd(a), newImportCmd(a),
		newMergeLedgerCmd(a),
	} {
		c.GroupID = "ledger"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newHookCmd(a), newContextCmd(a), newHandoffCmd(a), newResumeCmd(a), newThinCmd(a)} {
		c.GroupID = "hooks"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newInitCmd(a), newUninstallCmd(a), newDoctorCmd(a), newScanCmd(a), newConfigCmd(a), newPruneCmd(a), newDemoCmd(a), newVersionCmd(a)} {
		c.GroupID = "setup"
		root.AddCommand(c)
	}
	root.InitDefaultCompletionCmd()
	strictCompletion(root)
	return root
}

// strictCompletion makes cobra's completion command refuse a missing or
// unknown shell as a usage error naming the shells it knows (by default it
// prints its help and succeeds, which a setup script would not notice).
func strictCompletion(root *cobra.Command) {
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
				return usageError{fmt.Errorf("completion needs a shell: %s", known)}
			}
			return usageError{fmt.Errorf("completion: unknown shell %q: use %s", args[0], known)}
		}
	}
}

// printsJSON names the commands that honour --json; any other refuses it
// (a usage error), so a script never takes text for JSON.
var printsJSON = map[string]bool{
	"new": true, "use": true, "goal": true, "now": true, "done": true, "next": true, "question": true,
	"constraint": true, "decide": true, "show": true, "list": true, "search": true, "lint": true,
	"hook": true, "context": true, "handoff": true, "doctor": true, "scan": true, "config": true,
	"prune": true, "thin": true, "demo": true, "version": true, "init": true, "uninstall": true, "import": true,
}

// project opens the project the working directory belongs to.
func (a *app) project() (*project.Project, error) {
	return project.OpenWith(a.dir, a.getenv)
}

// activeName returns the active ledger's name, or an error that says how to choose one.
func (a *app) activeName(p *project.Project) (string, error) {
	name, _, err := p.Active(a.getenv)
	if errors.Is(err, project.ErrNoLedger) {
		return "", errors.New("no ledger yet: start one with `continuity new NAME --goal TEXT`")
	}
	return name, err
}

// ledgerName is the ledger a command works on: the one named (by --ledger
// or an argument), checked, else the active one.
func (a *app) ledgerName(p *project.Project, named string) (string, error) {
	if named == "" {
		return a.activeName(p)
	}
	return named, project.CheckName(named)
}

// writeJSON prints v as indented JSON, with &, < and > as they are (a
// command line such as "a && b" stays readable).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// commandName is a command as typed after "continuity" ("now", "completion bash").
func commandName(cmd *cobra.Command) string {
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

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == n:
			return nil
		case n == 0:
			return usageError{fmt.Errorf("%s: takes no arguments, got %q", commandName(cmd), strings.Join(args, " "))}
		case n == 1 && len(args) == 0:
			return usageError{fmt.Errorf("%s: needs %s", commandName(cmd), argsWanted(cmd))}
		}
		return usageError{fmt.Errorf("%s: takes %s (%s), got %d (quote text that has spaces)", commandName(cmd), plural(n, "argument"), argsWanted(cmd), len(args))}
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{fmt.Errorf("%s: needs %s", commandName(cmd), argsWanted(cmd))}
		}
		return nil
	}
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usageError{fmt.Errorf("%s: takes at most %s, got %d arguments", commandName(cmd), argsWanted(cmd), len(args))}
		}
		return nil
	}
}
