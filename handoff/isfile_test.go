package handoff

import (
	"fmt"
	"testing"
	"time"
)

// IsFile no longer runs handoffName: every name FileName makes (and its
// "~N" variants) must still pass, and what is not a handoff must not.
func TestIsFileWithoutPattern(t *testing.T) {
	at := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	for i, ev := range []string{"pre-compact", "session-end", "manual", "recovered"} {
		name := FileName(at, ev, fmt.Sprintf("%08x-0000-4000-8000-000000000000", i))
		for _, n := range []string{name, name[:len(name)-len(".md")] + "~2.md"} {
			if !handoffName().MatchString(n) {
				t.Fatalf("%s: not one of continuity's names; the test is wrong", n)
			}
			if !IsFile(n) {
				t.Errorf("IsFile(%q) = false for continuity's own name", n)
			}
		}
	}
	for _, n := range []string{"README.md", "index.yaml", ".2026-11-22T14-05-09Z_pre-compact_x.md", "notes.txt", "2026-11-22T14-05-09Z_pre-compact_x.md.swp"} {
		if IsFile(n) {
			t.Errorf("IsFile(%q) = true", n)
		}
	}
}
