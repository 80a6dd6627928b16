package claude

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// TestReadTranscriptSubagent2_1_328: the pinned client keeps a subagent's
// records in <session>/subagents/agent-<id>.jsonl, not in the parent
// transcript; its files, commands and errors are the session's.
func TestReadTranscriptSubagent2_1_328(t *testing.T) {
	f := readFixture(t, "subagent.jsonl", "/tmp/reader-e2e/proj")
	if want := []string{"notes/helper.txt"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	// cat only looks: not a notable command (its failure is an error).
	if want := []string{"sort -u   notes/helper.txt > notes/sorted.txt"}; !reflect.DeepEqual(f.Commands, want) {
		t.Errorf("commands = %q, want %q (spaces as they ran)", f.Commands, want)
	}
	if want := []string{"`cat notes/missing.txt`: exit 1: cat: notes/missing.txt: No such file or directory"}; !reflect.DeepEqual(f.Errors, want) {
		t.Errorf("errors = %q, want %q", f.Errors, want)
	}
	// The subagent's prompt and replies are not the person's nor the main agent's.
	if want := []string{"delegate writing the helper to a subagent"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts = %q, want %q", f.Prompts, want)
	}
	if f.LastAssistant != "The subagent wrote notes/helper.txt." {
		t.Errorf("last reply = %q", f.LastAssistant)
	}
	// The main agent's last usage (3,100), not the subagent's (800).
	if f.Tokens != 3100 || f.Model != "claude-opus-5-5" {
		t.Errorf("tokens, model = %d, %q; want 3100, claude-opus-5-5", f.Tokens, f.Model)
	}
	// Without its subagent's file, the parent transcript alone shows none of it.
	alone, err := readTranscript(openFixture(t, "subagent.jsonl"), "/tmp/reader-e2e/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.Files) != 0 || len(alone.Commands) != 0 {
		t.Errorf("the parent transcript alone: files %q, commands %q", alone.Files, alone.Commands)
	}
}

func openFixture(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "transcripts", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestReadTranscriptAgentProgress: Claude Code 2.0.x/2.1.x recorded a
// subagent's messages inside the parent transcript, in progress records
// (testdata/transcripts/agent-progress.jsonl is written in that form).
func TestReadTranscriptAgentProgress(t *testing.T) {
	f := readFixture(t, "agent-progress.jsonl", "/home/dev/shop")
	if want := []string{"cart.go", "cart_test.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q (the main agent's, then the subagent's, by time)", f.Files, want)
	}
	if want := []string{"go test   ./cart/...", "go vet ./..."}; !reflect.DeepEqual(f.Commands, want) {
		t.Errorf("commands = %q, want %q", f.Commands, want)
	}
	if len(f.Errors) != 1 || !strings.HasPrefix(f.Errors[0], "`go test   ./cart/...`: exit 1") {
		t.Errorf("errors = %q", f.Errors)
	}
	if want := []string{"Add a cart total, and have an agent write its tests"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts = %q, want %q", f.Prompts, want)
	}
	if f.LastAssistant != "Cart total added; the agent wrote cart_test.go." {
		t.Errorf("last reply = %q", f.LastAssistant)
	}
	// input + cache reads + cache writes of the main agent's last reply.
	if f.Tokens != 12+40200+1830 || f.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("tokens, model = %d, %q", f.Tokens, f.Model)
	}
}

// TestSubagentReadOnce: a client that wrote a subagent's messages both in
// progress records and in its own file must not count them twice.
func TestSubagentReadOnce(t *testing.T) {
	progress := `{"type":"progress","data":{"message":{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"boom","is_error":true}]},"timestamp":"2026-01-01T00:00:02Z"},"type":"agent_progress","agentId":"a1"},"timestamp":"2026-01-01T00:00:02Z"}`
	file := `{"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"boom","is_error":true}]},"timestamp":"2026-01-01T00:00:02Z"}`
	f := read(t, progress, file)
	if len(f.Errors) != 1 {
		t.Errorf("errors = %q, want one", f.Errors)
	}
}

