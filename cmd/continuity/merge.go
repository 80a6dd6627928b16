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

type mergeLedgerOptions struct {
	Base, Ours, Theirs, Path string
	// Labels name the sides in conflict markers (git 2.44 and later pass
	// the branches as %S, %X, %Y); "" or an unexpanded placeholder gives
	// base, ours, theirs.
	BaseLabel, OursLabel, TheirsLabel string
}

func newMergeLedgerCmd(a *app) *cobra.Command {
	var o mergeLedgerOptions
	c := &cobra.Command{
		Use:   "merge-ledger BASE OURS THEIRS PATH",
		Short: "Git merge driver for ledgers (registered by init): merges them field by field",
		Long: `A git merge driver, run by git as "continuity merge-ledger %O %A %B %P" for the files
.gitattributes marks merge=continuity-ledger (continuity init registers both). It merges the
ledger's front matter field by field (lists as unions, decisions by their text, updated as the
later time) and its body line by line, writes the result to OURS, and exits 0 when clean, 1
when conflict markers were left. A side that is not a valid ledger falls back to git's own
line merge (git merge-file). With git 2.44 and later, init also passes the branch names
(--ours-label %X --theirs-label %Y --base-label %S), and the conflict markers name them.`,
		Args: exactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Base, o.Ours, o.Theirs, o.Path = args[0], args[1], args[2], args[3]
			return runMergeLedger(a, o)
		},
	}
	c.Flags().StringVar(&o.BaseLabel, "base-label", "", "the base's name in conflict markers (git's %S)")
	c.Flags().StringVar(&o.OursLabel, "ours-label", "", "our side's name in conflict markers (git's %X)")
	c.Flags().StringVar(&o.TheirsLabel, "theirs-label", "", "their side's name in conflict markers (git's %Y)")
	return c
}

// mergeLabel is a conflict marker's label: given, else def. An older git
// passes an unknown placeholder through unexpanded ("%X"), which counts
// as not given.
func mergeLabel(given, def string) string {
	given = strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(given))
	if given == "" || len(given) == 2 && given[0] == '%' {
		return def
	}
	return given
}

// labelMarkers names the sides in the conflict markers ledger.Merge wrote
// ("<<<<<<< ours", ">>>>>>> theirs", each a whole line).
func labelMarkers(merged []byte, ours, theirs string) []byte {
	if ours == "ours" && theirs == "theirs" {
		return merged
	}
	lines := strings.SplitAfter(string(merged), "\n")
	for i, l := range lines {
		body, eol := strings.TrimRight(l, "\r\n"), l[len(strings.TrimRight(l, "\r\n")):]
		switch body {
		case "<<<<<<< ours":
			lines[i] = "<<<<<<< " + ours + eol
		case ">>>>>>> theirs":
			lines[i] = ">>>>>>> " + theirs + eol
		}
	}
	return []byte(strings.Join(lines, ""))
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
	if conflicts > 0 {
		merged = labelMarkers(merged, mergeLabel(o.OursLabel, "ours"), mergeLabel(o.TheirsLabel, "theirs"))
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
		"merge-file", "-p", "-L", mergeLabel(o.OursLabel, "ours"), "-L", mergeLabel(o.BaseLabel, "base"), "-L", mergeLabel(o.TheirsLabel, "theirs"),
		abs(o.Ours), abs(o.Base), abs(o.Theirs))
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
