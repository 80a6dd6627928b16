package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	// The person's own git configuration never reaches a test.
	cmd.Env = append(os.Environ(), "HOME="+r.Env["HOME"], "XDG_CONFIG_HOME="+r.Env["XDG_CONFIG_HOME"],
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		r.T.Fatalf("git %v: %v: %s", args, err, stderr)
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
	if err := os.WriteFile(r.Path(rel), []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Read reads file rel of the work tree ("" when missing).
func (r *Repo) Read(rel string) string {
	b, _ := os.ReadFile(r.Path(rel))
	return string(b)
}
