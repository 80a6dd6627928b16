package travel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/gitfacts"
)

// Own is the prefix of this clone's refs: Own + machine + "/" + stream.
const Own = "refs/continuity/"

// Fetched is the prefix of what fetches bring: Fetched + remote + "/" +
// machine + "/" + stream.
const Fetched = "refs/continuity-fetched/"

// The files of a snapshot's tree.
const (
	metaFile    = "meta.json"
	handoffFile = "handoff.md"
	ledgerFile  = "ledger.md"
	carryFile   = "carry/carry.json"
	carryFiles  = "carry/files/"
)

// Caps on what is read back from a ref (a hostile remote's blob could be
// any size).
const (
	maxMeta    = 16 << 10
	maxText    = 1 << 20 // a handoff or a ledger
	maxEntries = 2000    // refs considered in one listing
)

// Meta is what a snapshot says of itself (meta.json).
type Meta struct {
	Machine string    `json:"machine"`          // the machine's name for people ("laptop")
	Stream  string    `json:"stream"`           // the work stream
	Branch  string    `json:"branch,omitempty"` // the worktree's branch when it was taken
	Commit  string    `json:"commit,omitempty"` // its HEAD commit
	Handoff string    `json:"handoff,omitempty"`
	Event   string    `json:"event,omitempty"` // session-end, pre-compact, manual, sync
	Written time.Time `json:"written"`
}

// Snapshot is what one record puts on a stream's ref.
type Snapshot struct {
	Meta    Meta
	Handoff []byte // the handoff, as written (redacted)
	Ledger  []byte // the ledger (redacted)
	Carry   *Carry // the uncommitted work; nil: none
}

// Repo is where the refs are: a worktree of the repository, git run
// through gitfacts (no prompt, no environment pointing elsewhere).
type Repo struct {
	Git gitfacts.Git
	// Scratch is a private directory for the temporary index and files
	// of a record (local state); it must exist.
	Scratch string
}

// validName is a machine's or a stream's ref component: letters,
// digits, '-', '_', '.', never starting with '.', never ".lock" at the end.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$`)

// ValidName reports whether s can be a machine's or a stream's component
// of a ref.
func ValidName(s string) bool {
	return validName.MatchString(s) && !strings.Contains(s, "..") && !strings.HasSuffix(s, ".lock") && !strings.HasSuffix(s, ".")
}

// RefOf is the ref of machine's snapshots of stream.
func RefOf(machine, stream string) string { return Own + machine + "/" + stream }

// Record puts s on machine's ref of its stream, as a new commit whose
// parent is the ref's last one, and returns it. The ref
// moves only from the value read (update-ref's old-value check): a
// concurrent record by another worktree of the same clone makes this one
// read again and chain after it.
func (r Repo) Record(ctx context.Context, machine string, s Snapshot) (string, error) {
	if !ValidName(machine) || !ValidName(s.Meta.Stream) {
		return "", fmt.Errorf("record: %q/%q is no ref name", machine, s.Meta.Stream)
	}
	ref := RefOf(machine, s.Meta.Stream)
	tree, err := r.writeTree(ctx, s)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("continuity: %s from %s\n\n%s %s\n", s.Meta.Stream, s.Meta.Machine, s.Meta.Event, s.Meta.Handoff)
	for try := 0; ; try++ {
		parent, err := r.head(ctx, ref)
		if err != nil {
			return "", err
		}
		args := []string{"commit-tree", tree}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		out, err := r.Git.RunInput(ctx, []byte(msg), append(args, "-F", "-")...)
		if err != nil && strings.Contains(err.Error(), "identity") || err != nil && strings.Contains(err.Error(), "tell me who you are") {
			// No user.name or user.email: the machine signs instead.
			g := r.Git
			g.Env = append(g.Env[:len(g.Env):len(g.Env)], "GIT_AUTHOR_NAME="+s.Meta.Machine, "GIT_COMMITTER_NAME="+s.Meta.Machine,
				"GIT_AUTHOR_EMAIL=continuity@"+machine+".invalid", "GIT_COMMITTER_EMAIL=continuity@"+machine+".invalid")
			out, err = g.RunInput(ctx, []byte(msg), append(args, "-F", "-")...)
		}
		if err != nil {
			return "", fmt.Errorf("record %s: %w", ref, err)
		}
		commit := strings.TrimSpace(string(out))
		old := parent
		if old == "" {
			old = strings.Repeat("0", len(commit))
		}
		_, err = r.Git.Run(ctx, "update-ref", "-m", "continuity: record", ref, commit, old)
		if err == nil {
			return commit, nil
		}
		if try == 4 || ctx.Err() != nil {
			return "", fmt.Errorf("record %s: %w", ref, err)
		}
		// Another worktree of this clone moved the ref: chain after it.
	}
}

