package travel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
)

// The caps of a carry: the uncommitted work is a snapshot of a session's
// changes, not a backup of a tree.
const (
	MaxCarryFile  = 1 << 20 // a file over this is left out
	MaxCarryTotal = 4 << 20 // the files past this total are left out
	MaxCarryFiles = 500     // the files past this count are left out
	maxManifest   = 256 << 10
)

// Carry is the uncommitted work of a worktree: the files that differ from
// its HEAD (changed, added, untracked but not ignored), those deleted, and
// those left out and why.
type Carry struct {
	Base    string        `json:"base"` // the HEAD commit the changes are from
	Files   []CarriedFile `json:"files,omitempty"`
	Deleted []string      `json:"deleted,omitempty"`
	Skipped []Skipped     `json:"skipped,omitempty"`
	data    map[string][]byte
}

// CarriedFile is one file of a carry.
type CarriedFile struct {
	Path     string `json:"path"` // relative to the root, forward slashes
	Mode     string `json:"mode"` // 100644 or 100755
	Redacted bool   `json:"redacted,omitempty"`
}

// Skipped is a file a carry left out.
type Skipped struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// BuildCarry takes the uncommitted work of the worktree: every path git
// status lists (untracked ones file by file, ignored ones never), each
// file's bytes through redact (a binary file with a secret is left out,
// never altered), within the caps. Paths under one of the prefixes in
// leave ("dir/") are left out without a word (continuity's own handoffs:
// the snapshot holds the one that matters). It returns nil when the
// worktree has no uncommitted change.
func (r Repo) BuildCarry(ctx context.Context, redact func([]byte) ([]byte, bool), leave ...string) (*Carry, error) {
	root := r.Git.Repo.Root
	base := gitfacts.FullCommit(r.Git.Repo)
	if base == "" {
		head, err := r.Git.Run(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
		if err != nil {
			return nil, fmt.Errorf("carry: no commit to take the changes from: %w", err)
		}
		base = strings.TrimSpace(string(head))
	}
	out, err := r.Git.Run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, fmt.Errorf("carry: %w", err)
	}
	c := &Carry{Base: base, data: map[string][]byte{}}
	total := 0
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) < 4 || f[2] != ' ' {
			continue
		}
		rel := string(f[3:])
		if under(rel, leave) {
			continue
		}
		if !safeRel(rel) {
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: "a path continuity does not carry"})
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Deleted = append(c.Deleted, rel)
			continue
		case err != nil:
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: err.Error()})
			continue
		case !fi.Mode().IsRegular():
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: "not a regular file"})
			continue
		case fi.Size() > MaxCarryFile:
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: fmt.Sprintf("%d bytes, over the %d of a carried file", fi.Size(), MaxCarryFile)})
			continue
		case len(c.Files) >= MaxCarryFiles:
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: fmt.Sprintf("over the %d files a carry holds", MaxCarryFiles)})
			continue
		case total+int(fi.Size()) > MaxCarryTotal:
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: fmt.Sprintf("over the %d bytes a carry holds", MaxCarryTotal)})
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || len(data) > MaxCarryFile {
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: "could not be read whole"})
			continue
		}
		clean, changed := redact(data)
		if changed && bytes.IndexByte(data, 0) >= 0 {
			c.Skipped = append(c.Skipped, Skipped{Path: rel, Why: "a binary file holding what looks like a secret"})
			continue
		}
		mode := "100644"
		if fi.Mode().Perm()&0o111 != 0 {
			mode = "100755"
		}
		c.Files = append(c.Files, CarriedFile{Path: rel, Mode: mode, Redacted: changed})
		c.data[rel] = clean
		total += len(clean)
	}
	if len(c.Files) == 0 && len(c.Deleted) == 0 && len(c.Skipped) == 0 {
		return nil, nil
	}
	return c, nil
}

