package core

import (
	"os"
	"testing"
)

// TestCommitAuthorRemembered: the author git gives for a committed handoff
// is asked once per version of the file and of the commit: a second start
// finds it without git, and a new commit of the file asks again.
func TestCommitAuthorRemembered(t *testing.T) {
	r := newRepo(t)
	rel := "thoughts/shared/handoffs/auth/2026-11-22T14-05-09Z_session-end_aaaaaaaa.md"
	r.write(rel, "---\nsession: auth\nauthor: Ana\n---\n\n## Summary\n\nwork\n")
	r.git("add", "-A")
	r.git("-c", "user.name=Mallory", "commit", "-q", "-m", "handoff")
	path := r.Path(rel)
	if got := commitAuthor(r.p, path); got != "Mallory" {
		t.Fatalf("commitAuthor = %q, want Mallory", got)
	}
	gitDirs := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir()) // no git: only the memo can answer
	if got := commitAuthor(r.p, path); got != "Mallory" {
		t.Fatalf("without git, commitAuthor = %q, want Mallory from the memo", got)
	}
	t.Setenv("PATH", gitDirs)
	r.write(rel, "---\nsession: auth\nauthor: Ana\n---\n\n## Summary\n\nmore work\n")
	r.git("add", "-A")
	r.git("-c", "user.name=Zed", "commit", "-q", "-m", "again")
	if got := commitAuthor(r.p, path); got != "Zed" {
		t.Fatalf("after a new commit, commitAuthor = %q, want Zed", got)
	}
}