// head is ref's commit ("" when it does not exist): from the ref files
// when they can say, else from git.
func (r Repo) head(ctx context.Context, ref string) (string, error) {
	if sha, ok := gitfacts.RefValue(r.Git.Repo, ref); ok {
		return sha, nil
	}
	out, err := r.Git.Run(ctx, "for-each-ref", "--format=%(objectname)", ref)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// blob is one file of a snapshot's tree.
type blob struct {
	path string
	mode string
	data []byte
}

// writeTree writes s's files as blobs and its tree, through a temporary
// index of its own, and returns the tree.
func (r Repo) writeTree(ctx context.Context, s Snapshot) (string, error) {
	meta, err := json.MarshalIndent(s.Meta, "", "  ")
	if err != nil {
		return "", err
	}
	blobs := []blob{{path: metaFile, mode: "100644", data: append(meta, '\n')}}
	if s.Handoff != nil {
		blobs = append(blobs, blob{path: handoffFile, mode: "100644", data: s.Handoff})
	}
	if s.Ledger != nil {
		blobs = append(blobs, blob{path: ledgerFile, mode: "100644", data: s.Ledger})
	}
	if c := s.Carry; c != nil {
		manifest, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return "", err
		}
		blobs = append(blobs, blob{path: carryFile, mode: "100644", data: append(manifest, '\n')})
		for _, f := range c.Files {
			blobs = append(blobs, blob{path: carryFiles + f.Path, mode: f.Mode, data: c.data[f.Path]})
		}
	}
	dir, err := os.MkdirTemp(r.Scratch, "record-")
	if err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	defer os.RemoveAll(dir)
	// One hash-object for every blob: the bytes go through files of our
	// own (the very bytes checked and redacted, not the worktree's, which
	// may have changed since).
	var paths bytes.Buffer
	for i, b := range blobs {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, b.data, 0o600); err != nil {
			return "", fmt.Errorf("record: %w", err)
		}
		paths.WriteString(p + "\n")
	}
	out, err := r.Git.RunInput(ctx, paths.Bytes(), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	oids := strings.Fields(string(out))
	if len(oids) != len(blobs) {
		return "", fmt.Errorf("record: git hash-object gave %d objects for %d files", len(oids), len(blobs))
	}
	var info bytes.Buffer
	for i, b := range blobs {
		fmt.Fprintf(&info, "%s %s\t%s\x00", b.mode, oids[i], b.path)
	}
	g := r.Git
	g.Index = filepath.Join(dir, "index")
	if _, err := g.RunInput(ctx, info.Bytes(), "update-index", "--add", "-z", "--index-info"); err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	out, err = g.Run(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Entry is one machine's ref of one stream, as List finds it.
type Entry struct {
	Ref     string    `json:"ref"`
	Commit  string    `json:"commit"`
	Remote  string    `json:"remote,omitempty"` // "" for this clone's own refs
	Machine string    `json:"machine"`          // the ref's machine component ("laptop-3f9a1c")
	Stream  string    `json:"stream"`
	Author  string    `json:"author"` // git's: the commit's author
	When    time.Time `json:"when"`   // the commit's date
}

// Host is the machine's name for people: its component without the
// clone's suffix ("laptop").
func (e Entry) Host() string { return HostOf(e.Machine) }

var cloneSuffix = regexp.MustCompile(`-[0-9a-f]{6}$`)

// HostOf is a machine component without the clone's suffix.
func HostOf(machine string) string {
	if h := cloneSuffix.ReplaceAllString(machine, ""); h != "" {
		return h
	}
	return machine
}

// List returns every snapshot ref, this clone's and fetched ones, newest
// first; a stream other than "" keeps that stream's. A fetched copy of
// one of this clone's own refs (own) is left out: the ref itself is newer.
func (r Repo) List(ctx context.Context, stream, own string) ([]Entry, error) {
	out, err := r.Git.Run(ctx, "for-each-ref", "--count="+strconv.Itoa(maxEntries),
		"--format=%(refname)%00%(objectname)%00%(authorname)%00%(committerdate:unix)", Own, Fetched)
	var entries []Entry
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 4 {
			continue
		}
		e := Entry{Ref: f[0], Commit: f[1], Author: f[2]}
		var rest []string
		switch {
		case strings.HasPrefix(e.Ref, Own):
			rest = strings.Split(strings.TrimPrefix(e.Ref, Own), "/")
		case strings.HasPrefix(e.Ref, Fetched):
			parts := strings.Split(strings.TrimPrefix(e.Ref, Fetched), "/")
			if len(parts) != 3 {
				continue
			}
			e.Remote, rest = parts[0], parts[1:]
		}
		if len(rest) != 2 || !ValidName(rest[0]) || !ValidName(rest[1]) {
			continue // not a ref of this layout: passed over
		}
		e.Machine, e.Stream = rest[0], rest[1]
		if stream != "" && e.Stream != stream || e.Remote != "" && e.Machine == own {
			continue
		}
		if sec, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			e.When = time.Unix(sec, 0).UTC()
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].When.After(entries[j].When) })
	return entries, err
}

