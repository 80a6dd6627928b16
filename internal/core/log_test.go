package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
)

// renderedHandoff renders a handoff with the embedded template, as the
// hooks write it, and returns its path relative to the root.
func renderedHandoff(t testing.TB, r *testkit.Repo, m handoff.Meta, summary string) string {
	t.Helper()
	src, err := handoff.Render(&handoff.Handoff{Meta: m, Summary: summary, Now: "Logout endpoint"}, "")
	if err != nil {
		t.Fatal(err)
	}
	rel := "thoughts/shared/handoffs/" + m.Stream + "/" + handoff.FileName(m.Created, m.Event, m.AgentSession)
	r.Write(rel, string(src))
	return rel
}

func meta(stream, author, agent string, created time.Time) handoff.Meta {
	return handoff.Meta{Stream: stream, Created: created, Event: "session-end", Agent: agent, Author: author,
		Branch: "feat/" + stream, AgentSession: "0123abcd-aaaa-bbbb-cccc-000000000000", Version: "test"}
}

// TestLogTimeline: every stream's handoffs, newest first, each with who,
// which agent, the event, the branch and the summary's first line; the
// filters narrow it.
func TestLogTimeline(t *testing.T) {
	r := testkit.New(t, true)
	renderedHandoff(t, r, meta("auth", "Kim", "claude", now.Add(-50*time.Hour)), "Wrote the refresh endpoint.\nMore.")
	renderedHandoff(t, r, meta("auth", "Ana Newcomer", "codex", now.Add(-3*time.Hour)), "Logout \"revokes\" tokens.")
	newest := renderedHandoff(t, r, meta("billing", "Lee", "gemini", now.Add(-time.Hour)), "Invoices in ünïcode.")
	p := openProject(r)

	all := Log(p, LogQuery{})
	if len(all) != 3 {
		t.Fatalf("entries %+v", all)
	}
	got := []string{}
	for _, e := range all {
		got = append(got, e.Stream+"/"+e.Author+"/"+e.Agent+"/"+e.Event+"/"+e.Branch+"/"+e.Summary)
	}
	want := []string{"billing/Lee/gemini/session-end/feat/billing/Invoices in ünïcode.",
		"auth/Ana Newcomer/codex/session-end/feat/auth/Logout \"revokes\" tokens.",
		"auth/Kim/claude/session-end/feat/auth/Wrote the refresh endpoint."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if all[0].Path != newest || !all[0].Created.Equal(now.Add(-time.Hour).Truncate(time.Millisecond)) {
		t.Errorf("newest: %+v", all[0])
	}

	for _, c := range []struct {
		q    LogQuery
		want int
	}{
		{LogQuery{Stream: "auth"}, 2},
		{LogQuery{Author: "ana"}, 1},
		{LogQuery{Agent: "Codex"}, 1},
		{LogQuery{Since: now.Add(-4 * time.Hour)}, 2},
		{LogQuery{Stream: "auth", Agent: "gemini"}, 0},
	} {
		if n := len(Log(p, c.q)); n != c.want {
			t.Errorf("%+v: %d entries, want %d", c.q, n, c.want)
		}
	}
}

// TestLogFastHeadAgreesWithParser: the line reader of the front matter
// gives what the full parser gives, for values the template quotes
// (quotes, backslashes, control characters, non-ASCII), and declines
// what it does not read, so the parser reads it.
func TestLogFastHeadAgreesWithParser(t *testing.T) {
	r := testkit.New(t, true)
	for i, author := range []string{`Kim "K" O'Neil`, `back\slash`, "tab\there", "Zoë 李", "bell\x07", ""} {
		m := meta("s", author, "claude", now.Add(time.Duration(i)*time.Minute))
		rel := renderedHandoff(t, r, m, "sum")
		src := []byte(r.Read(rel))
		e, _, _, ok := fastHead(src)
		if !ok {
			t.Fatalf("%q: the fast reader declined the template's front matter:\n%s", author, src)
		}
		parsed, err := handoff.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if e.Author != parsed.Meta.Author || !e.Created.Equal(parsed.Meta.Created) || e.Agent != parsed.Meta.Agent || e.Branch != parsed.Meta.Branch {
			t.Errorf("fast %+v, parser %+v", e, parsed.Meta)
		}
	}
	for _, src := range []string{
		"---\nsession: s\ncreated: 2026-11-22T14:05:09Z\nauthor: 'single'\n---\n",
		"---\nsession: s\ncreated: 2026-11-22T14:05:09Z\nauthor: Kim # a comment\n---\n",
		"---\ndate: 2026-01-08\nsession_name: s\n---\n",
		"---\nsession: s\nfiles:\n  - a.go\n---\n",
		"---\nsession: s\ncreated: 2026-11-22T14:05:09Z\n", // not closed within the head
		"no front matter\n",
	} {
		if _, _, _, ok := fastHead([]byte(src)); ok {
			t.Errorf("the fast reader took %q", src)
		}
	}
}

// TestLogReadsOtherForms: a hand-written front matter and a
// Continuous-Claude handoff are read by the full parser, with their dates.
func TestLogReadsOtherForms(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/shared/handoffs/auth/2026-11-20T10-00-00Z_manual_aaaaaaaa.md",
		"---\nsession: auth\ncreated: 2026-11-20T10:00:00Z\nevent: manual\nauthor: 'Kim'   # by hand\n---\n\n## Summary\n\nhand-written\n")
	r.Write("thoughts/shared/handoffs/auth/2026-01-08_cc-handoff.md",
		"---\ndate: 2026-01-08 16:30\nsession_name: auth\ntopic: Old work\n---\n\n# Handoff\n\n## Task(s)\n\n- port the parser\n")
	es := Log(openProject(r), LogQuery{})
	if len(es) != 2 {
		t.Fatalf("entries %+v", es)
	}
	if es[0].Author != "Kim" || es[0].Summary != "hand-written" || es[0].Event != "manual" {
		t.Errorf("hand-written: %+v", es[0])
	}
	if es[1].Created.Format("2006-01-02") != "2026-01-08" {
		t.Errorf("Continuous-Claude: %+v", es[1])
	}
}

