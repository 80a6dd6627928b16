package gitfacts

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// git runs real git in dir with a fixed identity and no user config.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with one commit on branch main.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "Ada Lovelace")
	write(t, filepath.Join(dir, "a.txt"), "a\n")
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// checkAgainstGit compares Find, Branch and Commit from dir with git rev-parse.
func checkAgainstGit(t *testing.T, dir, wantBranch string) Repo {
	t.Helper()
	r, err := Find(dir)
	if err != nil {
		t.Fatalf("Find(%s): %v", dir, err)
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	if want := git(t, dir, "rev-parse", "--show-toplevel"); r.Root != want {
		t.Errorf("Root = %q, git says %q", r.Root, want)
	}
	if want := abs(git(t, dir, "rev-parse", "--git-dir")); r.GitDir != want {
		t.Errorf("GitDir = %q, git says %q", r.GitDir, want)
	}
	if want := abs(git(t, dir, "rev-parse", "--git-common-dir")); r.CommonDir != want {
		t.Errorf("CommonDir = %q, git says %q", r.CommonDir, want)
	}
	if got := Branch(r); got != wantBranch {
		t.Errorf("Branch = %q, want %q", got, wantBranch)
	}
	full := git(t, dir, "rev-parse", "HEAD")
	if got := FullCommit(r); got != full {
		t.Errorf("FullCommit = %q, git says %q", got, full)
	}
	if got := Commit(r); got != full[:12] {
		t.Errorf("Commit = %q, want %q", got, full[:12])
	}
	return r
}

func TestFindBranchCommit(t *testing.T) {
	dir := newRepo(t)
	sub := filepath.Join(dir, "x", "y")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	t.Run("root", func(t *testing.T) { checkAgainstGit(t, dir, "main") })
	t.Run("subdirectory", func(t *testing.T) { checkAgainstGit(t, sub, "main") })

	t.Run("branch with slash", func(t *testing.T) {
		git(t, dir, "checkout", "-q", "-b", "feature/Auth-Refactor")
		defer git(t, dir, "checkout", "-q", "main")
		write(t, filepath.Join(dir, "b.txt"), "b\n")
		git(t, dir, "add", "b.txt")
		git(t, dir, "commit", "-q", "-m", "second")
		checkAgainstGit(t, sub, "feature/Auth-Refactor")
	})

	t.Run("packed refs", func(t *testing.T) {
		git(t, dir, "pack-refs", "--all")
		if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("loose ref still there after pack-refs: %v", err)
		}
		checkAgainstGit(t, dir, "main")
	})

	t.Run("detached", func(t *testing.T) {
		git(t, dir, "checkout", "-q", "--detach", "HEAD")
		defer git(t, dir, "checkout", "-q", "main")
		checkAgainstGit(t, dir, "")
	})
}

func TestWorktree(t *testing.T) {
	dir := newRepo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	git(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	write(t, filepath.Join(wt, "s.txt"), "s\n")
	git(t, wt, "add", "s.txt")
	git(t, wt, "commit", "-q", "-m", "side")

	r := checkAgainstGit(t, filepath.Join(wt), "side")
	if r.GitDir == r.CommonDir {
		t.Errorf("worktree GitDir == CommonDir == %q", r.GitDir)
	}
	// The main worktree still sees its own branch and commit.
	checkAgainstGit(t, dir, "main")

	// After packing, the worktree's branch resolves from the common packed-refs.
	git(t, dir, "pack-refs", "--all")
	checkAgainstGit(t, wt, "side")

	git(t, wt, "checkout", "-q", "--detach")
	checkAgainstGit(t, wt, "")
}

func TestUnbornBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "fresh")
	r, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := Branch(r); got != "fresh" {
		t.Errorf("Branch = %q, want fresh", got)
	}
	if got := Commit(r); got != "" {
		t.Errorf("Commit on unborn branch = %q, want empty", got)
	}
}

func TestFindNotRepo(t *testing.T) {
	dir := t.TempDir()
	// A stray .git entry without HEAD is not a repository.
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Find(dir)
	if !errors.Is(err, ErrNotRepo) {
		// TempDir may itself sit inside a repository on some machines.
		if err == nil {
			t.Skip("temp dir is inside a git repository")
		}
		t.Fatalf("Find = %v, want ErrNotRepo", err)
	}
}

func TestFindBadGitFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".git"), "not a gitdir line\n")
	if _, err := Find(dir); err == nil || errors.Is(err, ErrNotRepo) {
		t.Fatalf("Find with a bad .git file = %v, want a read error", err)
	}
}

