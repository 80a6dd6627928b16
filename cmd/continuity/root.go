package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/project"
)

// devVersion is the version of a build that says nothing better.
const devVersion = "0.1.0-dev"

// version is set at build time with -ldflags "-X main.version=…". Left at
// devVersion, it becomes the module version the go command recorded (see
// moduleVersion), so `go install …@v1.2.0` reports 1.2.0.
var version = devVersion

func init() {
	version = moduleVersion(version, debug.ReadBuildInfo)
}

// moduleVersion returns set unless it is devVersion and the build info
// holds a real module version (not "(devel)", as `go run` and tests record),
// which it returns without its leading "v".
func moduleVersion(set string, readBuildInfo func() (*debug.BuildInfo, bool)) string {
	if set != devVersion {
		return set
	}
	info, ok := readBuildInfo()
	if !ok || info == nil || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return set
	}
	return strings.TrimPrefix(info.Main.Version, "v")
}

// versionLine is what `continuity version` and `continuity --version` print.
func versionLine() string { return "continuity " + version }

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
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print machine-readable JSON where the command supports it")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddGroup(&cobra.Group{ID: "ledger", Title: "Ledger commands:"}, &cobra.Group{ID: "hooks", Title: "Hooks and handoffs:"}, &cobra.Group{ID: "setup", Title: "Setup:"})
	for _, c := range []*cobra.Command{
		newNewCmd(a), newUseCmd(a), newScalarCmd(a, "goal"), newScalarCmd(a, "now"),
		newListEditCmd(a, "done"), newListEditCmd(a, "next"), newListEditCmd(a, "question"),
		newDecideCmd(a), newShowCmd(a), newListCmd(a), newSearchCmd(a), newLintCmd(a), newImportCmd(a),
		newMergeLedgerCmd(a),
	} {
		c.GroupID = "ledger"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newHookCmd(a), newContextCmd(a), newHandoffCmd(a), newResumeCmd(a)} {
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

// project opens the project the working directory belongs to.
func (a *app) project() (*project.Project, error) {
	p, err := project.OpenWith(a.dir, a.getenv)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// activeName returns the active ledger's name, or an error that says how to choose one.
func (a *app) activeName(p *project.Project) (string, error) {
	name, _, err := p.Active(a.getenv)
	if errors.Is(err, project.ErrNoLedger) {
		return "", errors.New("no ledger yet: start one with `continuity new NAME --goal TEXT`")
	}
	return name, err
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))}
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{fmt.Errorf("%s needs at least %d argument(s)", cmd.CommandPath(), n)}
		}
		return nil
	}
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usageError{fmt.Errorf("%s takes at most %d argument(s), got %d", cmd.CommandPath(), n, len(args))}
		}
		return nil
	}
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.json {
				return writeJSON(a.out, map[string]string{"version": version})
			}
			fmt.Fprintln(a.out, versionLine())
			return nil
		},
	}
}
