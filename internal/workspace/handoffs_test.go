package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/localstate"
)

// TestLatestHandoffMemo: the newest handoff is remembered while its
// directory is unchanged, and found again when it changes (a handoff
// added or removed) or when the memo is too close to the change to trust.
func TestLatestHandoffMemo(t *testing.T) {
	root := t.TempDir()
	p := &Workspace{Root: root, HandoffDir: filepath.Join(root, "handoffs"), Local: localstate.New(filepath.Join(root, "state"), "", nil)}
	dir := filepath.Join(p.HandoffDir, "auth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	add := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// age sets the directory's modification time in the past, out of the
	// racy window, as it is when a session starts long after a handoff.
	age := func() {
		t.Helper()
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	latest := func(want string) {
		t.Helper()
		got, err := p.LatestHandoff("auth", testNow)
		if err != nil || got != filepath.Join(dir, want) {
			t.Fatalf("LatestHandoff = %q, %v; want %s", got, err, want)
		}
	}
	memo := filepath.Join(p.Local.Dir, "memo", "latest-auth")
	forge := func(name string) { // a memo naming a file that is not the latest
		t.Helper()
		b, err := os.ReadFile(memo)
		if err != nil {
			t.Fatal(err)
		}
		key := string(b[:strings.LastIndex(string(b), " ")+1])
		fi, _ := os.Stat(memo)
		if err := os.WriteFile(memo, []byte(key+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(memo, fi.ModTime(), fi.ModTime())
	}

	if _, err := p.LatestHandoff("auth", testNow); err == nil {
		t.Fatal("no handoff: want an error")
	}
	add("2026-01-01T00-00-00Z_pre-compact_aaaa.md")
	add("2026-01-01T00-00-00Z_pre-compact_bbbb.md")
	age()
	latest("2026-01-01T00-00-00Z_pre-compact_bbbb.md")
	// The memo is used while the directory is unchanged: a forged one shows it.
	forge("2026-01-01T00-00-00Z_pre-compact_forged.md")
	latest("2026-01-01T00-00-00Z_pre-compact_forged.md")
	// A new handoff changes the directory: the memo is not used.
	add("2026-01-02T00-00-00Z_session-end_cccc.md")
	latest("2026-01-02T00-00-00Z_session-end_cccc.md")
	// A memo written within the racy window of the change is not trusted.
	forge("2026-01-01T00-00-00Z_pre-compact_forged.md")
	latest("2026-01-02T00-00-00Z_session-end_cccc.md")
	// Once the change is old, the rewritten memo is trusted again.
	age()
	latest("2026-01-02T00-00-00Z_session-end_cccc.md")
	forge("2026-01-01T00-00-00Z_pre-compact_forged.md")
	latest("2026-01-01T00-00-00Z_pre-compact_forged.md")
	// Removing a handoff changes the directory too.
	if err := os.Remove(filepath.Join(dir, "2026-01-01T00-00-00Z_pre-compact_aaaa.md")); err != nil {
		t.Fatal(err)
	}
	latest("2026-01-02T00-00-00Z_session-end_cccc.md")
}

// testNow is a present the tests' handoffs are all in the past of.
var testNow = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
