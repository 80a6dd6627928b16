package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
)

var testMeta = Meta{
	Stream: "auth-refactor", Created: time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC), Event: "pre-compact",
	Trigger: "manual", AgentSession: "7fb435c1-7033-4aa9-962f-957e346c19e6", Branch: "auth/jwt",
	Commit: "5c6d5cf", Dirty: 2, Author: `Dana "DB" O'Neil`, Version: "0.1.0",
}

func testLedger() *ledger.Ledger {
	return &ledger.Ledger{
		Path:   "thoughts/ledgers/CONTINUITY_auth-refactor.md",
		Stream: "auth-refactor",
		Goal:   "Replace session cookies with short-lived JWTs and refresh tokens",
		Now:    "Logout endpoint",
		Done:   []string{"add token refresh endpoint", "Design the token format"},
		Next:   []string{"Write  logout endpoint", "Integration tests for refresh and logout"},
		Decisions: []ledger.Decision{
			{Decision: "RS256, not HS256", Why: "keys rotate per service", Date: "2026-11-21"},
			{Decision: "Refresh tokens live 30 days"},
		},
	}
}

func TestBuild(t *testing.T) {
	f := readFixture(t, "tools-and-compact.jsonl", "/tmp/rec1/proj")
	h := Build(testMeta, f, testLedger())
	if h.Summary != f.CompactSummary {
		t.Errorf("summary = %q, want the compact summary", h.Summary)
	}
	// The completed task and the ledger's done item are the same thing.
	if want := []string{"Add token refresh endpoint", "Design the token format"}; !reflect.DeepEqual(h.Done, want) {
		t.Errorf("done = %q, want %q", h.Done, want)
	}
	if want := []string{"Write logout endpoint (in progress)", "Integration tests for refresh and logout"}; !reflect.DeepEqual(h.Next, want) {
		t.Errorf("next = %q, want %q", h.Next, want)
	}
	if h.Goal != testLedger().Goal || h.Now != "Logout endpoint" || len(h.Decisions) != 2 || h.LedgerPath != testLedger().Path {
		t.Errorf("ledger fields not carried: %+v", h)
	}
	if h.Meta != testMeta {
		t.Errorf("meta = %+v", h.Meta)
	}

	// Without a compact summary, the last assistant text; without a
	// ledger, tasks alone; prompts: the last five, on one line each.
	g := Build(Meta{}, &Facts{
		LastAssistant: "last words",
		State:         State{Plan: []Task{{Subject: "gone", Status: "deleted"}, {Subject: "open", Status: "pending"}}},
		Prompts:       []string{"1", "2", "3", "4", "five\nlines", "6", "7\n\n  end"},
	}, nil)
	if g.Summary != "last words" || len(g.Done) != 0 || !reflect.DeepEqual(g.Next, []string{"open"}) {
		t.Errorf("summary %q, done %q, next %q", g.Summary, g.Done, g.Next)
	}
	if want := []string{"3", "4", "five lines", "6", "7 end"}; !reflect.DeepEqual(g.Prompts, want) {
		t.Errorf("prompts = %q, want %q", g.Prompts, want)
	}
	if h := Build(Meta{Stream: "s"}, nil, nil); h.Stream != "s" || h.Summary != "" {
		t.Errorf("nil facts: %+v", h)
	}
}

func renderCases(t *testing.T) map[string]*Handoff {
	f := readFixture(t, "tools-and-compact.jsonl", "/tmp/rec1/proj")
	full := Build(testMeta, f, testLedger())
	full.Summary += "\n\n## Not a section\n\n# Nor this\n\n### This stays"
	full.Files = append(full.Files, "odd `name`.go")
	cut := Build(testMeta, f, testLedger())
	for i := 0; i < 300; i++ {
		cut.Files = append(cut.Files, fmt.Sprintf("pkg/generated/file_%03d.go", i))
	}
	for i := 0; i < 40; i++ {
		cut.Next = append(cut.Next, fmt.Sprintf("step %d", i))
	}
	return map[string]*Handoff{
		"full.md":    full,
		"minimal.md": Build(Meta{Stream: "s", Created: testMeta.Created, Event: "session-end", Reason: "clear", Version: "dev"}, nil, nil),
		"cut.md":     cut,
	}
}