func under(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// safeRel reports a path a carry may hold and write back: relative,
// forward slashes, no "." or ".." component, nothing in a .git directory.
func safeRel(rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || strings.ContainsRune(rel, 0) || len(rel) > 4096 {
		return false
	}
	if len(rel) >= 2 && rel[1] == ':' {
		return false // a drive letter
	}
	for _, part := range strings.Split(rel, "/") {
		switch {
		case part == "" || part == "." || part == "..":
			return false
		case strings.EqualFold(part, ".git") || strings.EqualFold(strings.TrimRight(part, ". "), ".git"):
			return false
		}
	}
	return path.Clean(rel) == rel
}

// Applied is what Apply did.
type Applied struct {
	Written  []string  `json:"written"`
	Deleted  []string  `json:"deleted,omitempty"`
	Redacted []string  `json:"redacted,omitempty"` // written with secrets replaced
	Skipped  []Skipped `json:"skipped,omitempty"`  // left out when the snapshot was taken
}

// ErrDirty, ErrNoBase and ErrOtherBase are why Apply refuses.
var (
	ErrDirty     = errors.New("the worktree has uncommitted changes")
	ErrNoBase    = errors.New("the snapshot's base commit is not in this repository")
	ErrOtherBase = errors.New("the worktree is not at the snapshot's base commit")
)

// Apply writes the carry of the snapshot at commit into the worktree: each
// carried file byte for byte (as carried: redacted where it held a
// secret), each deleted one removed. It refuses a worktree with
// uncommitted changes, a base commit the repository lacks and a HEAD other
// than the base, and writes nothing then. Paths are checked again (the
// snapshot may come from anyone): none outside the worktree, none in a git
// directory, none through a symlink leading out; writes go through
// safefile.
func (r Repo) Apply(ctx context.Context, commit string, c *Carry, opts safefile.Options) (Applied, error) {
	var a Applied
	root := r.Git.Repo.Root
	if !isHex(c.Base) {
		return a, fmt.Errorf("%w: the snapshot names %q", ErrNoBase, c.Base)
	}
	if _, err := r.Git.Run(ctx, "cat-file", "-e", c.Base+"^{commit}"); err != nil {
		return a, fmt.Errorf("%w: %s (fetch the branch it was taken on, then try again)", ErrNoBase, short(c.Base))
	}
	out, err := r.Git.Run(ctx, "status", "--porcelain=v1", "--untracked-files=normal", "--ignore-submodules=all")
	if err != nil {
		return a, err
	}
	if n := len(bytes.Split(bytes.TrimSpace(out), []byte("\n"))); len(bytes.TrimSpace(out)) > 0 {
		return a, fmt.Errorf("%w (%d paths): commit or stash them first; nothing was written", ErrDirty, n)
	}
	head, err := r.Git.Run(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil || strings.TrimSpace(string(head)) != c.Base {
		return a, fmt.Errorf("%w: it is at %s, the snapshot at %s (`git switch --detach %s`, or `git switch -c NAME %s`, then try again); nothing was written",
			ErrOtherBase, short(strings.TrimSpace(string(head))), short(c.Base), short(c.Base), short(c.Base))
	}
	caps := map[string]int64{}
	for _, f := range c.Files {
		if !safeRel(f.Path) || f.Mode != "100644" && f.Mode != "100755" {
			return a, fmt.Errorf("snapshot %s: refusing the path %q", short(commit), f.Path)
		}
		caps[carryFiles+f.Path] = MaxCarryFile
	}
	for _, d := range c.Deleted {
		if !safeRel(d) {
			return a, fmt.Errorf("snapshot %s: refusing the path %q", short(commit), d)
		}
	}
	if len(c.Files) > MaxCarryFiles || len(c.Deleted) > 10*MaxCarryFiles {
		return a, fmt.Errorf("snapshot %s: more files than a carry holds", short(commit))
	}
	data, err := r.blobs(ctx, commit, caps)
	if err != nil {
		return a, err
	}
	for _, f := range c.Files {
		if _, ok := data[carryFiles+f.Path]; !ok {
			return a, fmt.Errorf("snapshot %s: %s is listed but not carried", short(commit), f.Path)
		}
	}
	for _, f := range c.Files {
		target := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := safefile.MkdirAll(filepath.Dir(target), root, 0o755); err != nil {
			return a, fmt.Errorf("%s: %w (written so far: %d)", f.Path, err, len(a.Written))
		}
		b := data[carryFiles+f.Path]
		err := safefile.Update(target, opts, func([]byte) ([]byte, error) { return b, nil })
		if err != nil {
			return a, fmt.Errorf("%s: %w (written so far: %d)", f.Path, err, len(a.Written))
		}
		if fi, err := os.Stat(target); err == nil {
			perm := fi.Mode().Perm()
			if f.Mode == "100755" {
				perm |= perm & 0o444 >> 2 // executable where readable
			} else {
				perm &^= 0o111
			}
			if perm != fi.Mode().Perm() {
				_ = os.Chmod(target, perm)
			}
		}
		a.Written = append(a.Written, f.Path)
		if f.Redacted {
			a.Redacted = append(a.Redacted, f.Path)
		}
	}
	for _, d := range c.Deleted {
		target := filepath.Join(root, filepath.FromSlash(d))
		if fi, err := os.Lstat(target); err != nil || !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if real, err := filepath.EvalSymlinks(filepath.Dir(target)); err != nil || !within(root, real) {
			continue
		}
		if err := os.Remove(target); err == nil {
			a.Deleted = append(a.Deleted, d)
		}
	}
	a.Skipped = c.Skipped
	return a, nil
}

// within reports whether path is root or under it (both resolved).
func within(root, p string) bool {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(r, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
