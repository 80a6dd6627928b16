package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// The repository's own installers (the ledger merge driver, the pre-commit
// scan): init adds them, uninstall removes them once no agent's hooks are
// left in the repository. Each returns what it did, for --json, and the
// line to print ("" for nothing worth saying).

// Git runs git in the project's repository (the one git runner; the
// installers in internal/install take it as a parameter).
func Git(p *workspace.Workspace) install.Git {
	return func(args ...string) ([]byte, error) {
		return gitfacts.Git{Repo: p.Repo}.Run(context.Background(), args...)
	}
}

// LedgerSample is a ledger path relative to the root, for git check-attr
// ("" for a ledger directory outside the repository).
func LedgerSample(p *workspace.Workspace) string {
	s := p.Rel(filepath.Join(p.LedgerDir, "CONTINUITY_x.md"))
	if filepath.IsAbs(s) {
		return ""
	}
	return s
}

// editFile applies edit to the file at path through safefile (atomic,
// locked), writing only when edit changes it; a missing file reads as
// empty. removeEmpty deletes a file edit leaves empty.
func editFile(p *workspace.Workspace, path string, opts safefile.Options, removeEmpty bool, edit func(old []byte) ([]byte, bool, error)) (changed bool, err error) {
	empty := false
	err = safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		out, ch, err := edit(old)
		if err != nil || !ch {
			if err == nil {
				err = safefile.ErrNoChange
			}
			return nil, err
		}
		changed, empty = true, len(out) == 0
		return out, nil
	})
	if err == nil && changed && empty && removeEmpty {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changed, fmt.Errorf("remove the empty %s: %w", p.Rel(path), err)
		}
	}
	return changed, err
}

// registerMergeDriver adds the .gitattributes line (rewriting one for a
// former ledger directory) and defines the driver in the repository's git
// config, run as prog; with a git that passes branch names (2.44 and later)
// the driver gets them for its conflict markers. Outside a git repository,
// or for a ledger directory .gitattributes cannot name, it does nothing.
func registerMergeDriver(p *workspace.Workspace, prog string) (action, msg string, err error) {
	line, ok := install.AttributesLine(p.Rel(p.LedgerDir))
	if p.Repo.Root == "" || !ok {
		return "none", "", nil
	}
	attrs, err := editFile(p, filepath.Join(p.Root, ".gitattributes"), p.WriteOptions(), false, func(old []byte) ([]byte, bool, error) {
		out, ch := install.AddAttributes(old, line)
		return out, ch, nil
	})
	if err != nil {
		return "", "", fmt.Errorf("register the ledger merge driver in .gitattributes: %w", err)
	}
	git := Git(p)
	version, _ := git("version")
	cfg, err := install.AddMergeDriver(git, install.DriverCommand(prog, install.Labels(string(version))))
	if err != nil {
		return "", "", fmt.Errorf("register the ledger merge driver in git config: %w", err)
	}
	if !attrs && !cfg {
		return "unchanged", "", nil
	}
	return "registered", fmt.Sprintf("registered the ledger merge driver (.gitattributes, git config merge.%s)", install.MergeDriver), nil
}

// mergeDriverSaid is the memo slot that records that a hook told the
// person the merge driver could not be set up (said once a clone).
const mergeDriverSaid = "merge-driver-refused"

// EnsureMergeDriver sets the ledger merge driver up in a clone whose
// committed .gitattributes sends ledgers to it but whose git config does
// not define it (a teammate's fresh clone: git config is never committed),
// so the first hook that runs there makes concurrent ledger edits merge.
// It writes the repository's local git config only, and the command it
// writes is always this very binary's absolute path: nothing the
// repository holds chooses the program (its .gitattributes only names the
// driver). Nothing to do costs two small file reads and runs no git. said
// is a line for the person when git refused the setup, once a clone.
func EnsureMergeDriver(p *workspace.Workspace) (set bool, said string) {
	sample := LedgerSample(p)
	if p.Repo.Root == "" || sample == "" {
		return false, ""
	}
	attrs, err := safefile.Read(filepath.Join(p.Root, ".gitattributes"), safefile.Options{MaxSize: MaxSettings})
	if err != nil || len(install.AttributesStatus(attrs)) == 0 {
		return false, ""
	}
	cfg, _ := safefile.Read(filepath.Join(p.Repo.CommonDir, "config"), safefile.Options{MaxSize: MaxSettings})
	if bytes.Contains(cfg, []byte(`[merge "`+install.MergeDriver+`"]`)) {
		return false, ""
	}
	git := Git(p)
	attr, driver, err := install.MergeDriverStatus(git, sample)
	if err != nil || attr != install.MergeDriver || driver != "" {
		return false, ""
	}
	self := selfPath()
	if self == "" {
		return false, ""
	}
	version, _ := git("version")
	if _, err = install.AddMergeDriver(git, install.DriverCommand(self, install.Labels(string(version)))); err == nil {
		return true, ""
	}
	if _, _, merr := p.Local.Memo(mergeDriverSaid); merr == nil {
		return false, ""
	}
	_ = p.Local.SetMemo(mergeDriverSaid, []byte(firstLine(err)+"\n"))
	return false, fmt.Sprintf("ledgers merge as plain text in this clone: git config refused the merge driver (%s); run `continuity init` here to set it up", firstLine(err))
}

