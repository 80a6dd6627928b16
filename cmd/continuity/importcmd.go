package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/importer"
	"github.com/continuity-md/continuity/internal/project"
)

func newImportCmd(a *app) *cobra.Command {
	var stdout, all, dry bool
	var name string
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
  continuity import CONTINUITY.md --name billing`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !all && len(args) == 0 {
				return usageError{Err: errors.New("import needs a FILE or --all")}
			}
			if stdout && (all || len(args) != 1 || dry) {
				return usageError{Err: errors.New("--stdout prints one converted FILE (not with --all or --dry-run)")}
			}
			if name != "" {
				if err := project.CheckName(name); err != nil {
					return usageError{Err: fmt.Errorf("--name: %w", err)}
				}
			}
			p, err := a.project()
			if err != nil {
				return err
			}
			o := importer.Options{Project: p, Dir: a.dir, Files: args, All: all, Name: name, Now: a.now()}
			return runImport(a, o, stdout, dry)
		},
	}
	c.Flags().BoolVar(&stdout, "stdout", false, "print the converted ledger instead of rewriting the file")
	c.Flags().BoolVar(&all, "all", false, "convert every ledger in the ledger directory, and a root CONTINUITY.md")
	c.Flags().BoolVarP(&dry, "dry-run", "n", false, "say what would be converted; write nothing")
	c.Flags().StringVar(&name, "name", "", "the work stream a root CONTINUITY.md becomes (default: the repository's name)")
	return c
}

func runImport(a *app, o importer.Options, stdout, dry bool) error {
	jobs, err := importer.Jobs(o)
	var ne *importer.NameError
	if errors.As(err, &ne) {
		return usageError{Err: err}
	}
	if err != nil {
		return err
	}
	if stdout {
		out, r := importer.One(o, jobs[0], true)
		if r.Action == "refused" {
			return errors.New("continuity: import " + r.Path + ": " + r.Problem)
		}
		if r.Action == "already" {
			return fmt.Errorf("continuity: import %s: already in front matter form (nothing in its body to move)", r.Path)
		}
		_, err := a.out.Write(out)
		return err
	}
	results, refused := importer.Run(o, jobs, dry)
	if a.json {
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
		if dry {
			fmt.Fprintln(a.out, "dry run: nothing was written")
		}
	}
	if refused > 0 {
		fmt.Fprintf(a.errw, "continuity: %s not converted (left as they are)\n", plural(refused, "file"))
		return errSilent
	}
	return nil
}
