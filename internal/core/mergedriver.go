package core

// The git merge driver for ledgers (git runs "continuity merge-ledger %O %A
// %B %P"): the three versions merged field by field with ledger.Merge, the
// result written to OURS, git's own line merge for a side that is not a
// valid front matter ledger.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// MergeOptions are git's arguments to the driver.
type MergeOptions struct {
	Base, Ours, Theirs, Path string
	// Labels name the sides in conflict markers (git 2.44 and later pass
	// the branches as %S, %X, %Y); "" or an unexpanded placeholder gives
	// base, ours, theirs.
	BaseLabel, OursLabel, TheirsLabel string
	Dir                               string              // the working directory git runs the driver in
	Getenv                            func(string) string // the environment
	Now                               time.Time
}

// MergeResult says how the merge went.
type MergeResult struct {
	Conflicts int    // conflicts left as markers in OURS
	ByLine    string // why the sides were merged line by line ("" when merged by field)
}

// Merge merges BASE, OURS and THEIRS into OURS.
func Merge(o MergeOptions) (MergeResult, error) {
	var res MergeResult
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(o.Dir, p)
	}
	// A side that cannot be statted is reported by the reads below.
	if big, _ := oversized(abs(o.Base), abs(o.Ours), abs(o.Theirs)); big {
		var err error
		res.ByLine = fmt.Sprintf("a side is larger than %d MiB: both kept whole between conflict markers", MaxFieldMerge>>20)
		res.Conflicts, err = mergeWhole(o, abs(o.Base), abs(o.Ours), abs(o.Theirs))
		if err != nil {
			return res, fmt.Errorf("merge %s: %w", o.Path, err)
		}
		return res, nil
	}
	var srcs [3][]byte
	for i, p := range []string{o.Base, o.Ours, o.Theirs} {
		b, err := os.ReadFile(abs(p))
		if errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("merge %s: %s: no such file", o.Path, p)
		}
		if err != nil {
			return res, fmt.Errorf("merge %s: %w", o.Path, err)
		}
		srcs[i] = b
	}
	p, err := workspace.OpenWith(o.Dir, o.Getenv)
	if err != nil {
		return res, fmt.Errorf("merge %s: %w", o.Path, err)
	}
	merged, conflicts, err := ledger.Merge(srcs[0], srcs[1], srcs[2], o.Now)
	if err != nil {
		// Not a ledger we can merge by field: git's line merge, so the user
		// still gets ordinary conflict markers and nothing is lost.
		res.ByLine, _, _ = strings.Cut(err.Error(), "\n")
		merged, conflicts, err = mergeLines(o, abs)
		if err != nil {
			return res, fmt.Errorf("merge %s: %w", o.Path, err)
		}
	} else if conflicts > 0 {
		merged = labelMarkers(merged, mergeLabel(o.OursLabel, "ours"), mergeLabel(o.TheirsLabel, "theirs"))
	}
	if err := writeMerged(p, abs(o.Ours), merged); err != nil {
		return res, fmt.Errorf("merge %s: %w", o.Path, err)
	}
	res.Conflicts = conflicts
	return res, nil
}

// mergeLines merges the three versions line by line with git merge-file,
// conflict markers included.
func mergeLines(o MergeOptions, abs func(string) string) ([]byte, int, error) {
	out, err := gitfacts.Git{Repo: gitfacts.Repo{Root: o.Dir}}.Run(context.Background(),
		"merge-file", "-p", "-L", mergeLabel(o.OursLabel, "ours"), "-L", mergeLabel(o.BaseLabel, "base"), "-L", mergeLabel(o.TheirsLabel, "theirs"),
		abs(o.Ours), abs(o.Base), abs(o.Theirs))
	// merge-file exits with the number of conflicts (capped at 127), and
	// still prints the merge.
	n := gitfacts.ExitCode(err)
	if err != nil && (n <= 0 || n >= 128) {
		return nil, 0, err
	}
	return out, max(n, 0), nil
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

// writeMerged replaces git's temporary OURS file with the merge, atomically
// and keeping its mode. The file is git's, in the work tree or the git
// directory, so writes are confined to neither the ledger directory nor the
// work tree, only to an existing file.
func writeMerged(p *workspace.Workspace, path string, merged []byte) error {
	opts := p.Local.Options()
	opts.Root = ""
	return safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return merged, nil
	})
}
