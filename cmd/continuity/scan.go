package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/safefile"
)

type scanOptions struct {
	Files  []string
	Staged bool
}

// scanHit is one secret found by scan: where, and of what kind (never the
// secret itself).
type scanHit struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Kind string `json:"kind"`
}

func newScanCmd(a *app) *cobra.Command {
	var o scanOptions
	c := &cobra.Command{
		Use:   "scan [FILE...]",
		Short: "Find secrets in ledgers and handoffs (pre-commit, CI); exit 1 if any",
		Long: `Find secrets (cloud and API keys, tokens, private keys, passwords in URLs and
assignments, high-entropy values next to secret words) in the given files, or
in every ledger and handoff. Prints file:line: kind for each, never the secret,
and exits 1 when any is found. --staged scans the ledgers and handoffs staged
for the next commit, as git will commit them (the pre-commit hook that
` + "`continuity init --pre-commit`" + ` installs runs this).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			if o.Staged && len(args) > 0 {
				return usageError{errors.New("scan takes files or --staged, not both")}
			}
			return runScan(a, o)
		},
	}
	c.Flags().BoolVar(&o.Staged, "staged", false, "scan the ledgers and handoffs staged for commit")
	return c
}

func runScan(a *app, o scanOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	r := p.Redactor()
	type source struct {
		name string
		read func() ([]byte, error)
	}
	var srcs []source
	switch {
	case o.Staged:
		// In a pre-commit hook git names the index being committed
		// (a temporary one for `git commit -a` or `git commit PATH`).
		g := gitfacts.Git{Repo: p.Repo, Index: a.getenv("GIT_INDEX_FILE")}
		names, err := stagedContinuityFiles(p, g)
		if err != nil {
			return err
		}
		for _, n := range names {
			srcs = append(srcs, source{n, func() ([]byte, error) { return g.Run(context.Background(), "cat-file", "blob", ":"+n) }})
		}
	case len(o.Files) > 0:
		for _, f := range o.Files {
			path := f
			if !filepath.IsAbs(path) {
				path = filepath.Join(a.dir, path)
			}
			files, err := filesUnder(path, false)
			if err != nil {
				return err
			}
			for _, file := range files {
				name := file
				if rel, err := filepath.Rel(a.dir, file); err == nil && !strings.HasPrefix(rel, "..") {
					name = rel
				}
				srcs = append(srcs, source{filepath.ToSlash(name), func() ([]byte, error) { return readNamed(file) }})
			}
		}
	default:
		for _, d := range []string{p.LedgerDir, p.HandoffDir} {
			files, err := filesUnder(d, true)
			if err != nil {
				return err
			}
			for _, file := range files {
				srcs = append(srcs, source{p.Rel(file), func() ([]byte, error) { return safefile.Read(file, p.WriteOptions()) }})
			}
		}
	}
	hits := []scanHit{}
	files := map[string]bool{}
	for _, s := range srcs {
		b, err := s.read()
		if err != nil {
			return fmt.Errorf("scan %s: %w", s.name, err)
		}
		for _, f := range r.Scan(b) {
			hits = append(hits, scanHit{File: s.name, Line: f.Line, Col: f.Col, Kind: f.Kind})
			files[s.name] = true
		}
	}
	if a.json {
		if err := writeJSON(a.out, hits); err != nil {
			return err
		}
	} else {
		for _, h := range hits {
			fmt.Fprintf(a.out, "%s:%d: %s\n", h.File, h.Line, h.Kind)
		}
	}
	if len(hits) > 0 {
		fmt.Fprintf(a.errw, "continuity: scan: %s in %s; replace each with a marker such as %s (or allow a false positive in the project config)\n",
			plural(len(hits), "secret"), plural(len(files), "file"), redact.Marker(hits[0].Kind))
		return errSilent
	}
	if !a.json {
		fmt.Fprintf(a.out, "no secrets found in %s\n", plural(len(srcs), "file"))
	}
	return nil
}

// filesUnder lists path itself when it is a file, else the regular files
// under it (only *.md when mdOnly), sorted. A missing default directory is
// empty; a missing named file is an error.
func filesUnder(path string, mdOnly bool) ([]string, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) && mdOnly {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && (!mdOnly || strings.HasSuffix(p, ".md")) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", path, err)
	}
	sort.Strings(out)
	return out, nil
}

// stagedContinuityFiles lists the ledgers and handoffs added, copied,
// modified or renamed in the index, relative to the repository root.
func stagedContinuityFiles(p *project.Project, g gitfacts.Git) ([]string, error) {
	if p.Repo.Root == "" {
		return nil, errors.New("scan --staged: not in a git repository")
	}
	out, err := g.Run(context.Background(), "diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR", "--", p.Rel(p.LedgerDir), p.Rel(p.HandoffDir))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if strings.HasSuffix(n, ".md") {
			names = append(names, n)
		}
	}
	return names, nil
}