// Stored is a snapshot read back.
type Stored struct {
	Meta    Meta
	Handoff []byte
	Ledger  []byte
	Carry   *Carry
}

// Read reads the snapshot at commit: its meta, handoff, ledger and carry
// manifest (the carried files are read by Apply). A file over its cap is
// an error; a missing one is left empty.
func (r Repo) Read(ctx context.Context, commit string) (Stored, error) {
	var st Stored
	got, err := r.blobs(ctx, commit, map[string]int64{metaFile: maxMeta, handoffFile: maxText, ledgerFile: maxText, carryFile: maxManifest})
	if err != nil {
		return st, err
	}
	if b := got[metaFile]; b != nil {
		if err := json.Unmarshal(b, &st.Meta); err != nil {
			return st, fmt.Errorf("snapshot %s: meta.json: %w", short(commit), err)
		}
	}
	st.Handoff, st.Ledger = got[handoffFile], got[ledgerFile]
	if b := got[carryFile]; b != nil {
		var c Carry
		if err := json.Unmarshal(b, &c); err != nil {
			return st, fmt.Errorf("snapshot %s: carry.json: %w", short(commit), err)
		}
		st.Carry = &c
	}
	return st, nil
}

// blobs reads the files of commit's tree named in caps, each at most its
// cap: first their sizes (cat-file --batch-check), then the contents.
func (r Repo) blobs(ctx context.Context, commit string, caps map[string]int64) (map[string][]byte, error) {
	if !isHex(commit) {
		return nil, fmt.Errorf("snapshot %q: not a commit id", commit)
	}
	names := make([]string, 0, len(caps))
	for n := range caps {
		names = append(names, n)
	}
	sort.Strings(names)
	var q bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&q, "%s:%s\n", commit, n)
	}
	out, err := r.Git.RunInput(ctx, q.Bytes(), "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", short(commit), err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, fmt.Errorf("snapshot %s: git cat-file answered %d of %d", short(commit), len(lines), len(names))
	}
	var want []string
	var oids []string
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "blob" {
			continue // missing, or not a file
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		if size > caps[names[i]] {
			return nil, fmt.Errorf("snapshot %s: %s is %d bytes, over its cap of %d", short(commit), names[i], size, caps[names[i]])
		}
		want, oids = append(want, names[i]), append(oids, f[0])
	}
	got := map[string][]byte{}
	if len(oids) == 0 {
		return got, nil
	}
	out, err = r.Git.RunInput(ctx, []byte(strings.Join(oids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", short(commit), err)
	}
	for i := range want {
		head, rest, ok := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(head))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("snapshot %s: unreadable answer from git cat-file", short(commit))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size+1 > len(rest) {
			return nil, fmt.Errorf("snapshot %s: short answer from git cat-file", short(commit))
		}
		got[want[i]] = bytes.Clone(rest[:size])
		out = rest[size+1:]
	}
	return got, nil
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// ErrNoSnapshot reports that no snapshot matches.
var ErrNoSnapshot = errors.New("no snapshot")
