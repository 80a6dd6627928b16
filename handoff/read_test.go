package handoff

import (
	"strings"
	"testing"
	"time"
)

// TestFilesRead: the working set is a handoff section of its own, apart
// from the files the session changed, read back from the front matter's
// state (and the section by its name).
func TestFilesRead(t *testing.T) {
	f := &Facts{Files: []string{"b.go"}, State: State{Read: []string{"a.go", "b.go", "docs/c.md"}}}
	h := Build(Meta{Stream: "s", Created: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), Version: "test"}, f, nil)
	if got := strings.Join(h.Read, " "); got != "a.go docs/c.md" {
		t.Errorf("Read = %q, want the files read and not changed", got)
	}
	body, err := Render(h, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Sections["Files read"]; got != "- `a.go`\n- `docs/c.md`" {
		t.Errorf("Files read section = %q\n%s", got, body)
	}
	if got := strings.Join(p.State.Read, " "); got != "a.go docs/c.md" {
		t.Errorf("the front matter's state reads back Read = %q\n%s", got, body)
	}
	if _, ok := p.Sections["State"]; ok {
		t.Errorf("a session that only read has a State section:\n%s", body)
	}
	if strings.Contains(p.Sections["Files touched"], "a.go") {
		t.Errorf("a file only read is listed as touched:\n%s", body)
	}
}
