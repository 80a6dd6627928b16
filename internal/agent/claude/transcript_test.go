package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

func readFixture(t testing.TB, name, root string) *handoff.Facts {
	t.Helper()
	f, err := ReadTranscriptFile(filepath.Join("..", "..", "..", "testdata", "transcripts", name), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadTranscriptToolsAndCompact(t *testing.T) {
	f := readFixture(t, "tools-and-compact.jsonl", "/tmp/rec1/proj")
	want := &handoff.Facts{
		Files: []string{"src/auth/token.go"},
		State: handoff.State{
			Plan: []handoff.Task{
				{ID: "1", Subject: "Add token refresh endpoint", Status: "completed"},
				{ID: "2", Subject: "Write logout endpoint", Status: "in_progress"},
			},
			Checks: []handoff.Check{{Command: "go test ./...", Outcome: handoff.Failed}},
		},
		// ls only looks; go test ran once, and failed.
		Commands: []string{"go version", "go test ./..."},
		LookOnly: 1,
		Errors:   []string{"`go test ./...`: exit 1: pattern ./...: directory prefix . does not contain main module or its selected dependencies"},
		Started:  "2026-11-22T15:05:35.052Z",
		// Not the /compact command, its caveat, its output or the summary.
		Prompts:        []string{"Add the token refresh endpoint, then the logout one"},
		LastAssistant:  "The refresh endpoint is written in src/auth/token.go. go test fails because the module has no go.mod yet; the logout endpoint is next.",
		CompactSummary: "Wrote the refresh endpoint in src/auth/token.go; go test fails (no go.mod). Next: logout.",
		// The compaction came last: nothing happened after it.
		Compactions: 1,
		Since:       &handoff.Since{},
		Model:       "claude-opus-5-5",
		// What was in context went with the compaction; no reply came after.
		Tokens:  0,
		Records: 24,
		Lines:   75,
		Bytes:   202799,
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("facts:\n got %+v\nwant %+v", f, want)
	}
}

func TestReadTranscriptMultilinePrompt(t *testing.T) {
	f := readFixture(t, "multiline-prompt.jsonl", "/tmp/rec2/proj")
	want := &handoff.Facts{
		// The failed NotebookEdit, MultiEdit and Edit touched nothing; the
		// later Edit and NotebookEdit did.
		Files:    []string{"README.md", "analysis.ipynb"},
		Commands: []string{"cat > notes.txt <<'EOF' … (+3 lines)"},
		Errors: []string{
			"NotebookEdit analysis.ipynb: File has not been read yet. Read it first before writing to it.",
			"MultiEdit README.md: Error: No such tool available: MultiEdit",
			"TodoWrite: Error: No such tool available: TodoWrite. TodoWrite is disabled for this session, in subagents as well as here.",
			"Edit README.md: String to replace not found in file.",
		},
		Prompts: []string{
			"Fix the login bug.\n\nSteps:\n1. reproduce it\n2. fix it in README.md\n\nThanks!",
			"Keep the README short, please. Also set the notebook cell to print(2).",
		},
		LastAssistant: "Understood: I will keep the README short. The notebook now prints 2.",
		Started:       "2026-11-22T15:06:48.411Z",
		Model:         "claude-opus-5-5",
		Tokens:        1000,
		Records:       20,
		Lines:         68,
		Bytes:         180603,
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("facts:\n got %+v\nwant %+v", f, want)
	}
}

func TestReadTranscriptDemo(t *testing.T) {
	f := readFixture(t, "demo.jsonl", "/tmp/rec3/shop")
	if want := []string{"price.go", "price_test.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	wantTasks := []handoff.Task{{ID: "1", Subject: "Add FormatPrice", Status: "completed"}, {ID: "2", Subject: "Test FormatPrice", Status: "completed"}}
	if !reflect.DeepEqual(f.Plan, wantTasks) {
		t.Errorf("tasks = %+v", f.Plan)
	}
	if want := []string{"go mod init example.com/shop", "go test ./..."}; !reflect.DeepEqual(f.Commands, want) {
		t.Errorf("commands = %q, want %q", f.Commands, want)
	}
	// The failing run was followed by a passing one: resolved.
	if want := []string{"`go test ./...`: exit 1: --- FAIL: TestFormatPrice (0.00s) (resolved: passed later)"}; !reflect.DeepEqual(f.Errors, want) {
		t.Errorf("errors = %q, want %q", f.Errors, want)
	}
	if want := []handoff.Check{{Command: "go test ./...", Outcome: handoff.Passed, FailedBefore: true}}; !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks = %+v, want %+v", f.Checks, want)
	}
	// Outside the root, paths stay absolute, apart from the files touched.
	g := readFixture(t, "demo.jsonl", "/elsewhere")
	if want := []string{"/tmp/rec3/shop/price.go", "/tmp/rec3/shop/price_test.go"}; !reflect.DeepEqual(g.Outside, want) || len(g.Files) != 0 {
		t.Errorf("files outside root = %q (files %q), want %q", g.Outside, g.Files, want)
	}
}

// Lines in the shapes the client writes, for tools this client lacks
// (MultiEdit, TodoWrite) and cases the recordings do not hold.
const (
	synthPrompt    = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"PROMPT"},"uuid":"u1"}`
	synthToolUse   = `{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"ID","name":"NAME","input":INPUT}]},"type":"assistant","uuid":"a"}`
	synthResult    = `{"parentUuid":"a","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"ID","type":"tool_result","content":"RESULT"}]},"uuid":"r"}`
	synthErrResult = `{"parentUuid":"a","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"RESULT","is_error":true,"tool_use_id":"ID"}]},"uuid":"r"}`
)

