package localstate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestUnfinished: the index of open sessions follows each session's state
// (open once it names a transcript, closed by an end or a recovery, open
// again on a resume), and heals when a state file is pruned.
func TestUnfinished(t *testing.T) {
	p, now := stateProject(t)
	ids := func() []string {
		var out []string
		for _, s := range p.Unfinished() {
			out = append(out, s.ID)
		}
		return out
	}
	set := func(id string, fn func(*Session)) {
		t.Helper()
		if err := p.UpdateSession(id, now, fn); err != nil {
			t.Fatal(err)
		}
	}
	client := &Process{PID: 7, Start: 9}
	set("a", func(s *Session) { s.Transcript, s.Client = "/t/a.jsonl", client })
	set("b", func(s *Session) { s.Transcript = "/t/b.jsonl" })
	set("c", func(*Session) {}) // no transcript: nothing a start could recover
	if got := ids(); len(got) != 2 {
		t.Fatalf("open %q, want a and b", got)
	}
	// The marks are links to one empty file, not files of their own: a
	// session start makes no inode for its mark.
	ma, errA := os.Stat(filepath.Join(p.Dir, "open", filepath.Base(p.sessionFile("a"))))
	mb, errB := os.Stat(filepath.Join(p.Dir, "open", filepath.Base(p.sessionFile("b"))))
	if errA != nil || errB != nil || !os.SameFile(ma, mb) || ma.Size() != 0 {
		t.Errorf("marks of a and b are not one empty file: %v %v", errA, errB)
	}
	for _, s := range p.Unfinished() {
		if s.ID == "a" && (s.Client == nil || *s.Client != *client || s.Transcript != "/t/a.jsonl") {
			t.Errorf("a is not read back: %+v", s)
		}
	}
	set("a", func(s *Session) { s.Ended = true })
	set("b", func(s *Session) { s.Recovered = "x.md" })
	if got := ids(); len(got) != 0 {
		t.Fatalf("open after an end and a recovery: %q", got)
	}
	if n := marks(t, p); n != 0 {
		t.Errorf("index entries left: %d", n)
	}
	set("a", func(s *Session) { s.Ended = false })
	if got := ids(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("open after a resume: %q", got)
	}
	if err := os.Remove(p.sessionFile("a")); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 0 {
		t.Errorf("a pruned session is listed: %q", got)
	}
	if n := marks(t, p); n != 0 {
		t.Errorf("the index did not heal: %d entries", n)
	}
}

// marks counts the index's marks (not the file they link to).
func marks(t *testing.T, p *State) int {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(p.Dir, "open"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if e.Name() != markFile {
			n++
		}
	}
	return n
}

// stateProject is local state, in a directory of the
// test's own, and the time its tests write at.
func stateProject(t *testing.T) (*State, time.Time) {
	root := t.TempDir()
	return New(filepath.Join(root, ".state"), filepath.Join(root, ".common"), nil), time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
}
