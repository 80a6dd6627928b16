package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

// importResult says what import did with one file.
type importResult struct {
	Path       string   `json:"path"`
	Target     string   `json:"target,omitempty"` // where the converted ledger goes, when not in place
	Action     string   `json:"action"`           // converted, copied, would-convert, would-copy, already, refused
	Moved      []string `json:"moved,omitempty"`  // the fields filled, with their item counts: "goal", "3 done"
	Items      int      `json:"items"`            // items (and goal, now) now in the front matter
	NotesLines int      `json:"notes_lines"`      // non-blank lines left in the body
	Problem    string   `json:"problem,omitempty"`
}

// importJob is one file to convert and where its result goes.
type importJob struct{ src, target string }

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
				return usageError{errors.New("import needs a FILE or --all")}
			}
			if stdout && (all || len(args) != 1 || dry) {
				return usageError{errors.New("--stdout prints one converted FILE (not with --all or --dry-run)")}
			}
			if name != "" {
				if err := project.CheckName(name); err != nil {
					return usageError{fmt.Errorf("--name: %w", err)}
				}
			}
			p, err := a.project()
			if err != nil {
				return err
			}
			jobs, err := importJobs(a, p, args, all, name)
			if err != nil {
				return err
			}
			if stdout {
				out, r := importOne(a, p, jobs[0], true)
				if r.Action == "refused" {
					return errors.New("continuity: import " + r.Path + ": " + r.Problem)
				}
				if r.Action == "already" {
					return fmt.Errorf("continuity: import %s: already in front matter form (nothing in its body to move)", r.Path)
				}
				_, err := a.out.Write(out)
				return err
			}
			results := []importResult{}
			refused := 0
			for _, j := range jobs {
				_, r := importOne(a, p, j, dry)
				if r.Action == "refused" {
					refused++
				}
				results = append(results, r)
			}
			if a.json {
				if err := writeJSON(a.out, results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					fmt.Fprintln(a.out, importLine(r))
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
		},
	}
	c.Flags().BoolVar(&stdout, "stdout", false, "print the converted ledger instead of rewriting the file")
	c.Flags().BoolVar(&all, "all", false, "convert every ledger in the ledger directory, and a root CONTINUITY.md")
	c.Flags().BoolVarP(&dry, "dry-run", "n", false, "say what would be converted; write nothing")
	c.Flags().StringVar(&name, "name", "", "the work stream a root CONTINUITY.md becomes (default: the repository's name)")
	return c
}

// importJobs lists the files to convert: those named, or with all every
// ledger and a root CONTINUITY.md. A root CONTINUITY.md (Codex's) goes to
// the ledger directory under name.
func importJobs(a *app, p *project.Project, args []string, all bool, name string) ([]importJob, error) {
	var jobs []importJob
	seen := map[string]bool{}
	add := func(path string) error {
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.dir, path)
		}
		path = filepath.Clean(path)
		if seen[path] {
			return nil
		}
		seen[path] = true
		j := importJob{src: path, target: path}
		if filepath.Base(path) == "CONTINUITY.md" {
			n := name
			if n == "" {
				n = slugName(filepath.Base(p.Root))
			}
			t, err := p.LedgerPath(n)
			if err != nil {
				return usageError{fmt.Errorf("a root CONTINUITY.md becomes a ledger named after the repository; name it with --name: %w", err)}
			}
			j.target = t
		}
		jobs = append(jobs, j)
		return nil
	}
	for _, f := range args {
		if err := add(f); err != nil {
			return nil, err
		}
	}
	if all {
		infos, err := p.Ledgers()
		if err != nil {
			return nil, err
		}
		for i := len(infos) - 1; i >= 0; i-- { // oldest first: the order they were kept in
			if err := add(infos[i].Path); err != nil {
				return nil, err
			}
		}
		root := filepath.Join(p.Root, "CONTINUITY.md")
		if fi, err := os.Lstat(root); err == nil && fi.Mode().IsRegular() {
			if err := add(root); err != nil {
				return nil, err
			}
		}
	}
	return jobs, nil
}

// slugName turns a directory name into a ledger name.
func slugName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-._")
	if out == "" || project.CheckName(out) != nil {
		return "main"
	}
	return out
}