func toolUse(id, name, input string) string {
	return strings.NewReplacer("ID", id, "NAME", name, "INPUT", input).Replace(synthToolUse)
}

func result(id, text string) string {
	return strings.NewReplacer("ID", id, "RESULT", text).Replace(synthResult)
}

func prompt(text string) string { return strings.Replace(synthPrompt, "PROMPT", text, 1) }

func read(t *testing.T, lines ...string) *handoff.Facts {
	t.Helper()
	f, err := readTranscript(strings.NewReader(strings.Join(lines, "\n")+"\n"), "/home/dev/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadTranscriptOtherTools(t *testing.T) {
	f := read(t,
		toolUse("t1", "MultiEdit", `{"file_path":"/home/dev/proj/a.go","edits":[{"old_string":"a","new_string":"b"}]}`),
		result("t1", "Applied 1 edit"),
		toolUse("t2", "NotebookEdit", `{"notebook_path":"/home/dev/proj/nb/x.ipynb","new_source":"1"}`),
		result("t2", "Updated cell"),
		toolUse("t3", "TodoWrite", `{"todos":[{"content":"old","status":"pending"}]}`),
		result("t3", "ok"),
		// TodoWrite replaces the whole list.
		toolUse("t4", "TodoWrite", `{"todos":[{"content":"Reproduce","status":"completed","activeForm":"R"},{"content":"Fix","status":"in_progress","activeForm":"F"}]}`),
		result("t4", "ok"),
		toolUse("t5", "Write", `{"file_path":"/home/dev/proj/a.go","content":"x"}`),
		result("t5", "ok"),
		toolUse("t6", "Write", `{"file_path":"../other/b.go","content":"x"}`),
		result("t6", "ok"),
		// No result yet: the session stopped mid-call; the write counts.
		toolUse("t7", "Edit", `{"file_path":"/home/dev/proj/c.go","old_string":"a","new_string":"b"}`),
	)
	if want := []string{"a.go", "nb/x.ipynb", "c.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	if want := []string{"../other/b.go"}; !reflect.DeepEqual(f.Outside, want) {
		t.Errorf("outside = %q, want %q", f.Outside, want)
	}
	if want := []string{"Edit c.go"}; !reflect.DeepEqual(f.InFlight, want) {
		t.Errorf("in flight = %q, want %q", f.InFlight, want)
	}
	if want := []handoff.Task{{Subject: "Reproduce", Status: "completed"}, {Subject: "Fix", Status: "in_progress"}}; !reflect.DeepEqual(f.Plan, want) {
		t.Errorf("tasks = %+v, want %+v", f.Plan, want)
	}
}

func TestReadTranscriptTasks(t *testing.T) {
	f := read(t,
		toolUse("c1", "TaskCreate", `{"subject":"One","description":"d","activeForm":"a"}`),
		result("c1", "Task #7 created successfully: One"),
		toolUse("c2", "TaskCreate", `{"subject":"Two"}`),
		strings.NewReplacer("ID", "c2", "RESULT", "boom").Replace(synthErrResult), // failed: no task
		toolUse("c3", "TaskCreate", `{"subject":"Three"}`),
		result("c3", "Task #8 created successfully: Three"),
		toolUse("u1", "TaskUpdate", `{"taskId":"7","status":"completed"}`),
		result("u1", "Updated task #7 status"),
		toolUse("u2", "TaskUpdate", `{"taskId":8,"subject":"Three, renamed"}`), // number id, no status
		result("u2", "Updated task #8 subject"),
		toolUse("u3", "TaskUpdate", `{"taskId":"99","status":"completed"}`), // unknown: ignored
		result("u3", "ok"),
	)
	want := []handoff.Task{{ID: "7", Subject: "One", Status: "completed"}, {ID: "8", Subject: "Three, renamed", Status: "pending"}}
	if !reflect.DeepEqual(f.Plan, want) {
		t.Errorf("tasks = %+v, want %+v", f.Plan, want)
	}
	if want := []string{"TaskCreate: boom"}; !reflect.DeepEqual(f.Errors, want) {
		t.Errorf("errors = %q, want %q", f.Errors, want)
	}
}

func TestReadTranscriptPromptsAndText(t *testing.T) {
	f := read(t,
		prompt(`first`),
		`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>"},"uuid":"x"}`,
		`{"type":"user","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}`,
		`{"type":"user","message":{"role":"user","content":"injected"},"isMeta":true}`,
		`{"isSidechain":true,"type":"user","message":{"role":"user","content":"subagent task"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"with an image"},{"type":"image","source":{}}]}}`,
		`{"type":"user","message":{"role":"user","content":"   "}}`,
		`{"message":{"role":"assistant","model":"m","content":[{"type":"text","text":"answer one"}]},"type":"assistant"}`,
		`{"message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"ls -la | head"}}]},"type":"assistant"}`,
		`{"message":{"role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error"}]},"type":"assistant"}`,
		`{"isSidechain":true,"message":{"role":"assistant","model":"m","content":[{"type":"text","text":"subagent says"}]},"type":"assistant"}`,
		`{"type":"user","message":{"role":"user","content":"<analysis>x</analysis><summary>Older summary</summary>"},"isCompactSummary":true}`,
		`{"type":"user","message":{"role":"user","content":"<analysis>x</analysis>\n<summary>\nNewest summary\n</summary>"},"isCompactSummary":true}`,
	)
	if want := []string{"first", "with an image"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts = %q, want %q", f.Prompts, want)
	}
	if f.LastAssistant != "answer one" {
		t.Errorf("last assistant = %q", f.LastAssistant)
	}
	if f.CompactSummary != "Newest summary" {
		t.Errorf("compact summary = %q", f.CompactSummary)
	}
	if len(f.Commands) != 0 {
		t.Errorf("trivial command kept: %q", f.Commands)
	}
}

func TestReadTranscriptBadLines(t *testing.T) {
	in := strings.Join([]string{
		prompt("kept one"),
		"",
		"not json at all",
		"\x00\xff\xfe garbage",
		`[1,2,3]`,
		`null`,
		`{"type":"user"`,
		`{"type":"future-entry","message":{"role":"user","content":"not a prompt"}}`,
		`{"type":"api-request-blob","message":{"role":"user","content":"not a prompt"}}`,
		`{"parentUuid":null,"attachment":{"type":"file","content":"x"},"message":{"role":"user","content":"nor this"},"type":"attachment"}`,
		`{"type":"user","message":{"role":"user","content":42}}`,
		`{"type":"user","message":"just a string"}`,
		`{"type":"assistant","message":{"role":"assistant","content":{"type":"text"}}}`,
		// A line cut mid-write, then the next entry appended to it.
		`{"type":"user","message":{"role":"user","content":"cut {"type":"user","message":{"role":"user","content":"joined"}}`,
		prompt("kept two"),
		// The last line, cut mid-write: never read as a prompt.
		`{"type":"user","message":{"role":"user","content":"cut sh`,
	}, "\n")
	f, err := readTranscript(strings.NewReader(in), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The whole record after the cut one is recovered.
	if want := []string{"kept one", "joined", "kept two"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts = %q, want %q", f.Prompts, want)
	}
	if f.Lines != 16 || f.Bytes != int64(len(in)) {
		t.Errorf("lines, bytes = %d, %d; want 16, %d", f.Lines, f.Bytes, len(in))
	}
	// A complete last line without a newline is read.
	f, _ = readTranscript(strings.NewReader(prompt("no newline")), "", nil)
	if want := []string{"no newline"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts = %q, want %q", f.Prompts, want)
	}
}

func TestReadTranscriptTruncatedRecording(t *testing.T) {
	src, err := os.ReadFile("../../../testdata/transcripts/tools-and-compact.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the line holding the final assistant text.
	i := bytes.Index(src, []byte(`"text":"The refresh endpoint is written`))
	if i < 0 {
		t.Fatal("fixture changed")
	}
	f, err := readTranscript(bytes.NewReader(src[:i+20]), "/tmp/rec1/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.LastAssistant != "" || f.CompactSummary != "" || len(f.Plan) != 2 {
		t.Errorf("truncated: last=%q summary=%q tasks=%d", f.LastAssistant, f.CompactSummary, len(f.Plan))
	}
}

// lineSource streams n bytes of one line (head, then filler) without
// holding it.
type lineSource struct {
	head    string
	n, done int
	tail    string
}

func (s *lineSource) Read(p []byte) (int, error) {
	if s.done >= s.n+len(s.tail) {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && s.done < s.n+len(s.tail) {
		switch {
		case s.done < len(s.head):
			p[k] = s.head[s.done]
		case s.done < s.n:
			p[k] = 'x'
		default:
			p[k] = s.tail[s.done-s.n]
		}
		k++
		s.done++
	}
	return k, nil
}

func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestReadTranscriptHugeLines(t *testing.T) {
	end := `"}]}}` + "\n" + prompt("after") + "\n"
	cases := []struct {
		name     string
		head     string
		size     int
		skipped  int
		maxAlloc uint64
	}{
		// A request blob is dropped from its first bytes: never copied.
		{"blob", `{"type":"api-request-blob","body":"`, 200 << 20, 0, 1 << 20},
		// A tool result over the limit is held up to the limit, then dropped.
		{"result", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"`, 100 << 20, 1, 2*transcript.MaxLineBytes + 1<<20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := &lineSource{head: c.head, n: c.size, tail: end}
			var f *handoff.Facts
			var err error
			n := allocated(func() {
				f, err = readTranscript(io.MultiReader(strings.NewReader(prompt("before")+"\n"), src), "", nil)
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"before", "after"}; !reflect.DeepEqual(f.Prompts, want) {
				t.Errorf("prompts = %q, want %q", f.Prompts, want)
			}
			if f.SkippedLines != c.skipped || f.Lines != 3 {
				t.Errorf("skipped %d of %d lines, want %d of 3", f.SkippedLines, f.Lines, c.skipped)
			}
			t.Logf("allocated %d KiB", n>>10)
			if n > c.maxAlloc {
				t.Errorf("allocated %d MiB reading a %d MiB line, want at most %d MiB", n>>20, c.size>>20, c.maxAlloc>>20)
			}
		})
	}
	// Under the limit, a big relevant line is decoded.
	big := toolUse("w", "Write", `{"file_path":"/home/dev/proj/big.txt","content":"`+strings.Repeat("y", 5<<20)+`"}`)
	f := read(t, big, result("w", "ok"))
	if want := []string{"big.txt"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
}

func TestWants(t *testing.T) {
	for line, want := range map[string]bool{
		`{"type":"user","message":{}}`:                                          true,
		`{"type":"assistant"}`:                                                  true,
		`{"type":"api-request-blob","x":1}`:                                     false,
		`{"type":"queue-operation","content":"a prompt"}`:                       false,
		` { "type" : "system" }`:                                                false,
		`{"parentUuid":null,"isSidechain":false,"attachment":{"type":"user"}}`:  false,
		`{"parentUuid":"a","isSidechain":false,"message":{"role":"assistant"}}`: true,
		`{"parentUuid":"a","meta":{"type":"x"},"type":"user"}`:                  true,
		`{"parentUuid":"a\"type\":\"x","type":"user"}`:                          true,
		`{"n":1.5e3,"ok":true,"z":null,"arr":[1,{"b":"]"}],"type":"assistant"}`: true,
		`{"parentUuid":"` + strings.Repeat("a", 2000) + `","type":"mode"}`:      true, // undecided: decode it
		`garbage`: false,
		``:        false,
		`{`:       true,
	} {
		if got := (&collector{}).Wants([]byte(line)); got != want {
			t.Errorf("Wants(%.60q) = %v, want %v", line, got, want)
		}
	}
}

func TestReadTranscriptListsBounded(t *testing.T) {
	var lines []string
	n := 3 * transcript.MaxFiles
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("id%d", i)
		lines = append(lines,
			toolUse(id, "Write", `{"file_path":"/home/dev/proj/`+id+`.go"}`), result(id, "ok"),
			toolUse(id+"b", "Bash", `{"command":"make `+id+`"}`),
			prompt("p"+id))
	}
	f := read(t, lines...)
	if len(f.Files) != transcript.MaxFiles || len(f.Commands) != transcript.MaxCommands || len(f.Prompts) != transcript.MaxPrompts {
		t.Fatalf("lists: %d files, %d commands, %d prompts", len(f.Files), len(f.Commands), len(f.Prompts))
	}
	// The last entries are kept, in order.
	if got, want := f.Files[0], fmt.Sprintf("id%d.go", n-transcript.MaxFiles); got != want {
		t.Errorf("first file kept = %q, want %q", got, want)
	}
	if got, want := f.Prompts[transcript.MaxPrompts-1], fmt.Sprintf("pid%d", n-1); got != want {
		t.Errorf("last prompt = %q, want %q", got, want)
	}
	if got, want := f.Commands[0], fmt.Sprintf("make id%d", n-transcript.MaxCommands); got != want {
		t.Errorf("first command kept = %q, want %q", got, want)
	}
}

func TestReadTranscriptFileNotRegular(t *testing.T) {
	if _, err := ReadTranscriptFile(t.TempDir(), "", nil); err == nil {
		t.Error("a directory was read as a transcript")
	}
	if _, err := ReadTranscriptFile(filepath.Join(t.TempDir(), "missing.jsonl"), "", nil); err == nil {
		t.Error("a missing file was read")
	}
}

// TestReadTranscriptRedactsBeforeCutting: a secret longer than what a
// handoff keeps of a command, an error, a prompt, a task or the last
// assistant text is redacted whole, before the cut could split it into a
// fragment no rule knows.
func TestReadTranscriptRedactsBeforeCutting(t *testing.T) {
	secret := "SECRET" + strings.Repeat("x", 5000) + "END"
	calls := 0
	red := func(s string) string {
		calls++
		return strings.ReplaceAll(s, secret, "[REDACTED:test]")
	}
	long := strings.Repeat("word ", 100) // pushes the secret across every cut
	text := long + secret
	synthErr := strings.NewReplacer("ID", "b1", "RESULT", "Exit code 1\\n"+text).Replace(synthErrResult)
	assistant := strings.Replace(strings.Replace(synthToolUse, `{"type":"tool_use","id":"ID","name":"NAME","input":INPUT}`, `{"type":"text","text":"`+text+`"}`, 1), "ID", "x", 1)
	lines := []string{
		prompt(strings.Repeat("p", 1990) + " " + secret),
		toolUse("b1", "Bash", `{"command":"deploy --token `+secret+`"}`),
		synthErr,
		toolUse("c1", "TaskCreate", `{"subject":"`+long+secret+`"}`),
		result("c1", "Task #1 created successfully"),
		toolUse("d1", "TodoWrite", `{"todos":[{"content":"`+long+secret+`","status":"pending"}]}`),
		result("d1", "ok"),
		assistant,
	}
	f, err := readTranscript(strings.NewReader(strings.Join(lines, "\n")+"\n"), "/home/dev/proj", red)
	if err != nil {
		t.Fatal(err)
	}
	all := append(append(append([]string{f.LastAssistant}, f.Prompts...), f.Commands...), f.Errors...)
	for _, task := range f.Plan {
		all = append(all, task.Subject)
	}
	for _, s := range all {
		if strings.Contains(s, "SECRETxxx") {
			t.Errorf("a fragment of the secret survived: %.120q", s)
		}
	}
	joined := strings.Join(all, "\n")
	if n := strings.Count(joined, "[REDACTED:test]"); n < 3 {
		t.Errorf("%d markers in what was kept, want the secret's place marked:\n%s", n, joined)
	}
	if calls == 0 {
		t.Fatal("the redaction function was never called")
	}
	// Without it, the same transcript keeps fragments: the test can fail.
	plain, _ := readTranscript(strings.NewReader(strings.Join(lines, "\n")+"\n"), "/home/dev/proj", nil)
	if !strings.Contains(strings.Join(plain.Commands, ""), "SECRETxxx") {
		t.Fatal("without redaction the command should keep a fragment of the secret")
	}
}

// TestFactsFixture: handoff's tests build handoffs from the facts of the
// recorded session, kept as JSON beside them; they must be what this reader
// makes of that session.
func TestFactsFixture(t *testing.T) {
	f := readFixture(t, "tools-and-compact.jsonl", "/tmp/rec1/proj")
	if *testkit.Update {
		out, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../../../handoff/testdata/tools-and-compact.facts.json", append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile("../../../handoff/testdata/tools-and-compact.facts.json")
	if err != nil {
		t.Fatal(err)
	}
	var want handoff.Facts
	if err := json.Unmarshal(src, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*f, want) {
		t.Errorf("the reader's facts differ from handoff/testdata/tools-and-compact.facts.json:\n got %+v\nwant %+v", *f, want)
	}
}

// A check whose status says nothing failed is read from its output: a
// runner's failure there, written plainly or behind a \u escape, fails it;
// an output that cannot hold one (whose text is then never made) passes.
func TestCheckVerdictFromOutput(t *testing.T) {
	for _, tc := range []struct {
		name, output string // output: a JSON string
		want         string
	}{
		{"plain failure", `"=== RUN   TestX\n--- FAIL: TestX (0.00s)\nok  \tother\t0.1s"`, handoff.Failed},
		{"escaped failure", `"=== RUN   TestX\n--- \u0046AIL: TestX (0.00s)"`, handoff.Failed},
		{"in a text block", `[{"type":"text","text":"FAIL\texample.com/x\t0.1s"}]`, handoff.Failed},
		{"passed", `"ok  \texample.com/x\t0.1s\n\u2713 done"`, handoff.Passed},
		{"long and quiet", `"` + strings.Repeat(`ok  \texample.com/x\t0.1s \"quoted\"\n`, 20000) + `"`, handoff.Passed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"type":"assistant","timestamp":"2026-11-22T10:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./... ; echo done"}}]}}` + "\n" +
				`{"type":"user","timestamp":"2026-11-22T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"content":` + tc.output + `}]}}` + "\n"
			f, err := readTranscript(strings.NewReader(src), "/tmp/p", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Checks) != 1 || f.Checks[0].Outcome != tc.want {
				t.Errorf("checks = %+v, want one %s", f.Checks, tc.want)
			}
		})
	}
}
