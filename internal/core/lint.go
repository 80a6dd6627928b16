package core

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// LintReport is what lint found (its --json output).
type LintReport struct {
	Files    int           `json:"files"`
	Problems []LintProblem `json:"problems"`
}

// LintProblem is one problem in one file.
type LintProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// Lint validates the ledgers named (relative to dir), or with none every
// ledger in the ledger directory.
func Lint(p *workspace.Workspace, dir string, files []string) (LintReport, error) {
	if len(files) == 0 {
		infos, err := p.Ledgers()
		if err != nil {
			return LintReport{}, err
		}
		for _, li := range infos {
			files = append(files, li.Path)
		}
	}
	report := LintReport{Files: len(files), Problems: []LintProblem{}}
	for _, f := range files {
		name := f
		if filepath.IsAbs(f) {
			name = p.Rel(f)
		} else {
			f = filepath.Join(dir, f)
		}
		src, err := safefile.Read(f, safefile.Options{})
		if errors.Is(err, fs.ErrNotExist) {
			report.Problems = append(report.Problems, LintProblem{File: name, Message: "no such file"})
			continue
		}
		if err == nil {
			_, err = compat.ParseLedger(name, src)
		}
		var probs ledger.Problems
		switch {
		case errors.As(err, &probs):
			for _, pr := range probs {
				report.Problems = append(report.Problems, LintProblem{File: name, Line: pr.Line, Message: pr.Msg})
			}
		case err != nil:
			report.Problems = append(report.Problems, LintProblem{File: name, Message: err.Error()})
		}
	}
	return report, nil
}

// BadFiles counts the files with problems.
func (r LintReport) BadFiles() int {
	files := map[string]bool{}
	for _, pr := range r.Problems {
		files[pr.File] = true
	}
	return len(files)
}
