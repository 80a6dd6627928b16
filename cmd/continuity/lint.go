package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

type lintOptions struct {
	Files []string // none: every ledger in the ledger directory
	JSON  bool
}

// lintReport is what lint prints with --json.
type lintReport struct {
	Files    int           `json:"files"`
	Problems []lintProblem `json:"problems"`
}

type lintProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func newLintCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "lint [FILE...]",
		Short: "Validate ledgers (all of them by default); exit 1 on any problem",
		Long: `Validate ledgers and print each problem as FILE:LINE: PROBLEM. With no FILE, every ledger in
the ledger directory is checked. For pre-commit hooks and CI: exit 1 when any problem is found.
--json prints {"files": N, "problems": [{"file", "line", "message"}]}.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o := lintOptions{Files: args, JSON: a.json}
			return a.runWith(o, func() error { return runLint(a, o) })
		},
	}
}

func runLint(a *app, o lintOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	files := o.Files
	if len(files) == 0 {
		infos, err := p.Ledgers()
		if err != nil {
			return err
		}
		for _, li := range infos {
			files = append(files, li.Path)
		}
	}
	report := lintReport{Files: len(files), Problems: []lintProblem{}}
	for _, f := range files {
		name := f
		if filepath.IsAbs(f) {
			name = p.Rel(f)
		} else {
			f = filepath.Join(a.dir, f)
		}
		src, err := safefile.Read(f, safefile.Options{})
		if errors.Is(err, fs.ErrNotExist) {
			report.Problems = append(report.Problems, lintProblem{File: name, Message: "no such file"})
			continue
		}
		if err == nil {
			_, err = ledger.Parse(name, src)
		}
		var probs ledger.Problems
		switch {
		case errors.As(err, &probs):
			for _, pr := range probs {
				report.Problems = append(report.Problems, lintProblem{File: name, Line: pr.Line, Message: pr.Msg})
			}
		case err != nil:
			report.Problems = append(report.Problems, lintProblem{File: name, Message: err.Error()})
		}
	}
	if o.JSON {
		if err := writeJSON(a.out, report); err != nil {
			return err
		}
	} else {
		for _, pr := range report.Problems {
			if pr.Line > 0 {
				fmt.Fprintf(a.out, "%s:%d: %s\n", pr.File, pr.Line, pr.Message)
			} else {
				fmt.Fprintf(a.out, "%s: %s\n", pr.File, pr.Message)
			}
		}
	}
	if bad := problemFiles(report.Problems); bad > 0 {
		fmt.Fprintf(a.errw, "continuity: %s with problems\n", plural(bad, "file"))
		return errSilent
	}
	if !o.JSON {
		fmt.Fprintf(a.out, "%s ok\n", plural(len(files), "ledger"))
	}
	return nil
}

func problemFiles(probs []lintProblem) int {
	files := map[string]bool{}
	for _, pr := range probs {
		files[pr.File] = true
	}
	return len(files)
}
