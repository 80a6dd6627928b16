package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

// mergeDriverName is the git merge driver init registers for ledgers.
const mergeDriverName = "continuity-ledger"

type mergeLedgerOptions struct {
	Base, Ours, Theirs, Path string
}

func newMergeLedgerCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "merge-ledger BASE OURS THEIRS PATH",
		Short: "Git merge driver for ledgers (registered by init): merges them field by field",
		Long: `A git merge driver, run by git as "continuity merge-ledger %O %A %B %P" for the files
.gitattributes marks merge=continuity-ledger (continuity init registers both). It merges the
ledger's front matter field by field (lists as unions, decisions by their text, updated as the
later time) and its body line by line, writes the result to OURS, and exits 0 when clean, 1
when conflict markers were left. A side that is not a valid ledger falls back to git's own
line merge (git merge-file).`,
		Args: exactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMergeLedger(a, mergeLedgerOptions{Base: args[0], Ours: args[1], Theirs: args[2], Path: args[3]})
		},
	}
}

func runMergeLedger(a *app, o mergeLedgerOptions) error {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(a.dir, p)
	}
	var srcs [3][]byte
	for i, p := range []string{o.Base, o.Ours, o.Theirs} {
		b, err := os.ReadFile(abs(p))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("merge %s: %s: no such file", o.Path, p)
		}
		if err != nil {
			return fmt.Errorf("merge %s: %w", o.Path, err)
		}
		srcs[i] = b
	}
	p, err := a.project()
	if err != nil {
		return fmt.Errorf("merge %s: %w", o.Path, err)
	}
	merged, conflicts, err := ledger.Merge(srcs[0], srcs[1], srcs[2], a.now())
	if err != nil {
		// Not a ledger we can merge by field: git's line merge, so the user
		// still gets ordinary conflict markers and nothing is lost.
		fmt.Fprintf(a.errw, "continuity: %s: merged line by line (%s)\n", o.Path, firstLine(err))
		return mergeLines(a, p, o, abs)
	}
	if err := writeMerged(p, abs(o.Ours), merged); err != nil {
		return fmt.Errorf("merge %s: %w", o.Path, err)
	}
	if conflicts > 0 {
		fmt.Fprintf(a.errw, "continuity: %s: merged with %s; resolve the markers\n", o.Path, plural(conflicts, "conflict"))
		return errSilent
	}
	fmt.Fprintf(a.errw, "continuity: %s: merged cleanly\n", o.Path)
	return nil
}

// mergeLines merges the three versions line by line with git merge-file
// and writes the result to OURS, conflict markers included.
func mergeLines(a *app, p *project.Project, o mergeLedgerOptions, abs func(string) string) error {
	out, err := gitfacts.Git{Repo: gitfacts.Repo{Root: a.dir}}.Run(context.Background(),
		"merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", abs(o.Ours), abs(o.Base), abs(o.Theirs))
	// merge-file exits with the number of conflicts (capped at 127), and
	// still prints the merge.
	n := gitfacts.ExitCode(err)
	if err != nil && (n <= 0 || n >= 128) {
		return fmt.Errorf("merge %s: %w", o.Path, err)
	}
	if err := writeMerged(p, abs(o.Ours), out); err != nil {
		return fmt.Errorf("merge %s: %w", o.Path, err)
	}
	if n > 0 {
		fmt.Fprintf(a.errw, "continuity: %s: %s left; resolve the markers\n", o.Path, plural(n, "conflict"))
		return errSilent
	}
	return nil
}

// writeMerged replaces git's temporary OURS file with the merge, atomically
// and keeping its mode. The file is git's, in the work tree or the git
// directory, so writes are confined to neither the ledger directory nor the
// work tree, only to an existing file.
func writeMerged(p *project.Project, path string, merged []byte) error {
	opts := p.StateOptions()
	opts.Root = ""
	return safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return merged, nil
	})
}

// Registration of the driver by init and its removal by uninstall.

