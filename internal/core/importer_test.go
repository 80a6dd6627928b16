package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/testkit"
)

const sectionLedger = `# Session: auth
Updated: 2026-11-20T10:00:00Z

## Goal
Replace session cookies with JWTs

## Done
- [x] Token refresh endpoint

## Now
Logout endpoint

## Next
- [ ] Integration tests
- [ ] Docs

## Notes
Keep this line.
`

var importNow = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)

// TestConvertInPlace: a dry run says what it would move and writes
// nothing; the import converts the file in place, counts what moved and
// keeps the notes; a second import finds it already converted.
func TestConvertInPlace(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_CLAUDE-auth.md", sectionLedger)
	o := ImportOptions{Project: openProject(r), Dir: r.Dir, All: true, Now: importNow}
	jobs, err := ImportJobs(o)
	if err != nil || len(jobs) != 1 || jobs[0].Src != jobs[0].Target {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	res, refused := ImportLedgers(o, jobs, true)
	if refused != 0 || res[0].Action != "would-convert" || r.Read("thoughts/ledgers/CONTINUITY_CLAUDE-auth.md") != sectionLedger {
		t.Fatalf("dry run: %+v", res)
	}
	if want := []string{"goal", "now", "1 done", "2 next"}; strings.Join(res[0].Moved, ",") != strings.Join(want, ",") || res[0].Items != 5 {
		t.Errorf("moved %v (%d items), want %v", res[0].Moved, res[0].Items, want)
	}
	res, _ = ImportLedgers(o, jobs, false)
	got := r.Read("thoughts/ledgers/CONTINUITY_CLAUDE-auth.md")
	if res[0].Action != "converted" || !strings.HasPrefix(got, "---\n") || !strings.Contains(got, "Keep this line.") {
		t.Fatalf("convert: %+v\n%s", res[0], got)
	}
	if res[0].NotesLines == 0 {
		t.Errorf("notes lines %d", res[0].NotesLines)
	}
	if res, _ = ImportLedgers(o, jobs, false); res[0].Action != "already" {
		t.Errorf("again: %+v", res[0])
	}
}

// TestRootLedgerCopied: a root CONTINUITY.md is copied to the ledger
// directory under the repository's name (or --name), never onto an
// existing ledger, and left as it is.
func TestRootLedgerCopied(t *testing.T) {
	r := testkit.New(t, true)
	root := "- Goal (incl. success criteria): Ship the billing move\n- Now: webhooks\n"
	r.Write("CONTINUITY.md", root)
	o := ImportOptions{Project: openProject(r), Dir: r.Dir, Files: []string{"CONTINUITY.md"}, Now: importNow}
	jobs, err := ImportJobs(o)
	if err != nil || !strings.HasSuffix(jobs[0].Target, "thoughts/ledgers/CONTINUITY_proj.md") {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	o.Name = "billing"
	jobs, _ = ImportJobs(o)
	res, refused := ImportLedgers(o, jobs, false)
	if refused != 0 || res[0].Action != "copied" || res[0].Target != "thoughts/ledgers/CONTINUITY_billing.md" {
		t.Fatalf("copy: %+v", res[0])
	}
	if r.Read("CONTINUITY.md") != root || !strings.Contains(r.Read(res[0].Target), "Ship the billing move") {
		t.Error("the root file changed, or the copy lacks the goal")
	}
	if res, refused = ImportLedgers(o, jobs, false); refused != 1 || !strings.Contains(res[0].Problem, "exists") {
		t.Errorf("copy onto an existing ledger: %+v", res[0])
	}
}

// TestRefusedLeftAsItIs: a file that does not parse is refused and never
// rewritten.
func TestRefusedLeftAsItIs(t *testing.T) {
	r := testkit.New(t, true)
	bad := "---\nsession: [\n---\n## Goal\nx\n"
	r.Write("thoughts/ledgers/CONTINUITY_bad.md", bad)
	o := ImportOptions{Project: openProject(r), Dir: r.Dir, Files: []string{"thoughts/ledgers/CONTINUITY_bad.md"}, Now: importNow}
	jobs, _ := ImportJobs(o)
	res, refused := ImportLedgers(o, jobs, false)
	if refused != 1 || res[0].Action != "refused" || res[0].Problem == "" || r.Read("thoughts/ledgers/CONTINUITY_bad.md") != bad {
		t.Errorf("bad ledger: %+v", res[0])
	}
}

func TestNameError(t *testing.T) {
	err := error(&ImportNameError{errors.New("bad name")})
	var ne *ImportNameError
	if !errors.As(err, &ne) || !strings.HasSuffix(err.Error(), "name it with --name: bad name") {
		t.Errorf("NameError: %v", err)
	}
}

func TestSlugName(t *testing.T) {
	for in, want := range map[string]string{"My Project": "my-project", "proj": "proj", "---": "main", "Ünï": "n"} {
		if got := slugName(in); got != want {
			t.Errorf("slugName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResultLine(t *testing.T) {
	for _, c := range []struct {
		r    ImportResult
		want string
	}{
		{ImportResult{Path: "a.md", Action: "converted", Moved: []string{"goal", "2 next"}, NotesLines: 1}, "converted a.md: goal, 2 next to the front matter; 1 line of notes kept in the body"},
		{ImportResult{Path: "CONTINUITY.md", Target: "t.md", Action: "would-copy", NotesLines: 2}, "would copy CONTINUITY.md to t.md: nothing to the front matter; 2 lines of notes kept in the body (CONTINUITY.md would be left as it is)"},
		{ImportResult{Path: "a.md", Action: "already"}, "already in front matter form: a.md"},
		{ImportResult{Path: "a.md", Action: "refused", Problem: "a.md:2: bad"}, "not converted a.md: a.md:2: bad (the file is left as it is)"},
	} {
		if got := c.r.Line(); got != c.want {
			t.Errorf("Line() = %q, want %q", got, c.want)
		}
	}
}

// TestCodexRootForms: Codex's CONTINUITY.md in its common forms (labels on
// lines of their own with the items below; labels behind em dashes) is
// read, every field where it belongs.
func TestCodexRootForms(t *testing.T) {
	below := "Goal (incl. success criteria):\n- Ship the JWT refresh flow\n- Success: all auth tests pass\n\n" +
		"Constraints/Assumptions:\n- Keep /v1 compatible\n\nKey decisions:\n- RS256 over HS256\n\n" +
		"State:\n- Done:\n  - Token refresh endpoint\n- Now:\n  - Logout endpoint\n- Next:\n  - Integration tests\n\n" +
		"Open questions (UNCONFIRMED if needed):\n- Single-use refresh tokens?\n\nWorking set (files/ids/commands):\n- src/auth/token.go\n"
	dashes := "— Goal (incl. success criteria): Ship the JWT refresh flow\n— Constraints/Assumptions: Keep /v1 compatible\n" +
		"— Key decisions: RS256 over HS256\n— Now: Logout endpoint\n— Next: Integration tests\n— Open questions: Single-use refresh tokens?\n— Working set: src/auth/token.go\n"
	for name, src := range map[string]string{"labels above lists": below, "em dashes": dashes} {
		l, err := compat.ParseLedger("CONTINUITY.md", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(l.Goal, "Ship the JWT refresh flow") || len(l.Constraints) != 1 || len(l.Decisions) != 1 ||
			l.Now != "Logout endpoint" || len(l.Next) != 1 || len(l.Questions) != 1 || len(l.Files) != 1 || l.Files[0] != "src/auth/token.go" {
			t.Errorf("%s: %+v", name, l)
		}
	}
}

// TestRefusedNamesTheRealFile: a root CONTINUITY.md that is not a ledger
// is refused naming itself, not the ledger it would have become.
func TestRefusedNamesTheRealFile(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("CONTINUITY.md", "Just some notes\nnothing here\n")
	o := ImportOptions{Project: openProject(r), Dir: r.Dir, Files: []string{"CONTINUITY.md"}, Now: now, Name: "x"}
	jobs, _ := ImportJobs(o)
	res, refused := ImportLedgers(o, jobs, true)
	if refused != 1 || !strings.HasPrefix(res[0].Problem, "CONTINUITY.md:1:") {
		t.Errorf("refused %d: %+v", refused, res[0])
	}
}
