package testkit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
)

// Repo is a temporary git repository.
type Repo struct {
	T   testing.TB
	Dir string            // the work tree
	Env map[string]string // HOME, XDG_CONFIG_HOME, XDG_STATE_HOME
}

// New makes a repository on branch main with one empty commit by Kim; with
// optIn, its ledger directory exists (the repository has opted in).
func New(t testing.TB, optIn bool) *Repo {
	t.Helper()
	home := t.TempDir()
	r := &Repo{T: t, Dir: filepath.Join(t.TempDir(), "proj"), Env: map[string]string{"HOME": home,
		"XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": filepath.Join(home, "state")}}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Kim"},
		{"config", "user.email", "kim@example.com"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		r.Git(args...)
	}
	if optIn {
		r.Mkdir("thoughts/ledgers")
	}
	return r
}

// Getenv reads the repository's environment.
func (r *Repo) Getenv(k string) string { return r.Env[k] }

// Git runs git in the work tree and returns its output; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	out, err := gitfacts.Git{Repo: gitfacts.Repo{Root: r.Dir}}.Run(context.Background(), args...)
	if err != nil {
		r.T.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// Path is rel's absolute path in the work tree.
func (r *Repo) Path(rel string) string { return filepath.Join(r.Dir, filepath.FromSlash(rel)) }

// Mkdir makes directory rel in the work tree.
func (r *Repo) Mkdir(rel string) {
	r.T.Helper()
	if err := os.MkdirAll(r.Path(rel), 0o755); err != nil {
		r.T.Fatal(err)
	}
}

// Write writes file rel in the work tree (its directory too).
func (r *Repo) Write(rel, content string) {
	r.T.Helper()
	r.Mkdir(filepath.Dir(rel))
	err := safefile.Update(r.Path(rel), safefile.Options{LockDir: filepath.Join(r.Env["HOME"], "locks"), NoSync: true},
		func([]byte) ([]byte, error) { return []byte(content), nil })
	if err != nil {
		r.T.Fatal(err)
	}
}

// Read reads file rel of the work tree ("" when missing).
func (r *Repo) Read(rel string) string {
	b, _ := os.ReadFile(r.Path(rel))
	return string(b)
}
