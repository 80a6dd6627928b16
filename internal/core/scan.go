package core

// Finding secrets in ledgers and handoffs: the files named, every one in the
// project's directories, or those staged for the next commit as git will
// commit them (the pre-commit hook runs this). It reports where and of what
// kind, never the secret itself.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// ScanOptions say what to scan.
type ScanOptions struct {
	Dir    string   // the working directory relative files are in
	Files  []string // files or directories; none: every ledger and handoff
	Staged bool     // the ledgers and handoffs staged for commit
	Index  string   // with Staged: the index git commits ($GIT_INDEX_FILE; "" for the default)
}

// SecretHit is one secret found: where, and of what kind (never the
// secret itself).
type SecretHit struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Kind string `json:"kind"`
}

// Scan scans and returns the secrets found and how many files it read.
func Scan(p *workspace.Workspace, o ScanOptions) ([]SecretHit, int, error) {
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
		g := gitfacts.Git{Repo: p.Repo, Index: o.Index}
		names, err := stagedContinuityFiles(p, g)
		if err != nil {
			return nil, 0, err
		}
		for _, n := range names {
			srcs = append(srcs, source{n, func() ([]byte, error) { return g.Run(context.Background(), "cat-file", "blob", ":"+n) }})
		}
	case len(o.Files) > 0:
		for _, f := range o.Files {
			path := f
			if !filepath.IsAbs(path) {
				path = filepath.Join(o.Dir, path)
			}
			files, err := filesUnder(path, false)
			if err != nil {
				return nil, 0, err
			}
			for _, file := range files {
				name := file
				if rel, err := filepath.Rel(o.Dir, file); err == nil && !strings.HasPrefix(rel, "..") {
					name = rel
				}
				srcs = append(srcs, source{filepath.ToSlash(name), func() ([]byte, error) { return safefile.Read(file, namedFile) }})
			}
		}
	default:
		for _, d := range []string{p.LedgerDir, p.HandoffDir} {
			files, err := filesUnder(d, true)
			if err != nil {
				return nil, 0, err
			}
			for _, file := range files {
				srcs = append(srcs, source{p.Rel(file), func() ([]byte, error) { return safefile.Read(file, p.WriteOptions()) }})
			}
		}
	}
	hits := []SecretHit{}
	for _, s := range srcs {
		b, err := s.read()
		if err != nil {
			return nil, 0, fmt.Errorf("scan %s: %w", s.name, err)
		}
		for _, f := range r.Scan(decodeText(b)) {
			hits = append(hits, SecretHit{File: s.name, Line: f.Line, Col: f.Col, Kind: f.Kind})
		}
	}
	return hits, len(srcs), nil
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
func stagedContinuityFiles(p *workspace.Workspace, g gitfacts.Git) ([]string, error) {
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

// namedFile reads a file a person named on the command line: any size (a
// tebibyte stands for none), but a regular file only.
var namedFile = safefile.Options{MaxSize: 1 << 40}
