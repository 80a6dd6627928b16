package main

import (
	"bytes"
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
				srcs = append(srcs, source{filepath.ToSlash(name), func() ([]byte, error) { return os.ReadFile(file) }})
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

// gitOutput runs git in the project's repository through the one runner.
// Only the pre-commit installer (preCommitPath) still calls it: the setup
// helper moves that to internal/install, which calls gitfacts.Git directly.
func gitOutput(p *project.Project, args ...string) ([]byte, error) {
	return gitfacts.Git{Repo: p.Repo}.Run(context.Background(), args...)
}

// The pre-commit hook block, recognised by its markers so that installing
// twice changes nothing and uninstall removes exactly it.
const (
	preCommitBegin = "# >>> continuity scan >>>"
	preCommitEnd   = "# <<< continuity scan <<<"
)

func preCommitBlock(prog string) string {
	return preCommitBegin + "\n" +
		"# Added by `continuity init --pre-commit`; `continuity uninstall` removes it.\n" +
		"# Refuses a commit whose staged ledgers or handoffs hold a secret.\n" +
		"if command -v " + firstWord(prog) + " >/dev/null 2>&1; then\n" +
		"\t" + prog + " scan --staged || exit 1\n" +
		"else\n" +
		"\techo 'continuity: pre-commit: " + strings.ReplaceAll(firstWord(prog), "'", "") + " not found; ledgers and handoffs not scanned for secrets' >&2\n" +
		"fi\n" +
		preCommitEnd + "\n"
}

// firstWord is the program of a command line as the shell reads it (a
// quoted path stays quoted).
func firstWord(cmdline string) string {
	if strings.HasPrefix(cmdline, "'") {
		if i := strings.Index(cmdline[1:], "' "); i >= 0 {
			return cmdline[:i+2]
		}
		return cmdline
	}
	if f := strings.Fields(cmdline); len(f) > 0 {
		return f[0]
	}
	return cmdline
}

// preCommitPath is the pre-commit hook git runs for the project: in
// core.hooksPath when set, else in the git directory's hooks.
func preCommitPath(p *project.Project) (string, error) {
	if p.Repo.Root == "" {
		return "", errors.New("pre-commit hook: not in a git repository")
	}
	out, err := gitOutput(p, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(p.Root, dir)
	}
	return filepath.Join(dir, "pre-commit"), nil
}

// installPreCommit adds the scan block to the project's pre-commit hook:
// a new hook when there is none, the block appended to a shell hook of
// someone else's, the block updated in place when already there. A hook
// it cannot safely extend is left alone, with what to add printed.
func installPreCommit(a *app, p *project.Project, prog string) error {
	path, err := preCommitPath(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	block := preCommitBlock(prog)
	var msg string
	var refused bool
	err = safefile.Update(path, safefile.Options{LockDir: filepath.Join(p.StateDir, "locks")}, func(old []byte) ([]byte, error) {
		s := string(old)
		refused = false
		switch {
		case old == nil:
			msg = "installed the pre-commit hook " + path + " (continuity scan --staged)"
			return []byte("#!/bin/sh\n" + block), nil
		case strings.Contains(s, preCommitBegin):
			i := strings.Index(s, preCommitBegin)
			j := strings.Index(s[i:], preCommitEnd)
			if j < 0 {
				return nil, fmt.Errorf("%s: %q without %q: fix the hook by hand", path, preCommitBegin, preCommitEnd)
			}
			end := i + j + len(preCommitEnd)
			if end < len(s) && s[end] == '\n' {
				end++
			}
			if s[i:end] == block {
				msg = "pre-commit hook already installed in " + path
				return nil, safefile.ErrNoChange
			}
			msg = "updated the pre-commit hook " + path
			return []byte(s[:i] + block + s[end:]), nil
		case !isExtensibleShellHook(s):
			refused = true
			return nil, safefile.ErrNoChange
		default:
			msg = "added continuity's secret scan to the existing pre-commit hook " + path
			if !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			return []byte(s + "\n" + block), nil
		}
	})
	if err != nil {
		return err
	}
	if refused {
		fmt.Fprintf(a.out, "%s is not a shell script continuity can extend safely; add this to it:\n  %s scan --staged || exit 1\n", path, prog)
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o111 == 0 {
		if err := os.Chmod(path, st.Mode().Perm()|0o111); err != nil {
			return fmt.Errorf("make %s executable: %w", path, err)
		}
	}
	fmt.Fprintln(a.out, msg)
	return nil
}

// isExtensibleShellHook reports a sh or bash script that does not end the
// process before a block appended to it could run (exec, or a top-level exit).
func isExtensibleShellHook(s string) bool {
	first, _, _ := strings.Cut(s, "\n")
	if !strings.HasPrefix(first, "#!") {
		return false
	}
	f := strings.Fields(strings.TrimPrefix(first, "#!"))
	if len(f) == 0 {
		return false
	}
	interp := filepath.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = f[1]
	}
	if interp != "sh" && interp != "bash" && interp != "dash" && interp != "zsh" {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "exec ") || line == "exit" || strings.HasPrefix(line, "exit ") {
			return false
		}
	}
	return true
}

// removePreCommit takes the scan block out of the pre-commit hook, and
// removes the hook when nothing but the block (and the #!/bin/sh line init
// wrote with it) is left.
func removePreCommit(a *app, p *project.Project) error {
	path, err := preCommitPath(p)
	if err != nil {
		return nil // outside git there is no hook to remove
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Contains(b, []byte(preCommitBegin)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	empty := false
	err = safefile.Update(path, safefile.Options{LockDir: filepath.Join(p.StateDir, "locks")}, func(old []byte) ([]byte, error) {
		s := string(old)
		i := strings.Index(s, preCommitBegin)
		if i < 0 {
			return nil, safefile.ErrNoChange
		}
		j := strings.Index(s[i:], preCommitEnd)
		if j < 0 {
			return nil, fmt.Errorf("%s: %q without %q: fix the hook by hand", path, preCommitBegin, preCommitEnd)
		}
		end := i + j + len(preCommitEnd)
		if end < len(s) && s[end] == '\n' {
			end++
		}
		start := i
		if strings.HasSuffix(s[:start], "\n\n") { // the blank line install put before an appended block
			start--
		}
		rest := s[:start] + s[end:]
		empty = strings.TrimSpace(rest) == "#!/bin/sh"
		return []byte(rest), nil
	})
	if err != nil {
		return err
	}
	if empty {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		fmt.Fprintf(a.out, "removed the pre-commit hook %s\n", path)
		return nil
	}
	fmt.Fprintf(a.out, "removed continuity's secret scan from the pre-commit hook %s\n", path)
	return nil
}
