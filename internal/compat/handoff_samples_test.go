package compat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
)

// TestSampleHandoffs measures, on a tree of real handoffs collected from
// public repositories (CC_HANDOFFS, not committed: other people's files),
// how many are dated and parsed into a goal, what to do now and next.
// Without CC_HANDOFFS it is skipped.
func TestSampleHandoffs(t *testing.T) {
	dir := testkit.Dir(t, "CC_HANDOFFS")
	var n, dated, parsed, withNext int
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !handoff.IsFile(d.Name()) {
			return err
		}
		n++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		p, err := ParseHandoff(src)
		if err != nil {
			t.Logf("%s: %v", path, err)
			return nil
		}
		if !handoff.Time(path).IsZero() && !p.Meta.Created.IsZero() {
			dated++
		}
		if p.Form != handoff.FormContinuity && p.Goal != "" && p.Sections["Summary"] != "" {
			parsed++
		}
		if len(p.Next) > 0 {
			withNext++
		}
		t.Logf("%s: form %s, created %s, session %q, goal %q, now %q, %d next", filepath.Base(path), p.Form,
			p.Meta.Created.Format("2006-01-02T15:04:05Z07:00"), p.Meta.Stream, p.Goal, p.Now, len(p.Next))
		return nil
	})
	t.Logf("handoffs %d, dated %d, parsed (goal and summary) %d, with next steps %d", n, dated, parsed, withNext)
}
