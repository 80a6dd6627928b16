package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// sample reads a payload or transcript recorded from Copilot CLI 1.0.102.
func sample(t *testing.T, name string) []byte {
	return testkit.ReadFile(t, filepath.Join("testdata", "copilot", name))
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

const sessionID = "7ea0a04b-5a3d-42de-be09-0d61a195428c"

func TestDecodeNative(t *testing.T) {
	h := Host{getenv: envOf(map[string]string{"COPILOT_HOME": "/home/kim/.copilot"})}
	events := filepath.Join("/home/kim/.copilot", "session-state", sessionID, "events.jsonl")
	cases := []struct {
		event, file string
		want        agent.Event
	}{
		{"sessionStart", "copilot-payload-sessionStart.json", agent.Event{Kind: agent.Start, Source: "startup"}},
		{"sessionStart", "copilot-payload-sessionStart-resume.json", agent.Event{Kind: agent.Start, Source: "resume"}},
		{"userPromptSubmitted", "copilot-payload-userPromptSubmitted.json", agent.Event{Kind: agent.BeforePrompt, Prompt: "make made.txt and edit app.txt"}},
		{"postToolUse", "copilot-payload-postToolUse-bash.json", agent.Event{Kind: agent.BeforePrompt}},
		{"preCompact", "copilot-payload-preCompact.json", agent.Event{Kind: agent.BeforeCompact, Trigger: "manual"}},
		{"preCompact", "copilot-payload-preCompact-auto.json", agent.Event{Kind: agent.BeforeCompact, Trigger: "auto"}},
		{"agentStop", "copilot-payload-agentStop.json", agent.Event{Kind: agent.TurnEnd}},
		{"sessionEnd", "copilot-payload-sessionEnd.json", agent.Event{Kind: agent.End, Reason: "complete"}},
		{"preToolUse", "copilot-payload-preToolUse.json", agent.Event{Kind: agent.Ignore}},
	}
	for _, c := range cases {
		ev, err := h.ForEvent(c.event).Decode(sample(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		want := c.want
		want.Name, want.SessionID, want.Cwd = c.event, sessionID, "/home/kim/src/proj"
		var p struct{ Timestamp int64 }
		json.Unmarshal(sample(t, c.file), &p)
		want.At = time.UnixMilli(p.Timestamp)
		if want.Kind != agent.Ignore {
			want.Transcript = events // given (preCompact, agentStop) or derived from COPILOT_HOME
		}
		if ev != want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, ev, want)
		}
	}
	// Without the event on the command line a native payload means nothing.
	if ev, _ := h.Decode(sample(t, "copilot-payload-sessionStart.json")); ev.Kind != agent.Ignore {
		t.Errorf("a payload of no named event decoded as %v", ev.Kind)
	}
}

func TestDecodeClaudeFormat(t *testing.T) {
	h := Claude(envOf(map[string]string{"COPILOT_HOME": "/c"}))
	for file, want := range map[string]agent.Event{
		"copilot-claude-format-SessionStart.json":        {Kind: agent.Start, Name: "SessionStart", Source: "startup"},
		"copilot-claude-format-SessionStart-resume.json": {Kind: agent.Start, Name: "SessionStart", Source: "resume"},
		"copilot-claude-format-PreCompact-auto.json":     {Kind: agent.BeforeCompact, Name: "PreCompact", Trigger: "auto"},
		"copilot-claude-format-Stop.json":                {Kind: agent.TurnEnd, Name: "Stop"},
		"copilot-claude-format-SessionEnd.json":          {Kind: agent.End, Name: "SessionEnd", Reason: "complete"},
		"copilot-claude-format-UserPromptSubmit.json":    {Kind: agent.BeforePrompt, Name: "UserPromptSubmit"},
	} {
		ev, err := h.Decode(sample(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != want.Kind || ev.Name != want.Name || ev.Source != want.Source || ev.Trigger != want.Trigger || ev.Reason != want.Reason {
			t.Errorf("%s: %+v", file, ev)
		}
		var p struct{ Timestamp string }
		json.Unmarshal(sample(t, file), &p)
		if at, _ := time.Parse(time.RFC3339Nano, p.Timestamp); ev.At.IsZero() || !ev.At.Equal(at) {
			t.Errorf("%s: at %v, want %s", file, ev.At, p.Timestamp)
		}
		if ev.SessionID == "" || ev.Transcript == "" || !strings.HasSuffix(ev.Transcript, "/events.jsonl") {
			t.Errorf("%s: session %q, transcript %q", file, ev.SessionID, ev.Transcript)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{`} {
		if _, err := h.Decode([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

func TestTranscriptOfHostileID(t *testing.T) {
	h := Host{getenv: envOf(map[string]string{"COPILOT_HOME": "/c"})}
	for _, id := range []string{"", ".", "..", "../../etc", `a\b`} {
		p := []byte(`{"sessionId":` + strings.ReplaceAll(jsonString(id), "", "") + `,"cwd":"/r"}`)
		ev, _ := h.ForEvent("sessionEnd").Decode(p)
		if ev.Transcript != "" {
			t.Errorf("id %q: transcript %q", id, ev.Transcript)
		}
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestEncodeFlat(t *testing.T) {
	h := Host{}
	for _, k := range []agent.Kind{agent.Start, agent.BeforePrompt} {
		out, err := h.Encode(agent.Event{Kind: k}, agent.Answer{Context: "continuity: ledger x", Message: "shown"})
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != `{"additionalContext":"continuity: ledger x"}`+"\n" {
			t.Errorf("kind %v: %s", k, out)
		}
	}
	for _, k := range []agent.Kind{agent.BeforeCompact, agent.TurnEnd, agent.End} {
		if out, _ := h.Encode(agent.Event{Kind: k}, agent.Answer{Context: "x"}); out != nil {
			t.Errorf("kind %v printed %s", k, out)
		}
	}
	if out, _ := h.Encode(agent.Event{Kind: agent.Start}, agent.Answer{Message: "only a message"}); out != nil {
		t.Errorf("a message alone printed %s", out)
	}
	out, _ := h.Encode(agent.Event{Kind: agent.Start}, agent.Answer{Context: "text"})
	if !strings.Contains(string(out), `"continuity:\ntext"`) {
		t.Errorf("context not marked as continuity's: %s", out)
	}
}

func TestDecodeTranscript(t *testing.T) {
	f, err := transcript.Read(strings.NewReader(string(sample(t, "copilot-events.jsonl"))), newDecoder("/home/kim/src/proj", nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"made.txt", "app.txt"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files %q, want %q", f.Files, want)
	}
	// Both commands only look (ls, echo): the accumulator leaves them out.
	if len(f.Commands) != 0 {
		t.Errorf("commands %q, want none", f.Commands)
	}
	if len(f.Errors) != 1 || f.Errors[0] != "`ls /nonexistent-e2e-dir && echo never`: exit 2: ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("errors %q", f.Errors)
	}
	if want := []string{"make made.txt and edit app.txt", "look at app.txt again"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts %q, want %q", f.Prompts, want)
	}
	if f.LastAssistant != "Done after auto-compaction." {
		t.Errorf("last reply %q", f.LastAssistant)
	}
	if !strings.Contains(f.CompactSummary, "SUMMARY-TEXT-AUTO") || f.Compactions != 2 {
		t.Errorf("summary %q after %d compactions", f.CompactSummary, f.Compactions)
	}
	if f.Model != "claude-sonnet-4.6" || f.Tokens != 1000 || f.Records == 0 {
		t.Errorf("model %q, tokens %d, records %d", f.Model, f.Tokens, f.Records)
	}
}

// TestDecodeTranscriptResumed: a read resumed from a checkpoint at every
// line gives what a whole read gives.
func TestDecodeTranscriptResumed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	all := sample(t, "copilot-events.jsonl")
	if _, _, err := transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), nil, time.Time{}); err == nil {
		t.Fatal("read a file not written yet")
	}
	lines := strings.SplitAfter(string(all), "\n")
	os.WriteFile(path, nil, 0o644)
	var cp *transcript.Checkpoint
	var err error
	for i, l := range lines {
		fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString(l)
		fh.Close()
		if i%7 != 0 && i != len(lines)-1 {
			continue
		}
		_, cp, err = transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), cp, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _, _ := transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), cp, time.Time{})
	whole, _, _ := transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), nil, time.Time{})
	got.Lines, whole.Lines, got.Bytes, whole.Bytes = 0, 0, 0, 0
	if !reflect.DeepEqual(got, whole) {
		t.Errorf("resumed:\n%+v\nwhole:\n%+v", got, whole)
	}
}

func TestRefineAfterCompaction(t *testing.T) {
	h, path := sessionHost(t)
	ours := `{"type":"hook.end","data":{"hookType":"sessionStart","output":{"additionalContext":"continuity: the ledger"}}}` + "\n"
	theirs := `{"type":"hook.end","data":{"hookType":"sessionStart","output":{"additionalContext":"E2E-FLAT-MARKER"}}}` + "\n"
	pre := `{"type":"hook.start","data":{"hookType":"preCompact","input":{}}}` + "\n"
	tool := `{"type":"tool.execution_complete","data":{"success":true}}` + "\n"
	for _, c := range []struct {
		events string
		want   bool
	}{
		{ours + tool, false},
		{ours + pre + tool, true},
		{ours + pre + tool + ours, false}, // refreshed already
		{pre + ours, false},               // a session start after the compaction (resume)
		// A resumed process whose sessionStart output is not written yet
		// (the first prompt's hook runs beside it): that start gives the
		// ledger afresh.
		{pre + `{"type":"session.resume","data":{}}` + "\n" + `{"type":"hook.start","data":{"hookType":"sessionStart"}}` + "\n", false},
		{`{"type":"session.start","data":{}}` + "\n" + tool, false},
		{`{"type":"session.resume","data":{}}` + "\n" + pre + tool, true}, // compacted within the process
		{theirs + pre, true},
		{tool, false},
	} {
		os.WriteFile(path, []byte(c.events), 0o644)
		ev := h.Refine(agent.Event{Kind: agent.BeforePrompt, Transcript: path})
		if ev.Compacted != c.want {
			t.Errorf("%q: compacted %v, want %v", c.events, ev.Compacted, c.want)
		}
	}
	// A transcript outside Copilot's session state is never read.
	out := filepath.Join(t.TempDir(), "events.jsonl")
	os.WriteFile(out, []byte(ours+pre), 0o644)
	if h.Refine(agent.Event{Kind: agent.BeforePrompt, Transcript: out}).Compacted {
		t.Error("read a transcript outside COPILOT_HOME/session-state")
	}
}

// TestAwaitRecord: a handoff waits until Copilot has written the hook's
// own start record (it writes its events behind), and no longer than its
// limit when the record never comes.
func TestAwaitRecord(t *testing.T) {
	h, path := sessionHost(t)
	os.WriteFile(path, []byte(`{"type":"assistant.message","data":{"content":"early"}}`+"\n"), 0o644)
	at := time.UnixMilli(1795695196325)
	rec := `{"type":"hook.start","data":{"hookType":"sessionEnd","input":{"timestamp":1795695196325}}}` + "\n"
	if h.awaitRecord(path, "sessionEnd", at, 100*time.Millisecond) {
		t.Fatal("found a record not written")
	}
	done := appendLater(t, path, `{"type":"tool.execution_complete","data":{"success":true}}`+"\n"+rec, 150*time.Millisecond)
	if !h.awaitRecord(path, "sessionEnd", at, 10*time.Second) {
		t.Fatal("the record written late was not found")
	}
	<-done
	if h.awaitRecord(path, "sessionEnd", at.Add(time.Millisecond), 0) {
		t.Error("another call's record taken for this one")
	}
}

// TestRefineWaitsBeforeRefresh: a compaction last in the events may be
// followed by an injection Copilot has not written yet: before a refresh,
// the prompt's hook waits for its own record and decides then.
func TestRefineWaitsBeforeRefresh(t *testing.T) {
	h, path := sessionHost(t)
	pre := `{"type":"hook.start","data":{"hookType":"preCompact","input":{}}}` + "\n"
	ours := `{"type":"hook.end","data":{"hookType":"sessionStart","output":{"additionalContext":"continuity: again"}}}` + "\n"
	at := time.Now()
	self := `{"type":"hook.start","data":{"hookType":"userPromptSubmitted","input":{"timestamp":` + strconv.FormatInt(at.UnixMilli(), 10) + `}}}` + "\n"
	ev := agent.Event{Kind: agent.BeforePrompt, Name: "userPromptSubmitted", Transcript: path, At: time.UnixMilli(at.UnixMilli())}

	os.WriteFile(path, []byte(pre), 0o644)
	done := appendLater(t, path, ours+self, 200*time.Millisecond)
	if h.Refine(ev).Compacted {
		t.Error("refreshed although continuity's injection followed the compaction")
	}
	<-done
	// The call's record written with nothing after the compaction: refresh.
	os.WriteFile(path, []byte(pre+self), 0o644)
	if !h.Refine(ev).Compacted {
		t.Error("no refresh after a compaction")
	}
}

// sessionHost is a host whose COPILOT_HOME is a new folder, and the path
// of session sessionID's events there (its folder made, the file not).
func sessionHost(t *testing.T) (Host, string) {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "session-state", sessionID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return Host{getenv: envOf(map[string]string{"COPILOT_HOME": home})}, filepath.Join(dir, "events.jsonl")
}

// appendLater appends text to the file at path after d, as Copilot writes
// its events behind; the channel is closed once it is written.
func appendLater(t *testing.T, path, text string, d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := f.WriteString(text); err != nil {
			t.Error(err)
		}
		f.Close()
	}()
	return done
}