func TestRenderGolden(t *testing.T) {
	for name, h := range renderCases(t) {
		t.Run(name, func(t *testing.T) {
			limit := DefaultMaxBytes
			if name == "cut.md" {
				limit = 3000
			}
			out, err := renderLimit(h, "", limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) > limit {
				t.Errorf("%d bytes, limit %d", len(out), limit)
			}
			again, _ := renderLimit(h, "", limit)
			if !bytes.Equal(out, again) {
				t.Error("two renderings differ")
			}
			testkit.Check(t, name, out)

			p, err := Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			if p.Meta != h.Meta {
				t.Errorf("front matter read back:\n got %+v\nwant %+v", p.Meta, h.Meta)
			}
			for _, s := range p.Order {
				if strings.TrimSpace(p.Sections[s]) == "" {
					t.Errorf("section %q is empty", s)
				}
			}
			if h.Summary != "" && !strings.HasPrefix(p.Sections["Summary"], strings.SplitN(h.Summary, "\n", 2)[0]) {
				t.Errorf("summary read back = %q", p.Sections["Summary"])
			}
		})
	}
}

func TestRenderSections(t *testing.T) {
	h := renderCases(t)["full.md"]
	out, err := Render(h, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"State", "Summary", "Goal", "Now", "Done", "Next", "Decisions", "Files touched", "Commands", "Errors", "Recent requests", "How to resume"}
	if !reflect.DeepEqual(p.Order, want) {
		t.Errorf("sections = %q, want %q", p.Order, want)
	}
	if got := p.Sections["How to resume"]; !strings.Contains(got, "`thoughts/ledgers/CONTINUITY_auth-refactor.md`") || !strings.Contains(got, "`continuity resume auth-refactor`") {
		t.Errorf("how to resume = %q", got)
	}
	m, _ := Parse(must(Render(renderCases(t)["minimal.md"], "")))
	if want := []string{"How to resume"}; !reflect.DeepEqual(m.Order, want) {
		t.Errorf("minimal sections = %q, want %q", m.Order, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestRenderBounded(t *testing.T) {
	h := &Handoff{Meta: testMeta, Summary: strings.Repeat("Long summary text. ", 3000)}
	for i := 0; i < 2000; i++ {
		h.Files = append(h.Files, fmt.Sprintf("dir/file%04d.go", i))
		h.Errors = append(h.Errors, strings.Repeat("e", 600))
		h.Next = append(h.Next, fmt.Sprintf("next step %04d %s", i, strings.Repeat("n", 40)))
	}
	out, err := Render(h, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > DefaultMaxBytes {
		t.Errorf("%d bytes, limit %d", len(out), DefaultMaxBytes)
	}
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Files touched", "Errors"} {
		if !strings.Contains(p.Sections[s], " more") {
			t.Errorf("section %s does not say what was cut:\n%s", s, p.Sections[s])
		}
	}
	// The latest files are kept.
	if !strings.Contains(p.Sections["Files touched"], "dir/file1999.go") {
		t.Error("the last file was cut")
	}
	// Next keeps its first items and says so at its end.
	next := p.Sections["Next"]
	if !strings.HasPrefix(next, "- next step 0000 ") || !regexp.MustCompile(`\n\n… \d+ more$`).MatchString(next) {
		t.Errorf("next cut wrongly:\n%s", next)
	}
	if !strings.Contains(p.Sections["Summary"], "… (cut to fit)") {
		t.Error("the summary was not cut")
	}
}

func TestRenderTemplate(t *testing.T) {
	out, err := Render(&Handoff{Meta: Meta{Stream: "x\ny"}, Goal: "g"}, "{{yaml .Session}} {{.Goal}} {{code \"a`b\"}}")
	if err != nil {
		t.Fatal(err)
	}
	fm, body, err := SplitFrontMatter(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(body), "\n\"x\\ny\" g ``a`b``\n"; got != want {
		t.Errorf("custom template = %q, want %q", got, want)
	}
	if m, err := ParseMeta(fm); err != nil || m.Stream != "x\ny" {
		t.Errorf("front matter %q: %+v, %v", fm, m, err)
	}
	if _, err := Render(&Handoff{}, "{{.Nope"); err == nil {
		t.Error("a broken template rendered")
	}
}

func TestYAMLQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          `"plain"`,
		`a "b" \ c`:      `"a \"b\" \\ c"`,
		"tab\tnl\n\x01":  `"tab\tnl\n\u0001"`,
		"yes":            `"yes"`,
		"bad \xff utf-8": "\"bad \uFFFD utf-8\"",
	} {
		if got := yamlQuote(in); got != want {
			t.Errorf("yamlQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFileName(t *testing.T) {
	at := time.Date(2026, 11, 22, 15, 5, 9, 999, time.FixedZone("CET", 3600))
	for _, c := range []struct{ event, id, want string }{
		{"pre-compact", "930cbd59-1111-2222", "2026-11-22T14-05-09Z_pre-compact_930cbd59.md"},
		{"Session End", "ABC/../x", "2026-11-22T14-05-09Z_session-end_abc-x.md"},
		{"", "", "2026-11-22T14-05-09Z_none_none.md"},
		{"manual", "é日本語abcdefgh", "2026-11-22T14-05-09Z_manual_abcd.md"},
	} {
		got := FileName(at, c.event, c.id)
		if got != c.want {
			t.Errorf("FileName(%q, %q) = %q, want %q", c.event, c.id, got, c.want)
		}
		if !handoffName().MatchString(got) {
			t.Errorf("%q is not recognised as a handoff name", got)
		}
	}
}

func TestLatest(t *testing.T) {
	dir := testkit.TempDir(t)
	if _, err := Latest(dir); !errors.Is(err, ErrNoHandoff) {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := Latest(filepath.Join(dir, "missing")); !errors.Is(err, ErrNoHandoff) {
		t.Errorf("missing dir: %v", err)
	}
	for _, name := range []string{
		"2026-11-22T14-05-09Z_pre-compact_930cbd59.md",
		"2026-11-22T14-05-09Z_pre-compact_930cbd59~2.md",
		"2026-11-21T09-00-00Z_session-end_aaaaaaaa.md",
		"2026-11-22T14-05-09Z_pre-compact_930cbd59~10.md",
		"2026-11-22T14-05-09Z_pre-compact_930cbd59~3.md",
		"2027-01-01T00-00-00Z_notes.md", // not a handoff name
		"zzz.md",
		"2099-01-01T00-00-00Z_pre-compact_x.md.swp",
		"README.md",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "2026-11-22T14-05-09Z_pre-compact_930cbd59~10.md"); got != want {
		t.Errorf("Latest = %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "2026-11-22T14-05-10Z_session-end_930cbd59.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Latest(dir); filepath.Base(got) != "2026-11-22T14-05-10Z_session-end_930cbd59.md" {
		t.Errorf("Latest = %q", got)
	}
}

func TestParse(t *testing.T) {
	src := "---\r\nsession: \"s\"\r\ncreated: 2026-11-22T14:05:09Z\r\ndirty: 3\r\n---\r\n# Title\r\n\r\n## Summary\r\n\r\nText *kept*  as is.\r\n\r\n```\r\n## not a heading\r\n```\r\n\r\nSetext section\r\n--------------\r\n- a\r\n## Empty\r\n## Summary\r\nrepeated\r\n"
	p, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Meta.Stream != "s" || p.Meta.Dirty != 3 || !p.Meta.Created.Equal(testMeta.Created) {
		t.Errorf("meta = %+v", p.Meta)
	}
	if want := []string{"Summary", "Setext section", "Empty"}; !reflect.DeepEqual(p.Order, want) {
		t.Errorf("order = %q, want %q", p.Order, want)
	}
	if got, want := p.Sections["Summary"], "Text *kept*  as is.\r\n\r\n```\r\n## not a heading\r\n```"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if got := p.Sections["Setext section"]; got != "- a" {
		t.Errorf("setext section = %q", got)
	}

	// No front matter: a body alone.
	p, err = Parse([]byte("## Next\n\n- x\n"))
	if err != nil || p.Sections["Next"] != "- x" || p.Meta != (Meta{}) {
		t.Errorf("no front matter: %+v, %v", p, err)
	}
	for _, bad := range []string{"---\nsession: s\n", "---\n: [\n---\n", "---\ncreated: yesterday\n---\n", "---\ndirty: many\n---\n"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

// readFixture is the facts the Claude Code reader makes of a recorded
// session (kept in testdata; internal/agent/claude checks they stay so).
func readFixture(t testing.TB, name, root string) *Facts {
	t.Helper()
	if name != "tools-and-compact.jsonl" || root != "/tmp/rec1/proj" {
		t.Fatalf("no facts recorded for %s at %s", name, root)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "tools-and-compact.facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f Facts
	if err := json.Unmarshal(src, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// TestRenderState: a handoff opens with where the work stands, the
// uncommitted paths on their own line (never among the files touched),
// and lists the transcript cut say how much they left out.
func TestRenderState(t *testing.T) {
	f := &Facts{
		Files:    []string{"div.go"},
		Commands: []string{"go test ./...", "git commit -am 'zero'"},
		Errors:   []string{"`go test ./...`: exit 1: --- FAIL: TestDiv (0.00s) (resolved: passed later)"},
		Omitted:  Omitted{Commands: 12, Errors: 3},
		State: State{
			Plan: []Task{{Subject: "Refuse zero", Status: "completed"}, {Subject: "Gone", Status: "deleted"}, {Subject: "Commit", Status: "in_progress"}},
			Checks: []Check{
				{Command: "go test ./...", Outcome: Passed, FailedBefore: true},
				{Command: "npm run lint", Outcome: Failed, Failing: []string{"a.ts", "b.ts"}},
				{Command: "make test | tail", Outcome: Unknown},
			},
			Commits:  []Commit{{Hash: "4f3c2b1", Subject: "Div refuses a zero divisor"}},
			InFlight: []string{"`make bench`"},
		},
		Outside: []string{"/home/dev/.claude/memory/MEMORY.md"},
		Prompts: []string{"make Div refuse zero"},
	}
	h := Build(Meta{Stream: "s", Version: "0.1.0"}, f, nil)
	h.Uncommitted = []string{".gitattributes", "notes.txt"}
	out, err := Render(h, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "## State\n\n" +
		"- Task: make Div refuse zero\n" +
		"- Plan:\n  - [x] Refuse zero\n  - [ ] Commit (in progress)\n" +
		"- Checks:\n  - `go test ./...`: passed (failed earlier: resolved)\n  - `npm run lint`: failed (a.ts, b.ts)\n  - `make test | tail`: unknown\n" +
		"- Commits:\n  - `4f3c2b1` Div refuses a zero divisor\n" +
		"- Uncommitted: `.gitattributes`, `notes.txt`\n" +
		"- In flight:\n  - `make bench`\n"
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("state section missing or different; got:\n%s", out)
	}
	for _, part := range []string{"## Files touched\n\n- `div.go`\n\n## Files outside", "## Commands\n\n… 12 more\n\n- `go test ./...`", "## Errors\n\n… 3 more\n\n"} {
		if !bytes.Contains(out, []byte(part)) {
			t.Errorf("missing %q in:\n%s", part, out)
		}
	}
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Order[0] != "State" {
		t.Errorf("sections %q: State must come first", p.Order)
	}
}
