package localstate

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestRepoSessionsConcurrent: 20 sessions in 4 worktrees (each its own
// State over one common directory) record at once, each several times;
// every entry is whole and holds its last files, none is lost.
func TestRepoSessionsConcurrent(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, "common")
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	var states []*State
	for w := range 4 {
		states = append(states, New(filepath.Join(root, fmt.Sprint("wt", w)), common, nil))
	}
	var wg sync.WaitGroup
	for i := range 20 {
		st := states[i%4]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 10 {
				err := st.RecordRepoSession(fmt.Sprint("s", i), now.Add(time.Duration(n)*time.Second), func(r *RepoSession) {
					r.Worktree, r.Stream, r.Agent = st.Dir, "auth", "claude"
					r.Files = append(r.Files, fmt.Sprintf("f%d-%d.go", i, n))
				})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := states[0].RepoSessions(false)
	if len(got) != 20 {
		t.Fatalf("%d sessions recorded, want 20", len(got))
	}
	for _, r := range got {
		var i int
		fmt.Sscanf(r.ID, "s%d", &i)
		if len(r.Files) != 10 || r.Files[9] != fmt.Sprintf("f%d-9.go", i) || r.Worktree != states[i%4].Dir {
			t.Errorf("session %s: %+v", r.ID, r)
		}
		if !r.Started.Equal(now) || !r.Active.Equal(now.Add(9*time.Second)) {
			t.Errorf("session %s: started %v, active %v", r.ID, r.Started, r.Active)
		}
	}
	never := func(RepoSession) bool { return false }
	n := states[1].PruneRepoSessions(never, func(r RepoSession) bool { return r.Worktree == states[2].Dir })
	if n != 5 || len(states[3].RepoSessions(true)) != 15 {
		t.Errorf("pruned %d, left %d; want 5 and 15", n, len(states[3].RepoSessions(true)))
	}
	// Those of worktree 3 are over (their client gone): they leave the
	// sessions at work for the ended ones.
	n = states[1].PruneRepoSessions(func(r RepoSession) bool { return r.Worktree == states[3].Dir }, never)
	if at, all := len(states[0].RepoSessions(false)), len(states[0].RepoSessions(true)); n != 5 || at != 10 || all != 15 {
		t.Errorf("moved %d; %d at work, %d in all; want 5, 10, 15", n, at, all)
	}
}

// TestRepoSessionsBounded: an entry keeps the last MaxRepoFiles files, and
// local state outside a repository records none.
func TestRepoSessionsBounded(t *testing.T) {
	st := New(t.TempDir(), filepath.Join(t.TempDir(), "common"), nil)
	for n := range MaxRepoFiles + 5 {
		if err := st.RecordRepoSession("a", time.Now(), func(r *RepoSession) { r.Files = append(r.Files, fmt.Sprint(n)) }); err != nil {
			t.Fatal(err)
		}
	}
	r := st.RepoSessions(false)
	if len(r) != 1 || len(r[0].Files) != MaxRepoFiles || r[0].Files[0] != "5" {
		t.Errorf("files not bounded: %+v", r)
	}
	if err := New(t.TempDir(), "", nil).RecordRepoSession("a", time.Now(), func(*RepoSession) {}); err != ErrNoRepository {
		t.Errorf("outside a repository: %v, want ErrNoRepository", err)
	}
}

// TestRepoSessionEnds: an entry that ends leaves the sessions at work for
// the ended ones, and comes back when the session starts again; a stream
// keeps the worktrees it was worked on in, once each.
func TestRepoSessionEnds(t *testing.T) {
	st := New(t.TempDir(), filepath.Join(t.TempDir(), "common"), nil)
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	record := func(ended bool) {
		t.Helper()
		if err := st.RecordRepoSession("a", now, func(r *RepoSession) { r.Ended = ended }); err != nil {
			t.Fatal(err)
		}
	}
	record(false)
	record(true)
	if at, all := st.RepoSessions(false), st.RepoSessions(true); len(at) != 0 || len(all) != 1 || !all[0].Ended {
		t.Errorf("after the end: at work %+v, all %+v", at, all)
	}
	record(false)
	if at, all := st.RepoSessions(false), st.RepoSessions(true); len(at) != 1 || len(all) != 1 || at[0].Ended {
		t.Errorf("started again: at work %+v, all %+v", at, all)
	}
	for _, w := range []string{"/w/a", "/w/b", "/w/a"} {
		if err := st.AddStreamWorktree("auth", w, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := st.StreamWorktrees("auth"); !slices.Equal(got, []string{"/w/a", "/w/b"}) {
		t.Errorf("stream worktrees %q", got)
	}
	if err := st.AddStreamWorktree("auth", "/w/c", func(w string) bool { return w != "/w/a" }); err != nil {
		t.Fatal(err)
	}
	if got := st.StreamWorktrees("auth"); !slices.Equal(got, []string{"/w/b", "/w/c"}) {
		t.Errorf("stream worktrees after a removal %q", got)
	}
}
