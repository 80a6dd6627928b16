package claude

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
)

// TestStopIsTurnEnd: Stop decodes to a turn's end with the session and its
// transcript (what a checkpoint needs), and never prints anything, even
// with an answer: output on Stop could keep the turn going.
func TestStopIsTurnEnd(t *testing.T) {
	for _, active := range []string{"false", "true"} {
		ev, err := Host{}.Decode([]byte(`{"session_id":"930cbd59-0000-4000-8000-000000000001","transcript_path":"/home/dev/.claude/projects/-home-dev-proj/930cbd59-0000-4000-8000-000000000001.jsonl",` +
			`"cwd":"/home/dev/proj","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":` + active + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != agent.TurnEnd || ev.Name != "Stop" || ev.SessionID != "930cbd59-0000-4000-8000-000000000001" ||
			ev.Transcript != "/home/dev/.claude/projects/-home-dev-proj/930cbd59-0000-4000-8000-000000000001.jsonl" || ev.Cwd != "/home/dev/proj" {
			t.Errorf("stop_hook_active %s: %+v", active, ev)
		}
		if b, err := (Host{}).Encode(ev, agent.Answer{Context: "x", Message: "y"}); b != nil || err != nil {
			t.Errorf("Stop prints %q (%v)", b, err)
		}
	}
	if ev, _ := (Host{}).Decode([]byte(`{"hook_event_name":"SubagentStop","session_id":"x"}`)); ev.Kind != agent.Ignore {
		t.Errorf("SubagentStop is %d, want Ignore", ev.Kind)
	}
}