// TestLogState: the handoff's State section gives the task and the checks,
// inline or as a list below the label, the label bold or not; the summary
// is then not needed.
func TestLogState(t *testing.T) {
	for _, c := range []struct{ state, task, checks string }{
		{"- Task: Logout endpoint\n- Checks: go test ./... failed (TestLogout)", "Logout endpoint", "go test ./... failed (TestLogout)"},
		{"**Task:** Logout endpoint\n\n**Plan:**\n- [x] a\n\n**Checks:**\n- `go test ./...`: failed (TestLogout)\n- `go vet ./...`: passed\n\n**Commits:**\n- abc1234 fix",
			"Logout endpoint", "`go test ./...`: failed (TestLogout); `go vet ./...`: passed"},
		{"Task: only a task", "only a task", ""},
		{"### Checks\n\n- make lint: passed", "", "make lint: passed"},
	} {
		r := testkit.New(t, true)
		r.Write("thoughts/shared/handoffs/s/2026-11-20T10-00-00Z_session-end_aaaaaaaa.md",
			"---\nsession: \"s\"\ncreated: \"2026-11-20T10:00:00.000Z\"\nevent: \"session-end\"\n---\n\n# Handoff: s\n\n## State\n\n"+c.state+"\n\n## Summary\n\nthe summary\n")
		es := Log(openProject(r), LogQuery{})
		if len(es) != 1 || es[0].Task != c.task || es[0].Checks != c.checks {
			t.Errorf("state %q:\n got %+v\nwant task %q checks %q", c.state, es, c.task, c.checks)
		}
		if c.task == "" && es[0].Summary != "the summary" || c.task != "" && es[0].Summary != "" {
			t.Errorf("state %q: summary %q", c.state, es[0].Summary)
		}
	}
}

// TestLogCRLF: a handoff checked out with CRLF line ends (Windows) reads
// the same.
func TestLogCRLF(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/shared/handoffs/s/2026-11-20T10-00-00Z_session-end_aaaaaaaa.md",
		strings.ReplaceAll("---\nsession: \"s\"\ncreated: \"2026-11-20T10:00:00.000Z\"\nauthor: \"Kim\"\n---\n\n## State\n\n- Task: Logout\n- Checks: go test passed\n\n## Summary\n\nthe summary\n", "\n", "\r\n"))
	es := Log(openProject(r), LogQuery{})
	if len(es) != 1 || es[0].Author != "Kim" || es[0].Task != "Logout" || es[0].Checks != "go test passed" {
		t.Errorf("%+v", es)
	}
}