// attributesLine is the .gitattributes line that sends ledgers to the
// driver; ok is false for a ledger directory outside the repository or with
// a name .gitattributes cannot hold unquoted.
func attributesLine(p *project.Project) (line string, ok bool) {
	dir := p.Rel(p.LedgerDir)
	if filepath.IsAbs(dir) || strings.ContainsAny(dir, " \t\"\\#") {
		return "", false
	}
	return dir + "/CONTINUITY_*.md merge=" + mergeDriverName, true
}

// registerMergeDriver adds the .gitattributes line (once, keeping the file's
// other lines) and the driver to the repository's local git config, run as
// prefix + " merge-ledger …". It does nothing outside a git repository.
func registerMergeDriver(a *app, p *project.Project, prefix string) error {
	if p.Repo.Root == "" {
		return nil
	}
	line, ok := attributesLine(p)
	if !ok {
		return nil
	}
	path := filepath.Join(p.Root, ".gitattributes")
	changed := false
	err := safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		for _, l := range strings.Split(string(old), "\n") {
			if strings.TrimSpace(strings.TrimSuffix(l, "\r")) == line {
				return nil, safefile.ErrNoChange
			}
		}
		out := append([]byte(nil), old...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		changed = true
		return append(out, line+"\n"...), nil
	})
	if err != nil {
		return fmt.Errorf("register the ledger merge driver in .gitattributes: %w", err)
	}
	driver := prefix + " merge-ledger %O %A %B %P"
	for _, kv := range [][2]string{{"name", "continuity ledger merge"}, {"driver", driver}} {
		if err := gitConfig(p, "merge."+mergeDriverName+"."+kv[0], kv[1]); err != nil {
			return err
		}
	}
	if changed {
		fmt.Fprintf(a.out, "registered the ledger merge driver (.gitattributes, git config merge.%s)\n", mergeDriverName)
	}
	return nil
}

// unregisterMergeDriver removes exactly what registerMergeDriver added: the
// .gitattributes line (and the file, if nothing else is left in it) and the
// git config section.
func unregisterMergeDriver(a *app, p *project.Project) error {
	if p.Repo.Root == "" {
		return nil
	}
	path := filepath.Join(p.Root, ".gitattributes")
	line, ok := attributesLine(p)
	removed, empty := false, false
	if _, err := os.Stat(path); err == nil && ok {
		err := safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
			var keep []string
			lines := strings.SplitAfter(string(old), "\n")
			for _, l := range lines {
				if strings.TrimSpace(strings.TrimSuffix(l, "\r\n")) == line {
					removed = true
					continue
				}
				keep = append(keep, l)
			}
			if !removed {
				return nil, safefile.ErrNoChange
			}
			out := strings.Join(keep, "")
			empty = out == ""
			return []byte(out), nil
		})
		if err != nil {
			return fmt.Errorf("remove the ledger merge driver from .gitattributes: %w", err)
		}
		if empty {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("remove the empty .gitattributes: %w", err)
			}
		}
	}
	_, err := gitfacts.Git{Repo: p.Repo}.Run(context.Background(), "config", "--local", "--remove-section", "merge."+mergeDriverName)
	hadConfig := err == nil // fails when the section is not there
	if removed || hadConfig {
		fmt.Fprintln(a.out, "removed the ledger merge driver (.gitattributes line, git config)")
	}
	return nil
}

func gitConfig(p *project.Project, key, value string) error {
	_, err := gitfacts.Git{Repo: p.Repo}.Run(context.Background(), "config", "--local", key, value)
	return err
}

// commandPrefix returns the command that runs this binary, from the hook
// command init registers ("continuity hook" gives "continuity").
func commandPrefix(hookCmd string) string {
	if p, ok := strings.CutSuffix(strings.TrimSpace(hookCmd), " hook"); ok && p != "" {
		return p
	}
	p, _ := strings.CutSuffix(hookCommand(), " hook")
	return p
}
