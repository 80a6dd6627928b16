package handoff

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLatestByDate: a Continuous-Claude folder's newest handoff is the
// newest by date, whatever the names' alphabetical order, the .yaml ones
// included; files without a date are not handoffs.
func TestLatestByDate(t *testing.T) {
	files := map[string]string{
		// Sorts last by name; written first.
		"2026-10-14T20-00-00Z_session-end_aaaaaaaa.md": "---\ncreated: \"2026-10-14T20:00:00.000Z\"\n---\n",
		// Local time 09:30 in its name; its date says 07:30Z, the newest.
		"2026-10-15_09-30_override-endpoint.yaml": "---\nsession: g\ndate: 2026-10-15T07:30:00Z\n---\ngoal: x\n",
		// A later local time in its name, an earlier date inside.
		"2026-10-15_09-45-00_notes.md": "---\ndate: 2026-10-15T07:00:00Z\n---\n# Handoff\n",
		"README.md":                    "---\ndate: 2027-01-01\n---\n",
		"scratch.md":                   "no date at all\n",
		"undated.yml":                  "goal: y\n",
	}
	dir, got := latest(t, files)
	if got != "2026-10-15_09-30_override-endpoint.yaml" {
		t.Errorf("Latest = %s", got)
	}
	var names []string
	for _, f := range Files(dir) {
		names = append(names, filepath.Base(f))
	}
	want := "2026-10-14T20-00-00Z_session-end_aaaaaaaa.md 2026-10-15_09-45-00_notes.md 2026-10-15_09-30_override-endpoint.yaml"
	if strings.Join(names, " ") != want {
		t.Errorf("Files = %v\nwant %s", names, want)
	}
}
