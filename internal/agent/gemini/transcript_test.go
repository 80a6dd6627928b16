package gemini

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// The chat files in testdata/gemini come from the real Gemini CLI 0.61.0:
// chat-sample.jsonl is /work/shared/e2e/samples/gemini-chat.jsonl (a run,
// a resume, a compression); chat-tools-resume-compress.jsonl was recorded
// for this package with /work/shared/e2e/gemini-e2e (project root
// /tmp/gemrec/out/proj): run 1 writes src/made.go, patches app.txt, runs
// a failing `go test`, a replace that fails and `ls -la`; run 2 resumes,
// reports 900,000 prompt tokens and is compressed; run 3 resumes again.
const (
	testdataDir = "../../../testdata/gemini"
	recRoot     = "/tmp/gemrec/out/proj"
	toolsChat   = "chat-tools-resume-compress.jsonl"
	sampleChat  = "chat-sample.jsonl"
)

func readChat(t testing.TB, name string) []byte {
	return testkit.ReadFile(t, filepath.Join(testdataDir, name))
}

func decode(t testing.TB, chat []byte, root string, red func(string) string) *handoff.Facts {
	t.Helper()
	f, err := transcript.Read(bytes.NewReader(chat), newDecoder(root, red))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDecoderRealSession(t *testing.T) {
	f := decode(t, readChat(t, toolsChat), recRoot, nil)
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, got, want)
		}
	}
	check("files", f.Files, []string{"src/made.go", "app.txt"})
	check("commands", f.Commands, []string{`go test ./... && echo "done"`}) // ls -la only looks
	check("look only", f.LookOnly, 1)
	check("checks", f.Checks, []handoff.Check{{Command: `go test ./...`, Outcome: handoff.Failed}})
	check("prompts", f.Prompts, []string{`fix the <token> "refresh"`, "check app.txt", "and now?"})
	check("last reply", f.LastAssistant, "third turn reply")
	check("summary", f.CompactSummary, "SUMMARY-TEXT: app.txt was patched; go test fails.")
	check("model", f.Model, "gemini-3.8-flash")
	check("tokens", f.Tokens, 1000)
	if len(f.Errors) != 2 {
		t.Fatalf("errors: %q, want the failing go test and the failing replace", f.Errors)
	}
	if !strings.HasPrefix(f.Errors[0], "`go test ./... && echo \"done\"`: exit 1: pattern ./...: directory prefix") {
		t.Errorf("shell error: %q", f.Errors[0])
	}
	if !strings.HasPrefix(f.Errors[1], "replace app.txt: Could not find an exact match for 'old_string'") {
		t.Errorf("replace error: %q", f.Errors[1])
	}
	for _, e := range f.Errors {
		if strings.Contains(e, "<untrusted_context>") || strings.Contains(e, "PGID") {
			t.Errorf("error line carries the tool's wrapping: %q", e)
		}
	}
	if f.Lines != 54 || f.SkippedLines != 0 {
		t.Errorf("lines %d skipped %d, want 54 and 0", f.Lines, f.SkippedLines)
	}
}

func TestDecoderSharedSample(t *testing.T) {
	// Paths outside the root stay absolute; a prompt whose BeforeAgent
	// context came as a second part loses it too.
	f := decode(t, readChat(t, sampleChat), "/elsewhere", nil)
	if want := []string{"/home/dev/sandbox/proj/made.txt", "/home/dev/sandbox/proj/app.txt"}; !slices.Equal(f.Outside, want) || len(f.Files) != 0 {
		t.Errorf("outside %q (files %q), want %q", f.Outside, f.Files, want)
	}
	if want := []string{"edit app.txt", "check app.txt"}; !slices.Equal(f.Prompts, want) {
		t.Errorf("prompts %q, want %q", f.Prompts, want)
	}
	if f.CompactSummary != "SUMMARY-TEXT: app.txt was patched in the first turn." || f.LastAssistant != "Resumed after compression." {
		t.Errorf("summary %q, last reply %q", f.CompactSummary, f.LastAssistant)
	}
	if len(f.Errors) != 0 || len(f.Commands) != 0 {
		t.Errorf("errors %q commands %q, want none", f.Errors, f.Commands)
	}
	// The same session with the root it ran in.
	f = decode(t, readChat(t, sampleChat), "/home/dev/sandbox/proj", nil)
	if want := []string{"made.txt", "app.txt"}; !slices.Equal(f.Files, want) {
		t.Errorf("files %q, want %q", f.Files, want)
	}
}

