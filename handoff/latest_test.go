package handoff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

func TestLatestWithinOneSecond(t *testing.T) {
	// The session-end was written first; the pre-compact 300 ms later in the
	// same second sorts before it by name but is the newer one.
	files := map[string]string{
		"2026-11-22T15-15-04Z_session-end_aaaaaaaa.md": "---\ncreated: \"2026-11-22T15:15:04.100Z\"\n---\n",
		"2026-11-22T15-15-04Z_pre-compact_aaaaaaaa.md": "---\ncreated: \"2026-11-22T15:15:04.400Z\"\n---\n",
		"2026-11-22T15-15-03Z_session-end_bbbbbbbb.md": "---\ncreated: \"2026-11-22T15:15:03.900Z\"\n---\n",
	}
	_, got := latest(t, files)
	if got != "2026-11-22T15-15-04Z_pre-compact_aaaaaaaa.md" {
		t.Errorf("Latest = %s, want the pre-compact written last", got)
	}
}

// latest writes files (a name to each content) into a new folder and
// returns the folder and the name of the handoff Latest picks in it.
func latest(t *testing.T, files map[string]string) (dir, picked string) {
	t.Helper()
	dir = testkit.TempDir(t)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Base(got)
}