// importOne converts one file (or, with dry, says what it would do) and
// returns the converted bytes and what was done.
func importOne(a *app, p *project.Project, j importJob, dry bool) ([]byte, importResult) {
	r := importResult{Path: p.Rel(j.src)}
	copyTo := j.target != j.src
	if copyTo {
		r.Target = p.Rel(j.target)
	}
	refuse := func(err error) ([]byte, importResult) {
		r.Action, r.Problem = "refused", firstLine(err)
		return nil, r
	}
	src, err := safefile.Read(j.src, safefile.Options{})
	if err != nil {
		return refuse(err)
	}
	mtime := a.now()
	if fi, err := os.Stat(j.src); err == nil {
		mtime = fi.ModTime()
	}
	targetRel := p.Rel(j.target)
	convert := func(in []byte) ([]byte, error) {
		out, err := ledger.Import(targetRel, in, mtime)
		if err != nil {
			return nil, err
		}
		// The converted ledger is a file to commit: no secrets.
		return []byte(p.Redact(string(out))), nil
	}
	out, err := convert(src)
	if errors.Is(err, ledger.ErrNothingToImport) {
		r.Action = "already"
		return nil, r
	}
	if err != nil {
		return refuse(err)
	}
	summarize(&r, targetRel, out)
	switch {
	case dry && copyTo:
		r.Action = "would-copy"
		return out, r
	case dry:
		r.Action = "would-convert"
		return out, r
	case copyTo:
		if _, err := os.Stat(j.target); err == nil {
			return refuse(fmt.Errorf("%s exists; choose another name with --name", r.Target))
		}
		if err := os.MkdirAll(filepath.Dir(j.target), 0o755); err != nil {
			return refuse(err)
		}
		err = safefile.Update(j.target, p.WriteOptions(), func(old []byte) ([]byte, error) {
			if old != nil {
				return nil, fmt.Errorf("%s exists; choose another name with --name", r.Target)
			}
			return out, nil
		})
		r.Action = "copied"
	default:
		err = safefile.Update(j.src, p.WriteOptions(), func(old []byte) ([]byte, error) {
			if old == nil {
				return nil, fmt.Errorf("%s: %w", r.Path, fs.ErrNotExist)
			}
			if bytes.Equal(old, src) {
				return out, nil
			}
			// Changed since it was read: convert what is there now.
			return convert(old)
		})
		r.Action = "converted"
	}
	if err != nil {
		return refuse(err)
	}
	return out, r
}

// summarize counts what the converted ledger holds.
func summarize(r *importResult, path string, out []byte) {
	l, err := ledger.Parse(path, out)
	if err != nil {
		return
	}
	add := func(name string, n int) {
		if n == 0 {
			return
		}
		r.Items += n
		if n == 1 && (name == "goal" || name == "now") {
			r.Moved = append(r.Moved, name)
			return
		}
		if n == 1 {
			name = strings.TrimSuffix(name, "s")
		}
		r.Moved = append(r.Moved, fmt.Sprintf("%d %s", n, name))
	}
	add("goal", boolCount(l.Goal != ""))
	add("now", boolCount(l.Now != ""))
	add("done", len(l.Done))
	add("next", len(l.Next))
	add("constraints", len(l.Constraints))
	add("decisions", len(l.Decisions))
	add("questions", len(l.Questions))
	add("files", len(l.Files))
	for _, line := range strings.Split(string(l.Body), "\n") {
		if strings.TrimSpace(line) != "" {
			r.NotesLines++
		}
	}
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// importLine says in one line what import did with a file.
func importLine(r importResult) string {
	what := strings.Join(r.Moved, ", ")
	if what == "" {
		what = "nothing"
	}
	body := fmt.Sprintf("%s to the front matter; %s of notes kept in the body", what, plural(r.NotesLines, "line"))
	switch r.Action {
	case "converted":
		return fmt.Sprintf("converted %s: %s", r.Path, body)
	case "would-convert":
		return fmt.Sprintf("would convert %s: %s", r.Path, body)
	case "copied":
		return fmt.Sprintf("copied %s to %s: %s (%s is left as it is)", r.Path, r.Target, body, r.Path)
	case "would-copy":
		return fmt.Sprintf("would copy %s to %s: %s (%s would be left as it is)", r.Path, r.Target, body, r.Path)
	case "already":
		return fmt.Sprintf("already in front matter form: %s", r.Path)
	}
	return fmt.Sprintf("not converted %s: %s (the file is left as it is)", r.Path, r.Problem)
}
