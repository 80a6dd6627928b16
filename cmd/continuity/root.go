package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/workspace"
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

// The commands' shared conventions (internal/cmdutil), by their short names.
type usageError = UsageError // a mistake in how a command was called (exit 2)

var (
	errSilent   = ErrSilent // a failure already explained on stderr (exit 1)
	writeJSON   = WriteJSON
	printLines  = PrintLines
	plural      = Plural
	firstLine   = FirstLine
	exactArgs   = ExactArgs
	minArgs     = MinArgs
	maxArgs     = MaxArgs
	commandName = CommandName
)

// run executes the command line and returns the exit code: 0 success,
// 1 failure, 2 usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	wd, _ := os.Getwd()
	defer localstate.ReleaseLocks()
	a := &app{in: stdin, out: stdout, errw: stderr, getenv: os.Getenv, now: clock(os.Getenv("CONTINUITY_NOW")), dir: wd}
	if len(args) > 0 && args[0] == "hook" && runHookFast(a, args[1:]) {
		return 0 // a hook always exits 0
	}
	if printsUserText(args) {
		o, e := &redactedOut{w: stdout, json: &a.json}, &redactedOut{w: stderr}
		defer func() {
			o.flush()
			e.flush()
			e.allowanceNotes()
		}()
		a.out, a.errw, stdout, stderr = o, e, o, e
	}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if errors.Is(err, errSilent) {
		return 1
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "continuity: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
		return 2
	}
	for _, line := range strings.Split(errorText(err), "\n") {
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

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "continuity",
		Short: "Keep a coding agent's work continuous across compaction, /clear, restarts and teammates",
		Long: `continuity keeps a ledger per work stream (thoughts/ledgers/CONTINUITY_<name>.md),
writes a handoff from the session's transcript whenever the coding agent is about to lose
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
			return usageError{Err: fmt.Errorf("%s: no --json: it prints no JSON", commandName(cmd))}
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{Err: err} })
	root.AddGroup(&cobra.Group{ID: "ledger", Title: "Ledger commands:"}, &cobra.Group{ID: "hooks", Title: "Hooks and handoffs:"}, &cobra.Group{ID: "setup", Title: "Setup:"})
	for _, c := range []*cobra.Command{
		newNewCmd(a), newUseCmd(a), newEditCmd(a, "goal"), newEditCmd(a, "now"),
		newEditCmd(a, "done"), newEditCmd(a, "next"), newEditCmd(a, "question"), newEditCmd(a, "constraint"),
		newEditCmd(a, "decide"), newShowCmd(a), newListCmd(a), newLogCmd(a), newSearchCmd(a), newLintCmd(a), newImportCmd(a),
		newMergeLedgerCmd(a),
	} {
		c.GroupID = "ledger"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newHookCmd(a), newContextCmd(a), newHandoffCmd(a), newResumeCmd(a), newThinCmd(a), newServeCmd(a), newIndexCmd(a)} {
		c.GroupID = "hooks"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newInitCmd(a), newUninstallCmd(a), newDoctorCmd(a), newScanCmd(a), newStatusCmd(a), newSyncCmd(a), newConfigCmd(a), newDisableCmd(a, true), newDisableCmd(a, false), newPruneCmd(a), newDemoCmd(a), newEvalCmd(a), newVersionCmd(a)} {
		c.GroupID = "setup"
		root.AddCommand(c)
	}
	root.InitDefaultCompletionCmd()
	StrictCompletion(root)
	TypedUsage(root)
	addCompletions(a, root)
	return root
}

// printsJSON names the commands that honour --json; any other refuses it
// (a usage error), so a script never takes text for JSON.
var printsJSON = map[string]bool{
	"new": true, "use": true, "goal": true, "now": true, "done": true, "next": true, "question": true,
	"constraint": true, "decide": true, "show": true, "list": true, "log": true, "search": true, "lint": true,
	"hook": true, "context": true, "index": true, "handoff": true, "doctor": true, "scan": true, "config": true,
	"prune": true, "thin": true, "demo": true, "version": true, "init": true, "uninstall": true, "import": true, "status": true, "sync": true, "resume": true, "eval": true,
}

// project opens the project the working directory belongs to.
func (a *app) project() (*workspace.Workspace, error) {
	p, err := workspace.OpenWith(a.dir, a.getenv)
	if err == nil {
		a.projectOpened(p)
	}
	return p, err
}

// activeName returns the active ledger's name, or an error that says how to choose one.
func (a *app) activeName(p *workspace.Workspace) (string, error) {
	name, _, err := p.Active(a.getenv)
	if errors.Is(err, workspace.ErrNoLedger) {
		return "", errors.New("no ledger yet: start one with `continuity new NAME --goal TEXT`")
	}
	return name, err
}

// ledgerName is the ledger a command works on: the one named (by --stream
// or an argument), checked, else the active one.
func (a *app) ledgerName(p *workspace.Workspace, named string) (string, error) {
	if named == "" {
		return a.activeName(p)
	}
	return named, workspace.CheckName(named)
}

// ledgerFile opens the project and finds the ledger a command works on:
// the one named, else the active one.
func (a *app) ledgerFile(named string) (p *workspace.Workspace, name, path string, err error) {
	if p, err = a.project(); err != nil {
		return nil, "", "", err
	}
	if name, err = a.ledgerName(p, named); err != nil {
		return nil, "", "", err
	}
	if path, err = p.LedgerPath(name); err != nil {
		return nil, "", "", usageError{Err: err}
	}
	return p, name, path, nil
}
