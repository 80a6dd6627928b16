package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
)

// payloadFile reads a real payload from testdata/gemini/payloads (recorded
// with chat-tools-resume-compress.jsonl; order.log gives their order).
func payloadFile(t testing.TB, name string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(testkit.ReadFile(t, filepath.Join(testdataDir, "payloads", name)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// env is a Gemini CLI home with no settings, for hosts under test.
func env(t testing.TB) func(string) string {
	home := t.TempDir()
	// Chats are read only from HOME/.gemini/tmp: every home shares one.
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(chatStore, filepath.Join(home, ".gemini", "tmp")); err != nil {
		t.Fatal(err)
	}
	return func(k string) string {
		switch k {
		case "GEMINI_CLI_HOME":
			return home
		case "GEMINI_CLI_SYSTEM_SETTINGS_PATH":
			return filepath.Join(home, "no-system-settings.json")
		}
		return ""
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeRealPayloads(t *testing.T) {
	h := Host{Getenv: env(t)}
	tests := []struct {
		file string
		want agent.Event
	}{
		{"SessionStart-1.json", agent.Event{Kind: agent.Start, Name: "SessionStart", Source: "startup"}},
		{"SessionStart-2.json", agent.Event{Kind: agent.Start, Name: "SessionStart", Source: "resume"}},
		{"SessionEnd-1.json", agent.Event{Kind: agent.End, Name: "SessionEnd", Reason: "exit"}},
		{"AfterAgent-1.json", agent.Event{Kind: agent.TurnEnd, Name: "AfterAgent", LastReply: `Wrote src/made.go, patched app.txt; "go test" fails.`}},
		// The transcript is read at its final state: the last reply reported
		// 1,000 tokens, far under the threshold.
		{"PreCompress-1.json", agent.Event{Kind: agent.Ignore, Name: "PreCompress", Trigger: "auto"}},
		// The prompt carries SessionStart's context: nothing more needed.
		// Its prompt carries SessionStart's context (headless mode): nothing to do.
		{"BeforeAgent-2.json", agent.Event{Kind: agent.Ignore, Name: "BeforeAgent", Prompt: "check app.txt"}},
	}
	chat := atLine(t, toolsChat, 0)
	for _, tt := range tests {
		p := payloadFile(t, tt.file)
		p["transcript_path"] = chat
		ev, err := decodeRefined(h, mustJSON(t, p))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		tt.want.SessionID = "44444444-2222-4333-8444-555555555555"
		tt.want.Transcript = chat
		tt.want.Cwd = recRoot
		if !reflect.DeepEqual(ev, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, ev, tt.want)
		}
	}
	for _, ev := range []string{"BeforeTool", "AfterTool", "BeforeModel", "Notification", ""} {
		got, err := decodeRefined(h, []byte(`{"hook_event_name":"`+ev+`","session_id":"s"}`))
		if err != nil || got.Kind != agent.Ignore {
			t.Errorf("%q: %+v, %v; want Ignore", ev, got, err)
		}
	}
	for _, bad := range []string{"", "[]", "null", `"x"`, "{", "not json"} {
		if _, err := decodeRefined(h, []byte(bad)); err == nil {
			t.Errorf("Decode(%q) did not fail", bad)
		}
	}
	// Fields of an unexpected type: the event is still told.
	if ev, err := decodeRefined(h, []byte(`{"hook_event_name":"SessionEnd","reason":7}`)); err != nil || ev.Kind != agent.End {
		t.Errorf("odd field types: %+v, %v", ev, err)
	}
}

// atLine writes the first n lines of a recorded chat to a new file and
// returns its path (in the chat store every env shares): the chat as it
// stood when a hook ran; n 0 is the whole chat.
func atLine(t testing.TB, name string, n int) string {
	t.Helper()
	lines := bytes.SplitAfter(readChat(t, name), []byte("\n"))
	if n > len(lines) {
		t.Fatalf("%s has %d lines, not %d", name, len(lines), n)
	}
	if n == 0 {
		n = len(lines)
	}
	path := filepath.Join(storeDir(t), "session.jsonl")
	if err := os.WriteFile(path, bytes.Join(lines[:n], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPreCompressOnlyWhenCompressing replays the recorded PreCompress
// payloads against the chat file as it stood when each ran: of nine, only
// PreCompress-8 (before which Gemini CLI compressed) is a BeforeCompact.
func TestPreCompressOnlyWhenCompressing(t *testing.T) {
	h := Host{Getenv: env(t)}
	// Line counts of chat-tools-resume-compress.jsonl when each PreCompress
	// fired: the records timestamped before the payload's timestamp.
	at := map[string]int{
		"PreCompress-1.json": 2, "PreCompress-2.json": 7, "PreCompress-3.json": 12,
		"PreCompress-4.json": 17, "PreCompress-5.json": 22, "PreCompress-6.json": 27,
		"PreCompress-7.json": 35, "PreCompress-8.json": 41, "PreCompress-9.json": 50,
	}
	for file, n := range at {
		p := payloadFile(t, file)
		p["transcript_path"] = atLine(t, toolsChat, n)
		ev, err := decodeRefined(h, mustJSON(t, p))
		if err != nil {
			t.Fatal(err)
		}
		want := agent.Ignore
		if file == "PreCompress-8.json" {
			want = agent.BeforeCompact
		}
		if ev.Kind != want || ev.Trigger != "auto" {
			t.Errorf("%s at line %d: kind %v trigger %q, want %v", file, n, ev.Kind, ev.Trigger, want)
		}
	}
}

func TestPreCompressThresholdAndSplit(t *testing.T) {
	getenv := env(t)
	h := Host{Getenv: getenv}
	cwd := t.TempDir()
	p := payloadFile(t, "PreCompress-6.json")
	p["cwd"] = cwd
	// A 1,000-token reply (run 2's last), with the threshold lowered in the
	// workspace's settings to 0.0005 (524 tokens): over it, and the
	// compression's snapshot is history to compress again.
	writeSettings(t, filepath.Join(cwd, ".gemini", "settings.json"), `{"model":{"compressionThreshold":0.0005}}`)
	p["transcript_path"] = atLine(t, toolsChat, 46)
	if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Kind != agent.BeforeCompact {
		t.Errorf("over a lowered threshold after a resume: %v, want BeforeCompact", ev.Kind)
	}
	// The first run alone: one prompt, nothing before it to split at, so
	// Gemini CLI compresses nothing, however many tokens.
	p["transcript_path"] = atLine(t, toolsChat, 29)
	if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Kind != agent.Ignore {
		t.Errorf("one prompt over the threshold: %v, want Ignore", ev.Kind)
	}
	// The user's settings count when the workspace sets nothing; the
	// workspace's win over them.
	writeSettings(t, filepath.Join(cwd, ".gemini", "settings.json"), `{"model":{}}`)
	writeSettings(t, filepath.Join(getenv("GEMINI_CLI_HOME"), ".gemini", "settings.json"), `{"model":{"compressionThreshold":0.0005}}`)
	p["transcript_path"] = atLine(t, toolsChat, 46)
	if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Kind != agent.BeforeCompact {
		t.Errorf("user threshold: %v, want BeforeCompact", ev.Kind)
	}
	writeSettings(t, filepath.Join(cwd, ".gemini", "settings.json"), `{"model":{"compressionThreshold":0.9}}`)
	if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Kind != agent.Ignore {
		t.Errorf("workspace threshold 0.9 over the user's: %v, want Ignore", ev.Kind)
	}
	// A manual compression is always one; a missing chat file decides for
	// nothing.
	p["trigger"] = "manual"
	if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Kind != agent.BeforeCompact {
		t.Errorf("manual: %v", ev.Kind)
	}
	p["trigger"], p["transcript_path"] = "auto", filepath.Join(cwd, "missing.jsonl")
	if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Kind != agent.Ignore {
		t.Errorf("missing chat: %v", ev.Kind)
	}
}

func writeSettings(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBeforeAgentCompacted: a prompt typed without continuity's context
// (as in an interactive session after the first) gets a refresh exactly
// when the history the model will see lost what continuity injected.
func TestBeforeAgentCompacted(t *testing.T) {
	h := Host{Getenv: env(t)}
	tests := []struct {
		name string
		chat string
		at   int // lines of chat at the time; 0: all
		want bool
	}{
		{"fresh session, nothing injected yet", toolsChat, 2, false},
		{"run 1 done: its prompt carries continuity's context", toolsChat, 31, false},
		{"resumed: the rebuilt history dropped that prompt", toolsChat, 35, true},
		{"resumed, with a new prompt carrying continuity's context", toolsChat, 37, false},
		{"reply over the threshold: a compression comes before the prompt reaches the model", toolsChat, 40, true},
		{"compressed: the kept turns hold the prompt with continuity's context", toolsChat, 46, false},
		{"resumed after the compression: snapshot kept, that prompt dropped", toolsChat, 50, true},
		{"another host's context survived a compression, not continuity's", sampleChat, 0, true},
		{"no chat file", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := payloadFile(t, "BeforeAgent-3.json")
			p["prompt"] = "and now?"
			switch {
			case tt.chat == "":
				p["transcript_path"] = filepath.Join(storeDir(t), "none.jsonl")
			case tt.at == 0:
				p["transcript_path"] = atLine(t, tt.chat, 0)
			default:
				p["transcript_path"] = atLine(t, tt.chat, tt.at)
			}
			ev, err := decodeRefined(h, mustJSON(t, p))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != agent.BeforePrompt || ev.Prompt != "and now?" || ev.Compacted != tt.want {
				t.Errorf("got kind %v prompt %q compacted %v, want compacted %v", ev.Kind, ev.Prompt, ev.Compacted, tt.want)
			}
		})
	}
	// The real headless payloads carry SessionStart's context in the
	// prompt: never a refresh on top of it, whatever the chat says.
	for _, f := range []string{"BeforeAgent-1.json", "BeforeAgent-2.json", "BeforeAgent-3.json"} {
		p := payloadFile(t, f)
		p["transcript_path"] = atLine(t, toolsChat, 50)
		if ev, _ := decodeRefined(h, mustJSON(t, p)); ev.Compacted {
			t.Errorf("%s: a refresh on top of SessionStart's context", f)
		}
	}
}

func TestEncode(t *testing.T) {
	h := Host{}
	start := agent.Event{Kind: agent.Start, Name: "SessionStart"}
	b, err := h.Encode(start, agent.Answer{Context: "continuity: the ledger <x>", Message: "continuity: ledger restored"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"systemMessage":"continuity: ledger restored","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"continuity: the ledger \u003cx\u003e"}}`
	if string(b) != want {
		t.Errorf("SessionStart:\n got %s\nwant %s", b, want)
	}
	// Context that does not start with continuity's mark gets it, so the
	// chat file shows which injection is ours.
	b, _ = h.Encode(agent.Event{Kind: agent.BeforePrompt, Name: "BeforeAgent"}, agent.Answer{Context: "Goal: x"})
	var out output
	if err := json.Unmarshal(b, &out); err != nil || out.Specific == nil || out.Specific.HookEventName != "BeforeAgent" ||
		!strings.HasPrefix("<hook_context>"+out.Specific.AdditionalContext, ourMark) || !strings.HasSuffix(out.Specific.AdditionalContext, "Goal: x") {
		t.Errorf("BeforeAgent: %s (%v)", b, err)
	}
	// Context for events whose context never reaches the model is dropped;
	// a message alone still shows.
	b, _ = h.Encode(agent.Event{Kind: agent.End, Name: "SessionEnd"}, agent.Answer{Context: "x", Message: "handoff written"})
	if string(b) != `{"systemMessage":"handoff written"}` {
		t.Errorf("SessionEnd: %s", b)
	}
	if b, err := h.Encode(agent.Event{Kind: agent.BeforeCompact, Name: "PreCompress"}, agent.Answer{}); b != nil || err != nil {
		t.Errorf("nothing to say: %q, %v", b, err)
	}
}

func TestLimitsAndPaths(t *testing.T) {
	h := Host{}
	if l := h.Limits(); l.InjectMax != 9000 || l.InjectUnit != agent.Runes || l.EndBudget != 10*time.Second ||
		l.EndBudget != time.Duration(timeouts[evSessionEnd])*time.Millisecond {
		t.Errorf("limits %+v do not match the SessionEnd timeout registered (%d ms)", l, timeouts[evSessionEnd])
	}
	if h.Name() != "gemini" || h.Title() != "Gemini CLI" {
		t.Errorf("name %q title %q", h.Name(), h.Title())
	}
	home := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"GEMINI_CLI_HOME": home, "GEMINI_PROJECT_DIR": "/p"}[k]
	}
	if d := h.ProjectDir(getenv); d != "/p" {
		t.Errorf("project dir %q", d)
	}
	if ok, err := h.ExportLedger(getenv, "x"); ok || err != nil {
		t.Errorf("ExportLedger: %v %v", ok, err)
	}
	if d := h.TranscriptDir(getenv, "/work/proj"); d != filepath.Join(home, ".gemini", "tmp") {
		t.Errorf("no registry: %q", d)
	}
	writeSettings(t, filepath.Join(home, ".gemini", "projects.json"), `{"projects":{"/work/proj":"proj-1","/evil":"../x"}}`)
	if d := h.TranscriptDir(getenv, "/work/proj/"); d != filepath.Join(home, ".gemini", "tmp", "proj-1", "chats") {
		t.Errorf("registered: %q", d)
	}
	if d := h.TranscriptDir(getenv, "/evil"); d != filepath.Join(home, ".gemini", "tmp") {
		t.Errorf("a name leaving tmp: %q", d)
	}
}

// decodeRefined is what the core makes of a payload in a repository that
// has opted in: Decode, then Refine.
func decodeRefined(h Host, b []byte) (agent.Event, error) {
	ev, err := h.Decode(b)
	if err != nil {
		return ev, err
	}
	return h.Refine(ev), nil
}

// TestDecodeReadsNothing: Decode decides from the payload alone; what
// needs the chat file waits for Refine (which the core calls only in a
// repository that has opted in).
func TestDecodeReadsNothing(t *testing.T) {
	h := Host{Getenv: func(string) string { return "" }}
	for _, name := range []string{evPreCompress, evBeforeAgent} {
		b := []byte(`{"hook_event_name":"` + name + `","session_id":"s","trigger":"auto","transcript_path":"/proc/kmsg"}`)
		ev, err := h.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if name == evPreCompress && ev.Kind != agent.BeforeCompact || name == evBeforeAgent && ev.Compacted {
			t.Errorf("%s: Decode = %+v, want the event before Refine", name, ev)
		}
		if ev.Transcript != "/proc/kmsg" {
			t.Errorf("%s: Decode = %+v, want the transcript kept for Refine", name, ev)
		}
	}
}