// TestDecoderStateRoundTrip reads a chat in two halves, the decoder's state
// passing through JSON between them, and gets what one read gets.
func TestDecoderStateRoundTrip(t *testing.T) {
	for _, name := range []string{toolsChat, sampleChat} {
		chat := readChat(t, name)
		whole := decode(t, chat, recRoot, upper)
		lines := bytes.SplitAfter(chat, []byte("\n"))
		for cut := 0; cut <= len(lines); cut += 7 {
			f := readSplit(t, chat, len(bytes.Join(lines[:cut], nil)), upper)
			f.Lines, f.Bytes = whole.Lines, whole.Bytes // counted by each read
			if !reflect.DeepEqual(f, whole) {
				t.Errorf("%s cut at line %d: after a JSON round trip\n got %+v\nwant %+v", name, cut, f, whole)
			}
		}
	}
}

// readSplit reads chat[:at], passes the decoder's state through JSON, and
// reads the rest with the decoder restored from it.
func readSplit(t testing.TB, chat []byte, at int, red func(string) string) *handoff.Facts {
	t.Helper()
	d := newDecoder(recRoot, red)
	if _, err := transcript.Read(bytes.NewReader(chat[:at]), d); err != nil {
		t.Fatal(err)
	}
	state, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	back := newDecoder(recRoot, red)
	if err := json.Unmarshal(state, back); err != nil {
		t.Fatalf("state does not round-trip: %v", err)
	}
	f, err := transcript.Read(bytes.NewReader(chat[at:]), back)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// upper stands in for the redactor: every text it sees comes out in capitals.
func upper(s string) string { return strings.ToUpper(s) }

func TestDecoderRedactsBeforeCutting(t *testing.T) {
	var seen []string
	red := func(s string) string {
		seen = append(seen, s)
		return strings.ReplaceAll(s, "hunter2", "[REDACTED]")
	}
	long := strings.Repeat("x", transcript.MaxPromptRunes-3) + " hunter2 and more"
	chat := strings.Join([]string{
		`{"id":"u1","timestamp":"t","type":"user","content":[{"text":` + quote(long) + `}]}`,
		`{"id":"g1","timestamp":"t","type":"gemini","content":"the password is hunter2","tokens":{"input":5,"output":1,"total":6},"model":"m","toolCalls":[` +
			`{"id":"c1","name":"run_shell_command","args":{"command":"echo hunter2 | login"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: bad hunter2\nExit Code: 2\n"}}}],"status":"success"}]}`,
	}, "\n")
	f := decode(t, []byte(chat), "", red)
	all := strings.Join(append(append(append([]string{f.LastAssistant}, f.Prompts...), f.Commands...), f.Errors...), "\n")
	if strings.Contains(all, "hunter2") {
		t.Fatalf("a secret was kept: %q", all)
	}
	// The prompt was redacted whole, then cut: the redactor saw the secret.
	if !slices.ContainsFunc(seen, func(s string) bool { return strings.HasSuffix(s, "hunter2 and more") }) {
		t.Errorf("the redactor did not see the prompt before the cut")
	}
	if f.Errors[0] != "`echo [REDACTED] | login`: exit 2: bad [REDACTED]" {
		t.Errorf("error %q", f.Errors[0])
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestDecoderCases(t *testing.T) {
	tests := []struct {
		name  string
		chat  []string
		check func(t *testing.T, f *handoff.Facts)
	}{{
		name: "a model record written again as its calls complete counts each call once",
		chat: []string{
			`{"id":"g1","type":"gemini","content":"","tokens":{"input":7},"model":"m","toolCalls":[{"id":"c1","name":"write_file","args":{"file_path":"/r/a.go"},"status":"error","result":[{"functionResponse":{"response":{"error":"disk full"}}}]}]}`,
			`{"id":"g1","type":"gemini","content":"","tokens":{"input":7},"model":"m","toolCalls":[{"id":"c1","name":"write_file","args":{"file_path":"/r/a.go"},"status":"error","result":[{"functionResponse":{"response":{"error":"disk full"}}}]},{"id":"c2","name":"replace","args":{"file_path":"/r/b.go"},"status":"success"}]}`,
		},
		check: func(t *testing.T, f *handoff.Facts) {
			if !slices.Equal(f.Errors, []string{"write_file a.go: disk full"}) || !slices.Equal(f.Files, []string{"b.go"}) {
				t.Errorf("errors %q files %q", f.Errors, f.Files)
			}
		},
	}, {
		name: "a cancelled call touched nothing and is no error; a shell exit 0 is no error",
		chat: []string{
			`{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"write_file","args":{"file_path":"/r/a.go"},"status":"cancelled"},` +
				`{"id":"c2","name":"run_shell_command","args":{"command":"make\n\n  make install \\\n    --prefix /usr"},"status":"success","result":[{"functionResponse":{"response":{"output":"Output: ok\nExit Code: 0"}}}]}]}`,
		},
		check: func(t *testing.T, f *handoff.Facts) {
			if len(f.Files) != 0 || len(f.Errors) != 0 || !slices.Equal(f.Commands, []string{"make … (+2 lines)"}) {
				t.Errorf("files %q errors %q commands %q", f.Files, f.Errors, f.Commands)
			}
		},
	}, {
		name: "prompts: hook context stripped, tool results and the session context skipped, a repeated id once",
		chat: []string{
			`{"$set":{"messages":[{"id":"s","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]}]}}`,
			`{"id":"u1","type":"user","content":[{"text":"<hook_context>continuity: goal &lt;x&gt;</hook_context>\n\nfix it"},{"text":"<hook_context>continuity: refresh</hook_context>"}]}`,
			`{"id":"u1","type":"user","content":[{"text":"fix it"}]}`,
			`{"id":"u2","type":"user","content":[{"functionResponse":{"id":"c","name":"x","response":{"output":"file text"}}}]}`,
			`{"id":"u3","type":"user","content":"plain string prompt"}`,
			`{"id":"u4","type":"user","content":[{"text":"<hook_context>only context</hook_context>"}]}`,
		},
		check: func(t *testing.T, f *handoff.Facts) {
			if want := []string{"fix it", "plain string prompt"}; !slices.Equal(f.Prompts, want) {
				t.Errorf("prompts %q, want %q", f.Prompts, want)
			}
		},
	}, {
		name: "the last reply is the last model text; thoughts and empty replies do not replace it",
		chat: []string{
			`{"id":"g1","type":"gemini","content":"first answer"}`,
			`{"id":"g2","type":"gemini","content":[{"text":"second answer"},{"text":"thinking","thought":true}]}`,
			`{"id":"g3","type":"gemini","content":"","tokens":{"input":42},"model":"gemini-x"}`,
		},
		check: func(t *testing.T, f *handoff.Facts) {
			if f.LastAssistant != "second answer" || f.Tokens != 42 || f.Model != "gemini-x" {
				t.Errorf("last %q tokens %d model %q", f.LastAssistant, f.Tokens, f.Model)
			}
		},
	}, {
		name: "a line cut mid-write and garbage say nothing",
		chat: []string{
			`{"id":"g1","type":"gemini","content":"kept"}`,
			`not json`, `[1,2]`, `{"id":"g2","type":"gemini","content":"cut sh`,
		},
		check: func(t *testing.T, f *handoff.Facts) {
			if f.LastAssistant != "kept" {
				t.Errorf("last %q", f.LastAssistant)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, decode(t, []byte(strings.Join(tt.chat, "\n")), "/r", nil))
		})
	}
}

func TestDecoderWants(t *testing.T) {
	d := newDecoder("", nil)
	for head, want := range map[string]bool{
		`{"$set":{"lastUpdated":"2026-11-23T17:41:07.173Z"}}`:                                  false,
		`{"$set":{"messages":[]}}`:                                                             true,
		`{"sessionId":"3","projectHash":"1","startTime":"x","lastUpdated":"x","kind":"main"}`:  false,
		`{"$rewindTo":"abc"}`:                                                                  false,
		`{"id":"7","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c"}}]}`: false,
		`{"id":"7","timestamp":"t","type":"user","content":[{"text":"hi"}]}`:                   true,
		`{"id":"7","timestamp":"t","type":"gemini","content":""}`:                              true,
	} {
		if got := d.Wants([]byte(head)); got != want {
			t.Errorf("Wants(%s) = %v, want %v", head, got, want)
		}
	}
	// What Wants skips changes nothing: the facts equal those of a decoder
	// that takes every record.
	chat := readChat(t, toolsChat)
	all := decode(t, chat, recRoot, nil)
	d = newDecoder(recRoot, nil)
	for _, line := range bytes.Split(chat, []byte("\n")) {
		if len(line) > 0 {
			d.Record(line)
		}
	}
	f := d.Facts()
	if f.Records < all.Records || all.Records == 0 {
		t.Errorf("records understood: %d fed every record, %d fed what Wants takes", f.Records, all.Records)
	}
	// Lines and bytes are the engine's count; records, what the decoder was fed.
	f.Lines, f.Bytes, f.Records = all.Lines, all.Bytes, all.Records
	if !reflect.DeepEqual(f, all) {
		t.Errorf("with every record\n got %+v\nwant %+v", f, all)
	}
}