// unregisterMergeDriver removes what registerMergeDriver added: every
// .gitattributes line of its form (the file too when nothing else is left)
// and the git config section.
func unregisterMergeDriver(p *workspace.Workspace) (action, msg string, err error) {
	if p.Repo.Root == "" {
		return "none", "", nil
	}
	attrs, err := editFile(p, filepath.Join(p.Root, ".gitattributes"), p.WriteOptions(), true, func(old []byte) ([]byte, bool, error) {
		out, ch := install.RemoveAttributes(old)
		return out, ch, nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("remove the ledger merge driver from .gitattributes: %w", err)
	}
	cfg, err := install.RemoveMergeDriver(Git(p))
	if err != nil {
		return "", "", fmt.Errorf("remove the ledger merge driver from git config: %w", err)
	}
	if !attrs && !cfg {
		return "none", "", nil
	}
	return "removed", "removed the ledger merge driver (.gitattributes line, git config)", nil
}

// hookOptions are the safefile options for the git hook at path. Hooks may
// lie outside the working tree (a linked worktree's hooks are in the main
// repository's git directory; core.hooksPath can point anywhere), and
// there a symlinked hook is the user's own setup, followed. A hooks
// directory in the working tree outside the git directory (husky's .husky)
// is committed content: a hook there that is a symlink to a file outside
// the tree is refused (Root), not followed.
func hookOptions(p *workspace.Workspace, path string) safefile.Options {
	o := safefile.Options{LockDir: p.Local.LockDir()}
	dir := filepath.Dir(path)
	if under(p.Root, dir) && !under(p.Repo.GitDir, dir) && !under(p.Repo.CommonDir, dir) {
		o.Root = p.Root
	}
	return o
}

// under reports whether path (as written, symlinks not followed) is dir or
// lies inside it, dir taken as written or resolved.
func under(dir, path string) bool {
	if dir == "" {
		return false
	}
	in := func(d string) bool {
		rel, err := filepath.Rel(d, path)
		return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if in(dir) {
		return true
	}
	r, err := filepath.EvalSymlinks(dir)
	return err == nil && r != dir && in(r)
}

// installPreCommit adds the scan block to the repository's pre-commit hook
// (see install.AddPreCommit) and makes the hook executable.
func installPreCommit(p *workspace.Workspace, prog string) (action, msg string, err error) {
	if p.Repo.Root == "" {
		return "", "", errors.New("pre-commit hook: not in a git repository")
	}
	path, err := install.PreCommitPath(Git(p), p.Root)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	var outcome install.PreCommitOutcome
	_, err = editFile(p, path, hookOptions(p, path), false, func(old []byte) ([]byte, bool, error) {
		out, o, err := install.AddPreCommit(old, prog)
		outcome = o
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return out, o != install.PreCommitUnchanged && o != install.PreCommitRefused, nil
	})
	if err != nil {
		return "", "", err
	}
	if outcome == install.PreCommitRefused {
		return "refused", fmt.Sprintf("%s is not a shell script continuity can extend safely; add this to it:\n  %s scan --staged || exit 1", path, prog), nil
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o111 == 0 {
		if err := os.Chmod(path, st.Mode().Perm()|0o111); err != nil {
			return "", "", fmt.Errorf("make %s executable: %w", path, err)
		}
	}
	switch outcome {
	case install.PreCommitCreated:
		return "installed", "installed the pre-commit hook " + path + " (continuity scan --staged)", nil
	case install.PreCommitUpdated:
		return "updated", "updated the pre-commit hook " + path, nil
	case install.PreCommitAppended:
		return "installed", "added continuity's secret scan to the existing pre-commit hook " + path, nil
	}
	return "unchanged", "pre-commit hook already installed in " + path, nil
}

// removePreCommit takes the scan block out of the pre-commit hook, and the
// hook itself when nothing but the block and its "#!/bin/sh" is left.
func removePreCommit(p *workspace.Workspace) (action, msg string, err error) {
	if p.Repo.Root == "" {
		return "none", "", nil
	}
	path, err := install.PreCommitPath(Git(p), p.Root)
	if err != nil {
		return "none", "", nil // git cannot say where hooks live: nothing was installed there
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "none", "", nil
	}
	empty := false
	changed, err := editFile(p, path, hookOptions(p, path), false, func(old []byte) ([]byte, bool, error) {
		out, ch, e, err := install.RemovePreCommit(old)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		empty = e
		return out, ch, nil
	})
	if err != nil || !changed {
		return "none", "", err
	}
	if empty {
		if err := os.Remove(path); err != nil {
			return "", "", fmt.Errorf("remove %s: %w", path, err)
		}
		return "removed", "removed the pre-commit hook " + path, nil
	}
	return "removed", "removed continuity's secret scan from the pre-commit hook " + path, nil
}
