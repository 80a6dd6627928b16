package qwen

import (
	"os"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

// TestDecode: the recorded payloads decode to what each means: the start's
// source, the compaction's trigger and Qwen Code's own summary, the turn's
// last reply; tool events are ignored.
func TestDecode(t *testing.T) {
	for file, want := range map[string]agent.Event{
		"SessionStart-startup.json": {Kind: agent.Start, Source: "startup"},
		"SessionStart-resume.json":  {Kind: agent.Start, Source: "resume"},
		"SessionStart-compact.json": {Kind: agent.Start, Source: "compact"},
		"PreCompact-manual.json":    {Kind: agent.BeforeCompact, Trigger: "manual"},
		"PreCompact-auto.json":      {Kind: agent.BeforeCompact, Trigger: "auto"},
		"PostCompact-auto.json":     {Kind: agent.AfterCompact, Trigger: "auto", Summary: "<state_snapshot>\nSUMMARY-TEXT-QWEN-AUTO: big.txt was printed.\n</state_snapshot>"},
		"Stop.json":                 {Kind: agent.TurnEnd, LastReply: "Made made.txt and edited app.txt."},
		"PostToolUse.json":          {Kind: agent.Ignore},
		"UserPromptSubmit.json":     {Kind: agent.Ignore},
	} {
		b, err := os.ReadFile("testdata/payloads/" + file)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Host{}.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if ev.Kind != want.Kind || ev.Source != want.Source || ev.Trigger != want.Trigger || ev.Summary != want.Summary || ev.LastReply != want.LastReply {
			t.Errorf("%s: %+v, want %+v", file, ev, want)
		}
		if ev.SessionID == "" || !strings.HasSuffix(ev.Transcript, ev.SessionID+".jsonl") || ev.Cwd == "" || ev.At.IsZero() {
			t.Errorf("%s: session %q, transcript %q, cwd %q, at %v", file, ev.SessionID, ev.Transcript, ev.Cwd, ev.At)
		}
	}
}

// TestTranscript: the recorded chat (a session, /compress, an
// auto-compaction) reads into the session's facts: its prompts without the
// hooks' added context, the files written, the commands and the failing
// one, both summaries, the model and its tokens.
func TestTranscript(t *testing.T) {
	const root = "/tmp/rh/qwenrec/proj"
	f, err := transcript.ReadFile("testdata/chat.jsonl", Host{}.NewDecoder(root, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Prompts, "|"); got != "make made.txt and edit app.txt|print big.txt" {
		t.Errorf("prompts %q", f.Prompts)
	}
	if got := strings.Join(f.Files, ","); got != "made.txt,app.txt" {
		t.Errorf("files %q", f.Files)
	}
	// The session's three commands only look (ls, cat, echo): counted, not listed.
	if len(f.Commands) != 0 || f.LookOnly != 3 {
		t.Errorf("commands %q, look-only %d", f.Commands, f.LookOnly)
	}
	if len(f.Errors) != 1 || !strings.Contains(f.Errors[0], "ls /nonexistent-e2e-dir") || !strings.Contains(f.Errors[0], "exit 2") {
		t.Errorf("errors %q", f.Errors)
	}
	if f.Compactions != 2 || f.CompactSummary != "SUMMARY-TEXT-QWEN-AUTO: big.txt was printed." {
		t.Errorf("compactions %d, summary %q", f.Compactions, f.CompactSummary)
	}
	if f.Model != "m1" || f.Tokens == 0 || f.LastAssistant != "Done." {
		t.Errorf("model %q, tokens %d, last reply %q", f.Model, f.Tokens, f.LastAssistant)
	}
}
