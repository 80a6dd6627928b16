package travel

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/testkit"
)

// run runs a command in dir and returns its output, failing the test on an error.
func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Kim", "GIT_AUTHOR_EMAIL=kim@example.com",
		"GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=kim@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// machines makes a bare repository with one commit and n clones of it,
// each with its own user, and returns the bare repository's path and the clones.
func machines(t testing.TB, n int) (string, []Repo) {
	t.Helper()
	base := testkit.TempDir(t)
	bare := filepath.Join(base, "origin.git")
	run(t, base, "git", "init", "-q", "--bare", "-b", "main", bare)
	seed := filepath.Join(base, "seed")
	run(t, base, "git", "init", "-q", "-b", "main", seed)
	if err := os.WriteFile(filepath.Join(seed, "app.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seed, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, seed, "git", "add", ".")
	run(t, seed, "git", "commit", "-q", "-m", "start")
	run(t, seed, "git", "push", "-q", bare, "main")
	var out []Repo
	for i := 0; i < n; i++ {
		dir := filepath.Join(base, "m"+string(rune('a'+i)))
		run(t, base, "git", "clone", "-q", "file://"+bare, dir)
		run(t, dir, "git", "config", "user.name", []string{"Kim", "Lee", "Ana"}[i%3])
		run(t, dir, "git", "config", "user.email", "m@example.com")
		out = append(out, open(t, dir))
	}
	return bare, out
}

func open(t testing.TB, dir string) Repo {
	t.Helper()
	r, err := gitfacts.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(r.GitDir, "continuity-scratch")
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	return Repo{Git: gitfacts.Git{Repo: r, Timeout: 20 * time.Second}, Scratch: scratch}
}

func noRedact(b []byte) ([]byte, bool) { return b, false }

func snapshot(stream, machine string, handoff string) Snapshot {
	return Snapshot{Meta: Meta{Machine: machine, Stream: stream, Branch: "main", Event: "session-end", Handoff: "h.md", Written: time.Now().UTC()},
		Handoff: []byte(handoff), Ledger: []byte("---\ngoal: g\n---\n")}
}

func TestRecordListRead(t *testing.T) {
	_, ms := machines(t, 1)
	r := open(t, ms[0].Git.Repo.Root)
	ctx := context.Background()
	c1, err := r.Record(ctx, "laptop-0a1b2c", snapshot("auth", "laptop", "first\n"))
	if err != nil || c1 == "" {
		t.Fatalf("record: %q %v", c1, err)
	}
	s := snapshot("auth", "laptop", "second\n")
	c2, err := r.Record(ctx, "laptop-0a1b2c", s)
	if err != nil {
		t.Fatal(err)
	}
	if parent := strings.TrimSpace(run(t, r.Git.Repo.Root, "git", "rev-parse", c2+"^")); parent != c1 {
		t.Errorf("the second record's parent is %s, want the first's %s", parent, c1)
	}
	// Once packed, the ref is still found and chained after.
	run(t, r.Git.Repo.Root, "git", "pack-refs", "--all")
	c3, err := r.Record(ctx, "laptop-0a1b2c", snapshot("auth", "laptop", "second\n"))
	if err != nil {
		t.Fatal(err)
	}
	if parent := strings.TrimSpace(run(t, r.Git.Repo.Root, "git", "rev-parse", c3+"^")); parent != c2 {
		t.Errorf("after pack-refs the parent is %s, want %s", parent, c2)
	}
	c2 = c3
	entries, err := r.List(ctx, "auth", "laptop-0a1b2c")
	if err != nil || len(entries) != 1 {
		t.Fatalf("list: %+v %v", entries, err)
	}
	e := entries[0]
	if e.Commit != c2 || e.Machine != "laptop-0a1b2c" || e.Host() != "laptop" || e.Author != "Kim" || e.Remote != "" {
		t.Errorf("entry %+v", e)
	}
	st, err := r.Read(ctx, e.Commit)
	if err != nil || string(st.Handoff) != "second\n" || st.Meta.Stream != "auth" || st.Carry != nil {
		t.Fatalf("read: %+v %v", st, err)
	}
	// The worktree, the index and HEAD were not touched.
	if status := run(t, r.Git.Repo.Root, "git", "status", "--porcelain"); status != "" {
		t.Errorf("the worktree changed: %q", status)
	}
	if branches := run(t, r.Git.Repo.Root, "git", "branch", "-a"); strings.Contains(branches, "continuity") {
		t.Errorf("a branch appeared: %s", branches)
	}
	run(t, r.Git.Repo.Root, "git", "fsck", "--strict", "--no-dangling")
}

func TestCarryByteForByte(t *testing.T) {
	_, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	write := func(root, rel string, data []byte, perm os.FileMode) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, perm); err != nil {
			t.Fatal(err)
		}
	}
	binary := []byte{0, 1, 2, 0xff, '\r', '\n', 'x'}
	write(a.Git.Repo.Root, "app.txt", []byte("one\ntwo, no newline at the end"), 0o644)
	write(a.Git.Repo.Root, "new/dir/tool.sh", []byte("#!/bin/sh\necho hi\r\n"), 0o755)
	write(a.Git.Repo.Root, "blob.bin", binary, 0o644)
	write(a.Git.Repo.Root, "debug.log", []byte("ignored\n"), 0o644)
	write(a.Git.Repo.Root, "big.txt", bytes.Repeat([]byte("x"), MaxCarryFile+1), 0o644)
	write(a.Git.Repo.Root, "secret.env", []byte("TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"), 0o644)
	run(t, a.Git.Repo.Root, "git", "rm", "-q", ".gitignore")
	write(a.Git.Repo.Root, ".gitignore", []byte("*.log\n"), 0o644) // deleted from the index, back as untracked
	redact := func(b []byte) ([]byte, bool) {
		out := bytes.ReplaceAll(b, []byte("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), []byte("[REDACTED:github-token]"))
		return out, !bytes.Equal(out, b)
	}
	c, err := a.BuildCarry(ctx, redact)
	if err != nil || c == nil {
		t.Fatalf("carry: %+v %v", c, err)
	}
	for _, f := range c.Files {
		if f.Path == "debug.log" {
			t.Error("an ignored file was carried")
		}
	}
	if len(c.Skipped) != 1 || c.Skipped[0].Path != "big.txt" {
		t.Errorf("skipped %+v, want big.txt alone", c.Skipped)
	}
	s := snapshot("auth", "laptop", "h\n")
	s.Carry = c
	if _, err := a.Record(ctx, "laptop-0a1b2c", s); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "laptop-0a1b2c"); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	entries, err := b.List(ctx, "auth", "desk-d4e5f6")
	if err != nil || len(entries) != 1 || entries[0].Remote != "origin" {
		t.Fatalf("list on the other machine: %+v %v", entries, err)
	}
	st, err := b.Read(ctx, entries[0].Commit)
	if err != nil || st.Carry == nil {
		t.Fatalf("read: %v", err)
	}
	opts := safefile.Options{LockDir: b.Scratch, Root: b.Git.Repo.Root, Avoid: []string{b.Git.Repo.GitDir}}
	// A dirty tree is refused, and nothing is written.
	write(b.Git.Repo.Root, "app.txt", []byte("local edit\n"), 0o644)
	if _, err := b.Apply(ctx, entries[0].Commit, st.Carry, opts); !errors.Is(err, ErrDirty) {
		t.Fatalf("apply onto a dirty tree: %v, want ErrDirty", err)
	}
	if _, err := os.Stat(filepath.Join(b.Git.Repo.Root, "blob.bin")); err == nil {
		t.Fatal("a refused apply wrote a file")
	}
	run(t, b.Git.Repo.Root, "git", "checkout", "-q", "--", "app.txt")
	applied, err := b.Apply(ctx, entries[0].Commit, st.Carry, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"app.txt", "new/dir/tool.sh", "blob.bin"} {
		want, _ := os.ReadFile(filepath.Join(a.Git.Repo.Root, rel))
		got, err := os.ReadFile(filepath.Join(b.Git.Repo.Root, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: got %q (%v), want %q", rel, got, err, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(b.Git.Repo.Root, "secret.env")); string(got) != "TOKEN=[REDACTED:github-token]\n" {
		t.Errorf("secret.env carried as %q", got)
	}
	if len(applied.Redacted) != 1 || applied.Redacted[0] != "secret.env" {
		t.Errorf("redacted %v", applied.Redacted)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(filepath.Join(b.Git.Repo.Root, "new/dir/tool.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("tool.sh lost its executable bit: %v %v", fi.Mode(), err)
		}
	}
	// The same status on both machines (.gitignore: deleted in the index
	// on one, in the worktree as it was on the other: git status differs
	// there only in the index, which a carry leaves alone).
	if _, err := os.Stat(filepath.Join(b.Git.Repo.Root, "debug.log")); err == nil {
		t.Error("an ignored file travelled")
	}
	// Once applied, the tree is dirty: applying again is refused.
	if _, err := b.Apply(ctx, entries[0].Commit, st.Carry, opts); !errors.Is(err, ErrDirty) {
		t.Errorf("second apply: %v, want ErrDirty", err)
	}
	run(t, b.Git.Repo.Root, "git", "fsck", "--strict", "--no-dangling")
}

func TestApplyRefusesOtherBaseAndMissingBase(t *testing.T) {
	_, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	// a commits locally (never pushed), then changes a file: the carry's
	// base is a commit b lacks.
	run(t, a.Git.Repo.Root, "git", "commit", "-q", "--allow-empty", "-m", "local only")
	if err := os.WriteFile(filepath.Join(a.Git.Repo.Root, "app.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := a.BuildCarry(ctx, noRedact)
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot("auth", "laptop", "h\n")
	s.Carry = c
	commit, err := a.Record(ctx, "laptop-0a1b2c", s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "laptop-0a1b2c"); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	opts := safefile.Options{LockDir: b.Scratch, Root: b.Git.Repo.Root}
	if _, err := b.Apply(ctx, commit, c, opts); !errors.Is(err, ErrNoBase) {
		t.Errorf("apply without the base: %v, want ErrNoBase", err)
	}
	// Now b has the base but stands elsewhere.
	run(t, a.Git.Repo.Root, "git", "push", "-q", "origin", "main")
	run(t, b.Git.Repo.Root, "git", "fetch", "-q", "origin")
	if _, err := b.Apply(ctx, commit, c, opts); !errors.Is(err, ErrOtherBase) || !strings.Contains(err.Error(), "git switch") {
		t.Errorf("apply on another base: %v, want ErrOtherBase saying what to do", err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.Git.Repo.Root, "app.txt")); string(got) != "one\n" {
		t.Errorf("a refused apply changed app.txt: %q", got)
	}
}

func TestApplyRefusesHostilePaths(t *testing.T) {
	_, ms := machines(t, 1)
	r := ms[0]
	ctx := context.Background()
	head := strings.TrimSpace(run(t, r.Git.Repo.Root, "git", "rev-parse", "HEAD"))
	for _, p := range []string{"../escape", ".git/hooks/pre-commit", "a/../../b", "/etc/passwd", "C:/x", "sub/.GIT/config", "a\\b"} {
		c := &Carry{Base: head, Files: []CarriedFile{{Path: p, Mode: "100644"}}}
		if _, err := r.Apply(ctx, head, c, safefile.Options{LockDir: r.Scratch, Root: r.Git.Repo.Root}); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("%q: %v, want a refusal", p, err)
		}
		c = &Carry{Base: head, Deleted: []string{p}}
		if _, err := r.Apply(ctx, head, c, safefile.Options{LockDir: r.Scratch, Root: r.Git.Repo.Root}); err == nil {
			t.Errorf("deleting %q was not refused", p)
		}
	}
}

func TestPushOnlyOwnRefs(t *testing.T) {
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	if _, err := a.Record(ctx, "laptop-0a1b2c", snapshot("auth", "laptop", "a\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "laptop-0a1b2c"); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Record(ctx, "desk-d4e5f6", snapshot("auth", "desk", "b\n")); err != nil {
		t.Fatal(err)
	}
	out, err := b.Push(ctx, "origin", "desk-d4e5f6")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "laptop") {
		t.Errorf("b's push named a's ref:\n%s", out)
	}
	refs := run(t, bare, "git", "for-each-ref", "--format=%(refname) %(authorname)")
	want := "refs/continuity/desk-d4e5f6/auth Lee\nrefs/continuity/laptop-0a1b2c/auth Kim\n"
	if !strings.Contains(refs, want) || strings.Contains(refs, Fetched) {
		t.Errorf("the remote's refs:\n%s\nwant\n%s", refs, want)
	}
	// Each machine sees the other's, newest first, attributed by git.
	if err := a.Fetch(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	entries, _ := a.List(ctx, "auth", "laptop-0a1b2c")
	if len(entries) != 2 {
		t.Fatalf("a lists %+v", entries)
	}
	var seen []string
	for _, e := range entries {
		seen = append(seen, e.Host()+"/"+e.Author+"/"+e.Remote)
	}
	if got := strings.Join(seen, " "); !strings.Contains(got, "desk/Lee/origin") || !strings.Contains(got, "laptop/Kim/") {
		t.Errorf("entries %s", got)
	}
	run(t, bare, "git", "fsck", "--strict", "--no-dangling")
}