// TestWorkAfterCompact: after a compaction the facts say what happened
// since, and a handoff's summary has that work, not only the older summary.
func TestWorkAfterCompact(t *testing.T) {
	f := readFixture(t, "work-after-compact.jsonl", "/tmp/reader-e2e/c/proj")
	want := &handoff.Since{
		Prompts:       []string{"now the eviction policy"},
		Files:         []string{"evict.go"},
		Commands:      []string{`printf '%s  %s\n'   a   b > evict.log`},
		Errors:        []string{"`cat missing.txt`: exit 1: cat: missing.txt: No such file or directory"},
		LastAssistant: "evict.go adds the LRU policy; the eviction log is in evict.log. Next: tests for eviction.",
	}
	if f.Compactions != 1 || !reflect.DeepEqual(f.Since, want) {
		t.Errorf("%d compactions, since:\n got %+v\nwant %+v", f.Compactions, f.Since, want)
	}
	if want := []string{"cache.go", "evict.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	s := handoff.SummaryOf(f)
	for _, part := range []string{want.LastAssistant, "evict.go", "cat missing.txt", "Wrote cache.go (package cache)"} {
		if !strings.Contains(s, part) {
			t.Errorf("summary lacks %q:\n%s", part, s)
		}
	}
	if strings.Index(s, want.LastAssistant) > strings.Index(s, "Wrote cache.go") {
		t.Errorf("the older summary comes before the work since:\n%s", s)
	}
	if f.Tokens != 3500 {
		t.Errorf("tokens = %d, want 3500 (the last reply's usage)", f.Tokens)
	}
}

// TestSecondCompaction: at a second compaction the facts hold its summary
// and only what came after it.
func TestSecondCompaction(t *testing.T) {
	summary := func(text, ts string) string {
		return `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. Summary:\n` + text + `"},"timestamp":"` + ts + `"}`
	}
	f := read(t,
		summary("first", "2026-01-01T00:00:01Z"),
		withTime(prompt("between"), "2026-01-01T00:00:02Z"),
		summary("second", "2026-01-01T00:00:03Z"),
		withTime(prompt("after"), "2026-01-01T00:00:04Z"),
	)
	if f.CompactSummary != "second" || f.Compactions != 2 || !reflect.DeepEqual(f.Since.Prompts, []string{"after"}) {
		t.Errorf("summary %q, %d compactions, since %+v", f.CompactSummary, f.Compactions, f.Since)
	}
}

func withTime(line, ts string) string {
	return strings.TrimSuffix(line, "}") + `,"timestamp":"` + ts + `"}`
}

func TestTokensFromUsage(t *testing.T) {
	reply := func(model, usage string, side bool) string {
		s := `{"isSidechain":false,"type":"assistant","message":{"role":"assistant","model":"` + model + `","content":[{"type":"text","text":"x"}],"usage":` + usage + `}}`
		if side {
			s = strings.Replace(s, `"isSidechain":false`, `"isSidechain":true,"agentId":"a9"`, 1)
		}
		return s
	}
	f := read(t,
		reply("claude-opus-4-6", `{"input_tokens":3,"cache_read_input_tokens":150000,"cache_creation_input_tokens":2500,"output_tokens":9}`, false),
		reply("claude-haiku-4-5", `{"input_tokens":900000}`, true), // a subagent's
		reply("<synthetic>", `{"input_tokens":0}`, false),          // the client's stand-in
	)
	if f.Tokens != 152503 || f.Model != "claude-opus-4-6" {
		t.Errorf("tokens, model = %d, %q; want 152503, claude-opus-4-6", f.Tokens, f.Model)
	}
}

func TestPromptWrappers(t *testing.T) {
	f := read(t,
		prompt(`<ide_opened_file>The user opened the file /home/dev/proj/a.go in the IDE.</ide_opened_file>`),
		prompt(`<ide_selection>The user selected lines 1 to 3</ide_selection>\nfix this`),
		prompt(`<system-reminder>\nremember\n</system-reminder>`),
		prompt(`<ide_diagnostics>x</ide_diagnostics>   `),
		prompt(`a <b> tag stays`),
	)
	if want := []string{"fix this", "a <b> tag stays"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts = %q, want %q", f.Prompts, want)
	}
}

func TestJoinedRecords(t *testing.T) {
	a, b := prompt("first"), prompt("second")
	for name, line := range map[string]string{
		"run together": a + b,
		"with spaces":  a + "  " + b,
	} {
		f := read(t, line)
		if want := []string{"first", "second"}; !reflect.DeepEqual(f.Prompts, want) {
			t.Errorf("%s: prompts = %q, want %q", name, f.Prompts, want)
		}
	}
	// A record cut short, then a whole tool call: the call counts.
	f := read(t, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"te`+toolUse("w", "Write", `{"file_path":"/home/dev/proj/x.go"}`), result("w", "ok"))
	if want := []string{"x.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
}

// TestNotTranscript: what is not a transcript is recognised as such.
func TestNotTranscript(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"package.json":   "{\n  \"name\": \"x\",\n  \"type\": \"module\"\n}\n",
		"one-line.json":  `{"type":"module","message":"hi"}` + "\n",
		"codex.jsonl":    `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}` + "\n",
		"notes.md":       "# Notes\n\n- one\n",
		"blank.txt":      "\n\n",
		"only-meta.json": `{"type":"summary","summary":"x","leafUuid":"y"}` + "\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := ReadTranscriptFile(p, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := transcript.Recognised(f); !errors.Is(err, transcript.ErrNotTranscript) {
			t.Errorf("%s: Recognised = %v, want ErrNotTranscript", name, err)
		}
	}
	for _, name := range []string{"tools-and-compact.jsonl", "subagent.jsonl", "agent-progress.jsonl"} {
		if err := transcript.Recognised(readFixture(t, name, "")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An empty file is no error by itself (a session that has not begun):
	// the caller sees Bytes == 0.
	p := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(p, nil, 0o644)
	if f, err := ReadTranscriptFile(p, dir, nil); err != nil || transcript.Recognised(f) != nil || f.Bytes != 0 {
		t.Errorf("empty: %v", err)
	}
}

func TestTranscriptFiles(t *testing.T) {
	got := TranscriptFiles(filepath.Join("..", "..", "..", "testdata", "transcripts", "subagent.jsonl"))
	if len(got) != 2 || !strings.HasSuffix(got[1], filepath.Join("subagent", "subagents", "agent-afc3d2244de713367.jsonl")) {
		t.Errorf("files = %q", got)
	}
	if got := TranscriptFiles("/nowhere/x.jsonl"); !slices.Equal(got, []string{"/nowhere/x.jsonl"}) {
		t.Errorf("files = %q", got)
	}
}

// TestFileTouchedAgainSinceCompaction: a file edited before a compaction
// and again after it is work since the compaction.
func TestFileTouchedAgainSinceCompaction(t *testing.T) {
	summary := `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"Summary:\nwrote a.go"},"timestamp":"2026-01-01T00:00:05Z"}`
	f := read(t,
		withTime(toolUse("1", "Edit", `{"file_path":"/home/dev/proj/a.go"}`), "2026-01-01T00:00:01Z"),
		withTime(result("1", "ok"), "2026-01-01T00:00:02Z"),
		withTime(toolUse("2", "Edit", `{"file_path":"/home/dev/proj/b.go"}`), "2026-01-01T00:00:03Z"),
		withTime(result("2", "ok"), "2026-01-01T00:00:04Z"),
		summary,
		withTime(toolUse("3", "Edit", `{"file_path":"/home/dev/proj/a.go"}`), "2026-01-01T00:00:06Z"),
		withTime(result("3", "ok"), "2026-01-01T00:00:07Z"),
	)
	if want := []string{"a.go", "b.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	if want := []string{"a.go"}; f.Since == nil || !reflect.DeepEqual(f.Since.Files, want) {
		t.Errorf("since = %+v, want files %q", f.Since, want)
	}
}