// TestLogSkipsWhatItCannotRead: a file that is not a handoff's (a broken
// front matter) is left out, the rest listed.
func TestLogSkipsWhatItCannotRead(t *testing.T) {
	r := testkit.New(t, true)
	renderedHandoff(t, r, meta("auth", "Kim", "claude", now), "ok")
	r.Write("thoughts/shared/handoffs/auth/2026-11-20T10-00-00Z_manual_bbbbbbbb.md", "---\ncreated: [\n---\n")
	if es := Log(openProject(r), LogQuery{}); len(es) != 1 || es[0].Author != "Kim" {
		t.Errorf("entries %+v", es)
	}
}

// benchTree makes (once per process, or at $CONTINUITY_BENCH_TREE, kept)
// a repository with handoffs rendered by the template: perStream handoffs
// in each of streams streams, each about 3 KB like a real one.
func benchTree(b *testing.B, streams, perStream int) *testkit.Repo {
	b.Helper()
	r := testkit.New(b, true)
	if dir := os.Getenv("CONTINUITY_BENCH_TREE"); dir != "" {
		r.Dir = dir
		if _, err := os.Stat(filepath.Join(dir, "thoughts")); err == nil {
			return r
		}
		r.Git("init", "-q")
		r.Mkdir("thoughts/ledgers")
	}
	authors := []string{"Kim", "Ana Newcomer", "Lee"}
	agents := []string{"claude", "codex", "gemini"}
	body := strings.Repeat("- Bash `go test ./internal/...`: ok\n", 60)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := range streams {
		name := fmt.Sprintf("stream-%04d", s)
		dir := r.Path("thoughts/shared/handoffs/" + name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range perStream {
			m := meta(name, authors[(s+i)%3], agents[i%3], start.Add(time.Duration(s*perStream+i)*time.Minute))
			src, err := handoff.Render(&handoff.Handoff{Meta: m, Summary: fmt.Sprintf("Step %d of %s: wrote the refresh endpoint.", i, name), Now: "Logout"}, "")
			if err != nil {
				b.Fatal(err)
			}
			src = append(src, "\n## Commands\n\n"+body...)
			if err := os.WriteFile(filepath.Join(dir, handoff.FileName(m.Created, m.Event, m.AgentSession)), src, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return r
}

// BenchmarkLog is log over 100,000 handoffs in 1,000 streams (issue 27:
// within 1.5 s).
func BenchmarkLog(b *testing.B) {
	r := benchTree(b, 1000, 100)
	p := openProject(r)
	b.ResetTimer()
	for b.Loop() {
		if n := len(Log(p, LogQuery{})); n != 100000 {
			b.Fatalf("%d entries", n)
		}
	}
}

// TestLogStateFromTemplate: the state the template writes (task, plan,
// checks, commits) is read back: the task, and each check's command and
// outcome.
func TestLogStateFromTemplate(t *testing.T) {
	r := testkit.New(t, true)
	m := meta("auth", "Kim", "claude", now)
	src, err := handoff.Render(&handoff.Handoff{Meta: m, Summary: "sum", State: handoff.State{Task: "Logout endpoint",
		Plan:    []handoff.Task{{Subject: "write it", Status: "completed"}},
		Checks:  []handoff.Check{{Command: "go test ./...", Outcome: "failed", Failing: []string{"TestLogout"}}, {Command: "go vet ./...", Outcome: "passed"}},
		Commits: []handoff.Commit{{Hash: "abc1234", Subject: "wip"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	r.Write("thoughts/shared/handoffs/auth/"+handoff.FileName(m.Created, m.Event, m.AgentSession), string(src))
	es := Log(openProject(r), LogQuery{})
	if len(es) != 1 || es[0].Task != "Logout endpoint" || es[0].Checks != "`go test ./...`: failed (TestLogout); `go vet ./...`: passed" || es[0].Summary != "" {
		t.Errorf("%+v\n%s", es, src)
	}
}