func TestAuthorDirtyStatus(t *testing.T) {
	dir := newRepo(t)
	r, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got := Author(ctx, r); got != "Ada Lovelace" {
		t.Errorf("Author = %q", got)
	}

	n, err := Dirty(ctx, r)
	if err != nil || n != 0 {
		t.Fatalf("clean repo: Dirty = %d, %v", n, err)
	}

	write(t, filepath.Join(dir, "a.txt"), "changed\n")          // modified
	write(t, filepath.Join(dir, "new file.txt"), "n\n")         // untracked, with a space
	write(t, filepath.Join(dir, "newdir", "x.go"), "package x") // untracked directory
	write(t, filepath.Join(dir, "old.txt"), "o\n")
	git(t, dir, "add", "old.txt")
	git(t, dir, "commit", "-q", "-m", "old")
	git(t, dir, "mv", "old.txt", "renamed.txt") // staged rename

	paths, err := Status(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	want := []string{"a.txt", "new file.txt", "newdir/", "renamed.txt"}
	if !slices.Equal(paths, want) {
		t.Errorf("Status = %q, want %q", paths, want)
	}
	if n, err := Dirty(ctx, r); err != nil || n != len(want) {
		t.Errorf("Dirty = %d, %v; want %d", n, err, len(want))
	}
}

func TestAuthorUnset(t *testing.T) {
	dir := newRepo(t)
	git(t, dir, "config", "--unset", "user.name")
	r, _ := Find(dir)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if got := Author(context.Background(), r); got != "" {
		t.Errorf("Author = %q, want empty", got)
	}
}

func TestEnvironmentCannotRedirect(t *testing.T) {
	dir := newRepo(t)
	other := newRepo(t)
	write(t, filepath.Join(other, "dirty.txt"), "x")
	r, _ := Find(dir)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	n, err := Dirty(context.Background(), r)
	if err != nil || n != 0 {
		t.Errorf("Dirty with a foreign GIT_DIR = %d, %v; want 0 for the clean repo", n, err)
	}
}

func TestGitTimeout(t *testing.T) {
	dir := newRepo(t)
	r, _ := Find(dir)
	// A fake git that never finishes stands in for a repository stuck on a lock
	// or a slow disk; its child sleep keeps the output pipe open after the
	// shell is killed.
	bin := t.TempDir()
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\nsleep 30\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	var n int
	var err error
	go func() {
		n, err = Dirty(ctx, r)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Dirty did not return after its deadline")
	}
	if !errors.Is(err, context.DeadlineExceeded) || n != 0 {
		t.Errorf("Dirty = %d, %v; want 0 and a deadline error", n, err)
	}
	if got := Author(ctx, r); got != "" {
		t.Errorf("Author after deadline = %q", got)
	}
}

func TestParsePorcelainZ(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" M a.go\x00?? b/\x00", []string{"a.go", "b/"}},
		{"R  new.go\x00old.go\x00 D gone.go\x00", []string{"new.go", "gone.go"}},
		{" M a.go\x00?? trunc", []string{"a.go"}}, // cut short by a timeout
	}
	for _, tt := range tests {
		if got := parsePorcelainZ([]byte(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("parsePorcelainZ(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"feature/Auth Refactor":   "feature-auth-refactor",
		"main":                    "main",
		"--Fix__bug--#12--":       "fix-bug-12",
		"release/v1.2.3":          "release-v1-2-3",
		"café/über":               "caf-ber",
		"":                        "",
		"///":                     "",
		strings.Repeat("ab-", 40): strings.TrimRight(strings.Repeat("ab-", 22)[:64], "-"),
	}
	for in, want := range tests {
		got := Slug(in)
		if got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
		if len(got) > 64 {
			t.Errorf("Slug(%q) has %d characters", in, len(got))
		}
	}
}

func TestWorktreeStatusAndSubmodule(t *testing.T) {
	dir := newRepo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt2")
	git(t, dir, "worktree", "add", "-q", "-b", "side2", wt)
	write(t, filepath.Join(wt, "only-in-wt.txt"), "x")
	r, err := Find(wt)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := Status(context.Background(), r)
	if err != nil || !slices.Equal(paths, []string{"only-in-wt.txt"}) {
		t.Errorf("worktree Status = %q, %v", paths, err)
	}

	// A submodule's .git file points into the superproject's modules directory.
	lib := newRepo(t)
	git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	sub := filepath.Join(dir, "lib")
	checkAgainstGit(t, sub, "main")
}

func TestRunIndexAndNoRepo(t *testing.T) {
	dir := newRepo(t)
	r, _ := Find(dir)
	// A second index that stages a file the repository's own index lacks,
	// as git gives a pre-commit hook for `git commit -a` or `git commit PATH`.
	write(t, filepath.Join(dir, "b.txt"), "b\n")
	index := filepath.Join(t.TempDir(), "index") // new: stages b.txt only, so a.txt reads as deleted
	ctx := context.Background()
	t.Setenv("GIT_INDEX_FILE", filepath.Join(t.TempDir(), "elsewhere")) // ignored unless given
	if _, err := (Git{Repo: r, Index: index}).Run(ctx, "add", "b.txt"); err != nil {
		t.Fatal(err)
	}
	staged, err := Git{Repo: r, Index: index}.Run(ctx, "diff", "--cached", "--name-only")
	if err != nil || strings.TrimSpace(string(staged)) != "a.txt\nb.txt" {
		t.Errorf("with Index: staged = %q, %v", staged, err)
	}
	own, err := Git{Repo: r}.Run(ctx, "diff", "--cached", "--name-only")
	if err != nil || len(own) != 0 {
		t.Errorf("own index: staged = %q, %v; want nothing", own, err)
	}

	// Without a git directory, git runs in Root (git init makes one there).
	fresh := filepath.Join(t.TempDir(), "fresh")
	if err := os.Mkdir(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (Git{Repo: Repo{Root: fresh}}).Run(ctx, "init", "-q", "-b", "trunk"); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(fresh); err != nil || Branch(got) != "trunk" {
		t.Errorf("after init: %+v, %v", got, err)
	}

	// A failing run keeps git's exit status.
	_, err = Git{Repo: r}.Run(ctx, "config", "--get", "no.such.key")
	if ExitCode(err) != 1 {
		t.Errorf("ExitCode(%v) = %d, want 1", err, ExitCode(err))
	}
	if ExitCode(nil) != -1 {
		t.Errorf("ExitCode(nil) = %d, want -1", ExitCode(nil))
	}
}
