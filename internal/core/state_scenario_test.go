package core

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/agent/gemini"
	"github.com/continuity-md/continuity/internal/testkit"
)

// The state scenario of issue 22, recorded with each real client
// (testdata/scenarios/state/record.sh): a plan (Claude Code's task tools;
// the pinned Codex and Gemini CLI offer none in their headless modes), an
// edit, a failing test, a fix, a passing test, a commit; then a chat-only
// session; then a new session.
const scenarioProj = "/tmp/continuity-state/proj"

const scenarioLedger = "---\nsession: div\ngoal: Div refuses a zero divisor\n---\n\n# Notes\n"

// TestStateScenario: each client's session gives a handoff that opens with
// where the work stands, in the same sections and shapes for every client;
// the chat-only session after it writes nothing and leaves the ledger's
// bytes as they were; the next session is given the work's handoff.
func TestStateScenario(t *testing.T) {
	hosts := map[string]agent.Host{"claude": claude.Host{}, "codex": codex.Host{}, "gemini": gemini.Host{}}
	shapes := map[string]string{}
	for _, name := range []string{"claude", "codex", "gemini"} {
		t.Run(name, func(t *testing.T) {
			r := testkit.New(t, true)
			// No git: the commits come from the session's own output, the
			// same bytes at every run.
			if err := os.RemoveAll(r.Path(".git")); err != nil {
				t.Fatal(err)
			}
			r.Write("thoughts/ledgers/CONTINUITY_div.md", scenarioLedger)
			p := openProject(r)
			e := Env{Host: agent.Serve(hosts[name]), Getenv: r.Getenv, Now: testNow, Version: "test"}
			work := scenarioTranscript(t, r, name+"-work.jsonl")
			w, err := WriteHandoff(p, e, Request{Name: "div", Event: "session-end", Reason: "other", AgentSession: "sess-work", Transcript: work, Named: true, SkipIfSame: true})
			if err != nil || w.Path == "" {
				t.Fatalf("the work's handoff: %+v, %v", w, err)
			}
			src := []byte(r.Read(w.Path))
			testkit.Check(t, "state/"+name+"-handoff.md", src)
			parsed, err := handoff.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			shapes[name] = shapeOf(parsed)

			ledgerBefore := r.Read("thoughts/ledgers/CONTINUITY_div.md")
			e.Now = testNow.Add(time.Minute)
			chat := scenarioTranscript(t, r, name+"-chat.jsonl")
			w, err = WriteHandoff(p, e, Request{Name: "div", Event: "session-end", Reason: "other", AgentSession: "sess-chat", Transcript: chat, Named: true, SkipIfSame: true})
			if err != nil || w.Path != "" {
				t.Errorf("the chat-only session: %+v, %v", w, err)
			}
			if got := r.Read("thoughts/ledgers/CONTINUITY_div.md"); got != ledgerBefore {
				t.Errorf("the chat-only session changed the ledger:\n%s", got)
			}

			e.Now = testNow.Add(2 * time.Minute)
			inj, err := Context(p, e, "div", "startup", "sess-next")
			if err != nil {
				t.Fatal(err)
			}
			testkit.Check(t, "state/"+name+"-context.txt", []byte(inj.Text+"\n"))
			// The handoff is quoted data: its lines indented inside the fence.
			contains(t, name+" context", inj.Text, "- Checks:\n    - `go test ./...`: passed (failed earlier: resolved)", "Div refuses a zero divisor")
		})
	}
	// The same work reads the same whichever client did it: the sections
	// and their shapes (the plan only where the client had a plan tool).
	for name, s := range shapes {
		if want := strings.ReplaceAll(shapes["claude"], "plan 2 items\n", ""); strings.ReplaceAll(s, "plan 2 items\n", "") != want {
			t.Errorf("%s's handoff differs in shape from Claude Code's:\n%s\nwant\n%s", name, s, want)
		}
	}
}

// scenarioTranscript copies a recorded transcript into the repository's
// place (its paths moved there) and returns its path.
func scenarioTranscript(t *testing.T, r *testkit.Repo, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", "state", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte(scenarioProj), []byte(r.Dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// shapeOf says which sections a handoff has and what each holds, without
// the client's own words: the section names, the state's lines up to their
// values, the number of items of each list.
func shapeOf(h *handoff.Parsed) string {
	var b strings.Builder
	for _, sec := range h.Order {
		switch sec {
		case "Summary", "Recent requests", "How to resume":
			b.WriteString(sec + "\n")
		case "Done", "Next":
			// The plan's items, again: only where the client had a plan tool.
		case "State":
			for _, line := range strings.Split(h.Sections[sec], "\n") {
				switch {
				case strings.HasPrefix(line, "- Task:"):
					b.WriteString("task\n")
				case strings.HasPrefix(line, "- Plan:"):
				case strings.HasPrefix(line, "  - ["):
					b.WriteString("plan item\n")
				case strings.HasPrefix(line, "  - `") && strings.Contains(line, "` ") && !strings.Contains(line, ": "):
					b.WriteString("commit " + line[strings.Index(line, "` ")+2:] + "\n")
				default:
					b.WriteString(line + "\n")
				}
			}
		default:
			b.WriteString(sec + ": " + h.Sections[sec] + "\n")
		}
	}
	s := b.String()
	if n := strings.Count(s, "plan item\n"); n > 0 {
		s = strings.ReplaceAll(s, "plan item\n", "")
		s = strings.Replace(s, "task\n", "task\nplan "+strconv.Itoa(n)+" items\n", 1)
	}
	return s
}
