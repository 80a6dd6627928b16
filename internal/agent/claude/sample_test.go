package claude

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
)

// TestSampleCompaction: the sample's payloads are what the host decodes as
// before compaction, a start with source compact, after compaction with
// the summary, each naming the session, transcript and cwd.
func TestSampleCompaction(t *testing.T) {
	calls := Sample{}.Compaction("id-1", "/t/x.jsonl", "/proj", "the summary")
	want := []agent.Kind{agent.BeforeCompact, agent.Start, agent.AfterCompact}
	if len(calls) != len(want) {
		t.Fatalf("%d calls", len(calls))
	}
	for i, payload := range calls {
		ev, err := Host{}.Decode(payload)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != want[i] || ev.SessionID != "id-1" || ev.Transcript != "/t/x.jsonl" || ev.Cwd != "/proj" {
			t.Errorf("call %d: %+v", i, ev)
		}
		if ev.Kind == agent.Start && ev.Source != "compact" || ev.Kind == agent.AfterCompact && ev.Summary != "the summary" {
			t.Errorf("call %d: %+v", i, ev)
		}
	}
}

// TestSampleContext reads back what Encode injects.
func TestSampleContext(t *testing.T) {
	out, err := Host{}.Encode(agent.Event{Kind: agent.Start, Source: "compact"}, agent.Answer{Context: "ctx ✓", Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := (Sample{}).Context(out); err != nil || got != "ctx ✓" {
		t.Errorf("Context = %q, %v", got, err)
	}
	if _, err := (Sample{}).Context([]byte("nope")); err == nil {
		t.Error("Context of a non-JSON output: no error")
	}
	if !(Sample{}).Private("CLAUDE_ENV_FILE") || (Sample{}).Private("HOME") {
		t.Error("Private")
	}
}
