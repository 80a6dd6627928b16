package core

// The import use case: ledgers that keep their fields in markdown sections
// (Continuous-Claude's, in both its forms, and a root CONTINUITY.md kept by an
// agent) converted to continuity's front matter form, in place and
// atomically, or copied into the ledger directory. Import converts the
// bytes; this file picks the files and writes them.

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/continuity-md/continuity/ledger"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// ImportOptions say what to import.
type ImportOptions struct {
	Project *workspace.Workspace
	Dir     string   // the working directory relative FILEs are in
	Files   []string // the files named
	All     bool     // every ledger, and a root CONTINUITY.md
	Name    string   // the work stream a root CONTINUITY.md becomes ("": the repository's name)
	Now     time.Time
}

// ImportNameError says that a root CONTINUITY.md has no usable ledger name.
type ImportNameError struct{ Err error }

func (e *ImportNameError) Error() string {
	return "a root CONTINUITY.md becomes a ledger named after the repository; name it with --name: " + e.Err.Error()
}

func (e *ImportNameError) Unwrap() error { return e.Err }

// ImportLedgers converts every job (or, with dry, says what it would do).
func ImportLedgers(o ImportOptions, jobs []ImportJob, dry bool) (results []ImportResult, refused int) {
	results = []ImportResult{}
	for _, j := range jobs {
		_, r := ImportOne(o, j, dry)
		if r.Action == "refused" {
			refused++
		}
		results = append(results, r)
	}
	return results, refused
}

// ImportResult says what import did with one file.
type ImportResult struct {
	Path       string   `json:"path"`
	Target     string   `json:"target,omitempty"` // where the converted ledger goes, when not in place
	Action     string   `json:"action"`           // converted, copied, would-convert, would-copy, already, refused
	Moved      []string `json:"moved,omitempty"`  // the fields filled, with their item counts: "goal", "3 done"
	Items      int      `json:"items"`            // items (and goal, now) now in the front matter
	NotesLines int      `json:"notes_lines"`      // non-blank lines left in the body
	// Kept counts the items under sections that name a field which no field
	// took (code in them, a shape no field carries): they stay in the body.
	Kept    int      `json:"kept_in_notes"`
	KeptIn  []string `json:"kept_in_sections,omitempty"` // the sections they are under
	Problem string   `json:"problem,omitempty"`
}

// ImportJob is one file to convert and where its result goes.
type ImportJob struct{ Src, Target string }

// ImportJobs lists the files to convert: those named, or with all every
// ledger and a root CONTINUITY.md, which goes to the ledger directory
// under o.Name.
func ImportJobs(o ImportOptions) ([]ImportJob, error) {
	p := o.Project
	var jobs []ImportJob
	seen := map[string]bool{}
	add := func(path string) error {
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.Dir, path)
		}
		path = filepath.Clean(path)
		if seen[path] {
			return nil
		}
		seen[path] = true
		j := ImportJob{Src: path, Target: path}
		if filepath.Base(path) == "CONTINUITY.md" {
			n := o.Name
			if n == "" {
				n = slugName(filepath.Base(p.Root))
			}
			t, err := p.LedgerPath(n)
			if err != nil {
				return &ImportNameError{err}
			}
			j.Target = t
		}
		jobs = append(jobs, j)
		return nil
	}
	for _, f := range o.Files {
		if err := add(f); err != nil {
			return nil, err
		}
	}
	if o.All {
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
	if out == "" || workspace.CheckName(out) != nil {
		return "main"
	}
	return out
}

// ImportOne converts one file (or, with dry, says what it would do) and
// returns the converted bytes and what was done.
func ImportOne(o ImportOptions, j ImportJob, dry bool) ([]byte, ImportResult) {
	p := o.Project
	r := ImportResult{Path: p.Rel(j.Src)}
	copyTo := j.Target != j.Src
	if copyTo {
		r.Target = p.Rel(j.Target)
	}
	refuse := func(err error) ([]byte, ImportResult) {
		r.Action, r.Problem = "refused", firstLine(err)
		return nil, r
	}
	src, err := safefile.Read(j.Src, safefile.Options{})
	if err != nil {
		return refuse(err)
	}
	mtime := o.Now
	if fi, err := os.Stat(j.Src); err == nil {
		mtime = fi.ModTime()
	}
	targetRel := p.Rel(j.Target)
	convert := func(in []byte) ([]byte, error) {
		out, err := compat.Import(targetRel, in, mtime)
		if err != nil {
			return nil, realFile(err, targetRel, r.Path)
		}
		// The converted ledger is a file to commit: no secrets.
		return []byte(p.Redact(string(out))), nil
	}
	out, err := convert(src)
	if errors.Is(err, compat.ErrNothingToImport) {
		r.Action = "already"
		return nil, r
	}
	if err != nil {
		return refuse(err)
	}
	summarize(&r, targetRel, out)
	r.Kept, r.KeptIn = compat.Kept(targetRel, src)
	switch {
	case dry && copyTo:
		r.Action = "would-copy"
		return out, r
	case dry:
		r.Action = "would-convert"
		return out, r
	case copyTo:
		if _, err := os.Stat(j.Target); err == nil {
			return refuse(fmt.Errorf("%s exists; choose another name with --name", r.Target))
		}
		if err := p.MkdirAll(filepath.Dir(j.Target)); err != nil {
			return refuse(err)
		}
		err = safefile.Update(j.Target, p.WriteOptions(), func(old []byte) ([]byte, error) {
			if old != nil {
				return nil, fmt.Errorf("%s exists; choose another name with --name", r.Target)
			}
			return out, nil
		})
		r.Action = "copied"
	default:
		err = safefile.Update(j.Src, p.WriteOptions(), func(old []byte) ([]byte, error) {
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

// realFile names the file a person has in the problems of a conversion
// read under the name of its target (which does not exist yet).
func realFile(err error, target, real string) error {
	var probs ledger.Problems
	if !errors.As(err, &probs) {
		var one ledger.Problem
		if errors.As(err, &one) && one.Path == target {
			one.Path = real
			return one
		}
		return err
	}
	fixed := make(ledger.Problems, len(probs))
	for i, pr := range probs {
		if pr.Path == target {
			pr.Path = real
		}
		fixed[i] = pr
	}
	return fixed
}

// summarize counts what the converted ledger holds.
func summarize(r *ImportResult, path string, out []byte) {
	l, err := compat.ParseLedger(path, out)
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

// Line says in one line what import did with the file.
func (r ImportResult) Line() string {
	what := strings.Join(r.Moved, ", ")
	if what == "" {
		what = "nothing"
	}
	body := fmt.Sprintf("%s to the front matter; %s of notes kept in the body", what, lines(r.NotesLines))
	if r.Kept > 0 {
		n := "1 item"
		if r.Kept > 1 {
			n = fmt.Sprintf("%d items", r.Kept)
		}
		body += fmt.Sprintf(", with %s under %s that no field holds", n, strings.Join(r.KeptIn, ", "))
	}
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

func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
