package handoff

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stateCase is a handoff with every part of State and Work set, some
// texts odd (backticks, newlines, a heading).
func stateCase() *Handoff {
	f := &Facts{
		Files:    []string{"div.go", "odd `name`.go"},
		Commands: []string{"go test ./...", "git commit -am 'zero'"},
		Errors: []string{"`go test ./...`: exit 1: --- FAIL: TestDiv" + ResolvedMark, "`make`: exit 2: no rule",
			"`npm run lint`: exit 1: a.ts"},
		Omitted: Omitted{Commands: 12, Errors: 3},
		State: State{
			Plan: []Task{{ID: "1", Subject: "Refuse zero", Status: "completed"}, {Subject: "Gone", Status: "deleted"},
				{Subject: "Commit\n## not a heading", Status: "in_progress"}, {Subject: "Docs", Status: "pending"}},
			Checks: []Check{
				{Command: "go test ./...", Outcome: Passed, FailedBefore: true, Tests: 12},
				{Command: "npm run lint", Outcome: Failed, Failing: []string{"a.ts", "b.ts"}},
				{Command: "echo `date` | tail", Outcome: Unknown},
			},
			Commits:  []Commit{{Hash: "4f3c2b1", Subject: "Div refuses a zero divisor"}},
			InFlight: []string{"`make bench`"},
		},
		Outside: []string{"/home/dev/.claude/memory/MEMORY.md"},
		Prompts: []string{"make Div refuse zero"},
	}
	h := Build(Meta{Stream: "s", Version: "0.1.0", Event: "session-end"}, f, nil)
	for i := range 25 {
		h.Uncommitted = append(h.Uncommitted, "gen/"+string(rune('a'+i))+".go")
	}
	return h
}

// TestStateRoundTrip: what Render writes of State and Work, Parse reads
// back from the front matter, equal to what the State section shows.
func TestStateRoundTrip(t *testing.T) {
	h := stateCase()
	out, err := Render(h, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	want := cleanState(h.State)
	if !reflect.DeepEqual(p.State, want) {
		t.Errorf("state read back:\n got %+v\nwant %+v", p.State, want)
	}
	if p.State.MoreUncommitted != 5 || len(p.State.Uncommitted) != maxUncommitted {
		t.Errorf("uncommitted: %d named, %d more", len(p.State.Uncommitted), p.State.MoreUncommitted)
	}
	if !strings.Contains(p.State.Markdown(), "\n- Tests run: 12\n") {
		t.Errorf("tests run not shown:\n%s", p.State.Markdown())
	}
	if got := p.Sections[HeadingState]; got != p.State.Markdown() {
		t.Errorf("the State section is not State.Markdown:\n%s\n---\n%s", got, p.State.Markdown())
	}
	wantWork := Work{Files: 2, Outside: 1, Commands: 14, Errors: 6, Open: []string{"`make`: exit 2: no rule", "`npm run lint`: exit 1: a.ts"}}
	if !reflect.DeepEqual(p.Work, wantWork) {
		t.Errorf("work read back:\n got %+v\nwant %+v", p.Work, wantWork)
	}
	// The same handoff read from its sections alone (as one written before
	// the front matter said its state) says the same, but for the facts
	// added since (the sections of old handoffs never had them).
	st, w := legacyState(p.Sections)
	want.Checks = append([]Check(nil), want.Checks...)
	want.Checks[0].Tests = 0
	want.Plan = append([]Task(nil), want.Plan...)
	for i := range want.Plan {
		want.Plan[i].ID = "" // not shown
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("state from the sections:\n got %+v\nwant %+v", st, want)
	}
	if !reflect.DeepEqual(w, wantWork) {
		t.Errorf("work from the sections:\n got %+v\nwant %+v", w, wantWork)
	}
}

// TestStateOwnTemplate: a project's template that words every section its
// own way (or leaves them out) changes nothing a reader reads; the keys its
// own front matter adds are kept, continuity's are continuity's.
func TestStateOwnTemplate(t *testing.T) {
	h := stateCase()
	tmpl := "---\nsession: wrong\nteam: \"payments\"\n---\n# {{.Session}}\n\n## Where we are\n\n{{with .State}}{{range .Checks}}* {{.Command}} {{.Outcome}}\n{{end}}{{end}}"
	out, problem, err := RenderProject(h, tmpl, 0, TemplateTimeout)
	if err != nil || problem != "" {
		t.Fatalf("%v %s", err, problem)
	}
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.State, cleanState(h.State)) || p.Work.Commands != 14 || !Substantial(p) {
		t.Errorf("read back from a project's template: %+v %+v", p.State, p.Work)
	}
	if p.Meta.Stream != "s" || !strings.Contains(string(out), "\nteam: \"payments\"\n") || strings.Contains(string(out), "wrong") {
		t.Errorf("front matter:\n%s", out)
	}
}

// TestStateLegacy: a handoff written before the front matter carried its
// state (the built-in template's rendering of the day) is read from its
// sections.
func TestStateLegacy(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "legacy", "full.md"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := State{Task: "Logout endpoint",
		Plan:   []Task{{Subject: "Add token refresh endpoint", Status: "completed"}, {Subject: "Write logout endpoint", Status: "in_progress"}},
		Checks: []Check{{Command: "go test ./...", Outcome: Failed}}}
	if !reflect.DeepEqual(p.State, want) {
		t.Errorf("state:\n got %+v\nwant %+v", p.State, want)
	}
	if p.Work.Files != 2 || p.Work.Commands != 2 || p.Work.Errors != 1 || len(p.Work.Open) != 1 {
		t.Errorf("work: %+v", p.Work)
	}
	// A person's own wording of the day: bold labels, checks under a
	// heading of their own.
	own, _ := legacyState(map[string]string{HeadingState: "- **Task:** ship it\n\n### Checks\n\n- go test passes\n"})
	if own.Task != "ship it" || len(own.Checks) != 1 || own.Checks[0].Line() != "go test passes" {
		t.Errorf("own wording: %+v", own)
	}
}

// TestStateBrokenValue: a state a person broke by hand loses itself, not
// the handoff: the rest of the front matter is read, and the sections say
// the state.
func TestStateBrokenValue(t *testing.T) {
	src := "---\nsession: s\nevent: session-end\nstate: {\"task\": [1, 2}\n---\n\n## State\n\n- Task: from the section\n"
	p, err := Parse([]byte(src))
	if err == nil {
		// yaml.v3 refuses the whole front matter for a broken flow value:
		// nothing else can be expected of it.
		if p.State.Task != "" && p.State.Task != "from the section" {
			t.Errorf("task = %q", p.State.Task)
		}
	}
	typed := "---\nsession: s\nevent: session-end\nstate: {\"task\": 3}\n---\n\n## State\n\n- Task: from the section\n"
	p, err = Parse([]byte(typed))
	if err != nil || p.Meta.Stream != "s" || p.State.Task != "from the section" {
		t.Errorf("a state of the wrong type: %+v, %v", p, err)
	}
}

// TestTemplateHeadings: the built-in template writes the sections the
// headings name.
func TestTemplateHeadings(t *testing.T) {
	h := stateCase()
	h.Summary = "done"
	out, err := Render(h, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{HeadingState, HeadingSummary, HeadingFiles, HeadingOutside, HeadingCommands, HeadingErrors} {
		if _, ok := p.Sections[h]; !ok {
			t.Errorf("no %q section in:\n%s", h, out)
		}
	}
}
