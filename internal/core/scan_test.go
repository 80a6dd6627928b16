package core

import (
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

var secret = "AKIA" + "IOSFODNN7EXAMPLE"

// TestRunSources: by default every ledger and handoff is read (never a file
// outside them); files named are read wherever they are; --staged reads the
// index, not the work tree.
func TestRunSources(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\n---\nkey "+secret+"\n")
	r.Write("thoughts/shared/handoffs/auth/h.md", "clean\n")
	r.Write("notes.txt", "key "+secret+"\n")
	p := openProject(r)
	hits, n, err := Scan(p, ScanOptions{Dir: r.Dir})
	if err != nil || n != 2 || len(hits) != 1 || hits[0].File != "thoughts/ledgers/CONTINUITY_auth.md" || hits[0].Line != 4 {
		t.Fatalf("default: %+v, %d files, %v", hits, n, err)
	}
	if strings.Contains(hits[0].Kind, secret) {
		t.Error("a hit names the secret")
	}
	hits, n, err = Scan(p, ScanOptions{Dir: r.Dir, Files: []string{"notes.txt"}})
	if err != nil || n != 1 || len(hits) != 1 || hits[0].File != "notes.txt" {
		t.Errorf("named: %+v, %v", hits, err)
	}
	if _, _, err := Scan(p, ScanOptions{Dir: r.Dir, Files: []string{"nosuch"}}); err == nil {
		t.Error("a missing named file is no error")
	}
	// Staged: the clean version is staged, the secret is only in the work tree.
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\n---\nclean\n")
	r.Git("add", "thoughts")
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\n---\nkey "+secret+"\n")
	hits, n, err = Scan(p, ScanOptions{Dir: r.Dir, Staged: true})
	if err != nil || n != 2 || len(hits) != 0 {
		t.Errorf("staged clean: %+v, %d, %v", hits, n, err)
	}
	r.Git("add", "thoughts")
	if hits, _, _ = Scan(p, ScanOptions{Dir: r.Dir, Staged: true}); len(hits) != 1 {
		t.Errorf("staged secret: %+v", hits)
	}
}
