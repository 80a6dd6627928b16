package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

type importOptions struct {
	Files               []string
	All, Stdout, DryRun bool
	Stream              string // the work stream a root CONTINUITY.md becomes
	JSON                bool
}

func newImportCmd(a *app) *cobra.Command {
	var o importOptions
	c := &cobra.Command{
		Use:   "import [FILE...]",
		Short: "Convert Continuous-Claude and Codex ledgers to the front matter form (--all: the whole tree)",
		Long: `Convert ledgers that keep their fields in markdown sections to continuity's front matter form,
in place and atomically: Continuous-Claude's section-style CONTINUITY_CLAUDE-<name>.md (## Goal,
## State with Done/Now/Next, ## Key Decisions, ## Working Set, ...), its v3 form (front matter with
only session and updated, ## Progress with ### Done / ### In Progress / ### Blocked, ## Next Steps,
## File Operations), and Codex's root CONTINUITY.md ("- Goal (incl. success criteria): ..."), which
is copied to the ledger directory (as CONTINUITY_<name>.md, --name) and left as it is.

What was understood moves to the front matter and out of the body; every other section and note
stays in the body verbatim; the ledger's own Updated time is kept (else the file's modification
time). A file that does not parse is never rewritten. Handoffs need no conversion: they are read
as they are. --all converts every ledger in the ledger directory (and a root CONTINUITY.md);
--dry-run says what it would do and writes nothing; --stdout prints one converted ledger.`,
		Example: `  continuity import --all --dry-run
  continuity import --all
  continuity import thoughts/ledgers/CONTINUITY_CLAUDE-auth.md --stdout
  continuity import CONTINUITY.md --stream billing`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files, o.JSON = args, a.json
			return a.runWith(o, func() error { return runImport(a, o) })
		},
	}
	c.Flags().BoolVar(&o.Stdout, "stdout", false, "print the converted ledger instead of rewriting the file")
	c.Flags().BoolVar(&o.All, "all", false, "convert every ledger in the ledger directory, and a root CONTINUITY.md")
	c.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "say what would be converted; write nothing")
	streamFlag(c, &o.Stream, "the work stream a root CONTINUITY.md becomes (default: the repository's name)", "name")
	return c
}

func runImport(a *app, opts importOptions) error {
	if !opts.All && len(opts.Files) == 0 {
		return usageError{Err: errors.New("import needs a FILE or --all")}
	}
	if opts.Stdout && (opts.All || len(opts.Files) != 1 || opts.DryRun) {
		return usageError{Err: errors.New("--stdout prints one converted FILE (not with --all or --dry-run)")}
	}
	if opts.Stream != "" {
		if err := workspace.CheckName(opts.Stream); err != nil {
			return usageError{Err: fmt.Errorf("--name: %w", err)}
		}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	o := core.ImportOptions{Project: p, Dir: a.dir, Files: opts.Files, All: opts.All, Name: opts.Stream, Now: a.now()}
	jobs, err := core.ImportJobs(o)
	var ne *core.ImportNameError
	if errors.As(err, &ne) {
		return usageError{Err: err}
	}
	if err != nil {
		return err
	}
	if opts.Stdout {
		out, r := core.ImportOne(o, jobs[0], true)
		if r.Action == "refused" {
			return errors.New("continuity: import " + r.Path + ": " + r.Problem)
		}
		if r.Action == "already" {
			return fmt.Errorf("continuity: import %s: already in front matter form (nothing in its body to move)", r.Path)
		}
		_, err := a.out.Write(out)
		return err
	}
	results, refused := core.ImportLedgers(o, jobs, opts.DryRun)
	if opts.JSON {
		if err := writeJSON(a.out, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintln(a.out, r.Line())
		}
		if len(results) == 0 {
			fmt.Fprintln(a.out, "no ledgers to import")
		}
		if opts.DryRun {
			fmt.Fprintln(a.out, "dry run: nothing was written")
		}
	}
	if refused > 0 {
		fmt.Fprintf(a.errw, "continuity: %s not converted (left as they are)\n", plural(refused, "file"))
		return errSilent
	}
	return nil
}
