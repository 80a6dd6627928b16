package codex

import (
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

const recorded = "../../../testdata/codex"

func payload(t testing.TB, name string) []byte {
	return testkit.ReadFile(t, filepath.Join(recorded, "payloads", name+".json"))
}

// TestDecodeRecorded decodes every payload the real Codex sent.
func TestDecodeRecorded(t *testing.T) {
	const session = "01a21004-807e-77e0-8b82-74caeb3675fb"
	for _, tc := range []struct {
		file string
		want agent.Event
	}{
		{"SessionStart-startup", agent.Event{Kind: agent.Start, Name: "SessionStart", Source: "startup"}},
		{"SessionStart-resume", agent.Event{Kind: agent.Start, Name: "SessionStart", Source: "resume"}},
		{"SessionStart-compact", agent.Event{Kind: agent.Start, Name: "SessionStart", Source: "compact"}},
		{"PreCompact", agent.Event{Kind: agent.BeforeCompact, Name: "PreCompact", Trigger: "auto"}},
		{"PostCompact", agent.Event{Kind: agent.AfterCompact, Name: "PostCompact", Trigger: "auto"}},
		{"Stop", agent.Event{Kind: agent.TurnEnd, Name: "Stop", LastReply: "The token refresh endpoint is in place; app.txt patched."}},
		{"SessionEnd", agent.Event{Kind: agent.End, Name: "SessionEnd", Reason: "other"}},
		{"UserPromptSubmit", agent.Event{Kind: agent.Ignore, Name: "UserPromptSubmit"}},
		{"PreToolUse", agent.Event{Kind: agent.Ignore, Name: "PreToolUse"}},
		{"PostToolUse", agent.Event{Kind: agent.Ignore, Name: "PostToolUse"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ev, err := Host{}.Decode(payload(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Transcript == "" || !strings.HasSuffix(ev.Transcript, ".jsonl") || ev.Cwd == "" || ev.SessionID == "" {
				t.Errorf("no session, transcript or cwd: %+v", ev)
			}
			if tc.want.Kind != agent.Ignore && ev.SessionID != session {
				t.Errorf("session %q", ev.SessionID)
			}
			ev.SessionID, ev.Transcript, ev.Cwd = "", "", ""
			if !reflect.DeepEqual(ev, tc.want) {
				t.Errorf("Decode =\n%+v\nwant\n%+v", ev, tc.want)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, in := range []string{"", "null", "[]", `"x"`, "{", `{"hook_event_name":"SessionStart"} {}`} {
		if _, err := (Host{}).Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q): no error", in)
		}
	}
	// A field of the wrong type reads as empty.
	ev, err := Host{}.Decode([]byte(`{"hook_event_name":"SessionStart","source":7,"cwd":["x"]}`))
	if err != nil || ev.Kind != agent.Start || ev.Source != "" || ev.Cwd != "" {
		t.Errorf("Decode = %+v, %v", ev, err)
	}
}

// TestEncode prints SessionStart's context the way Codex reads it (the
// shape verified with the real client: the context reaches the model as
// a developer message, systemMessage does not) and nothing for the rest.
func TestEncode(t *testing.T) {
	start := agent.Event{Kind: agent.Start, Name: "SessionStart", Source: "startup"}
	ctx := strings.Repeat("é<goal>&", 10000/len("é<goal>&"))
	out, err := Host{}.Encode(start, agent.Answer{Context: ctx, Message: "continuity: auth"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SystemMessage      string
		HookSpecificOutput map[string]string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.HookSpecificOutput["hookEventName"] != "SessionStart" || got.HookSpecificOutput["additionalContext"] != ctx || got.SystemMessage != "continuity: auth" {
		t.Errorf("Encode = %s", out)
	}
	if out, _ := (Host{}).Encode(start, agent.Answer{}); out != nil {
		t.Errorf("empty answer printed %s", out)
	}
	for _, k := range []agent.Kind{agent.BeforeCompact, agent.AfterCompact, agent.TurnEnd, agent.End, agent.Ignore} {
		if out, err := (Host{}).Encode(agent.Event{Kind: k}, agent.Answer{Context: "x", Message: "y"}); out != nil || err != nil {
			t.Errorf("kind %d printed %s, %v", k, out, err)
		}
	}
}

func TestLimitsAndEnv(t *testing.T) {
	l := Host{}.Limits()
	if l.InjectMax != 10000 || l.InjectUnit != agent.Bytes || l.EndBudget != 3*time.Second {
		t.Errorf("Limits = %+v", l)
	}
	env := map[string]string{"CODEX_THREAD_ID": "01a2", "CODEX_SESSION_ID": "01a2"}
	if got := sessionFromEnv(func(k string) string { return env[k] }); got != "01a2" {
		t.Errorf("sessionFromEnv = %q", got)
	}
	if got := sessionFromEnv(noEnv); got != "" {
		t.Errorf("sessionFromEnv outside Codex = %q", got)
	}
	if ok, err := (Host{}).ExportLedger(noEnv, "auth"); ok || err != nil {
		t.Errorf("ExportLedger = %v, %v", ok, err)
	}
	if d := (Host{}).ProjectDir(func(string) string { return "/x" }); d != "" {
		t.Errorf("ProjectDir = %q", d)
	}
	if (Host{}).Name() != "codex" || (Host{}).Title() != "Codex" {
		t.Error("names")
	}
}

// TestDecodePostCompactSummary: Codex's PostCompact payload has no summary;
// Decode takes it from the rollout, only where Codex keeps rollouts.
func TestDecodePostCompactSummary(t *testing.T) {
	home := t.TempDir()
	rel := filepath.Join("sessions", "2026", "11", "25", "rollout-2026-11-25T00-04-20-01a21004-807e-77e0-8b82-74caeb3675fb.jsonl")
	if err := os.MkdirAll(filepath.Join(home, filepath.Dir(rel)), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(recorded, "rollout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, rel), data, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "CODEX_HOME" {
			return home
		}
		return ""
	}
	h := Host{}.Situate(env, "").(Host)
	// A symlink in the sessions directory pointing out is refused; the
	// home reached through a symlink is still the home.
	outside := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "sessions", "2026", "11", "25", "rollout-2026-11-25T00-05-00-linked.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	linkedHome := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(home, linkedHome); err != nil {
		t.Fatal(err)
	}
	viaLink := Host{}.Situate(func(k string) string {
		if k == "CODEX_HOME" {
			return linkedHome
		}
		return ""
	}, "").(Host)
	if ev := viaLink.Refine(agent.Event{Kind: agent.AfterCompact, Name: "PostCompact", Transcript: filepath.Join(home, rel)}); ev.Summary == "" {
		t.Error("CODEX_HOME a symlink: the rollout inside it was not read")
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(home, rel), "SUMMARY-TEXT: token.go added, app.txt patched; next the logout endpoint."},
		{link, ""}, // a symlink in sessions/ pointing out
		{"/proc/self/fd/0", ""},
		{filepath.Join(home, "sessions", "..", "..", filepath.Base(rel)), ""}, // outside $CODEX_HOME/sessions
		{filepath.Join(recorded, "rollout.jsonl"), ""},
		{"relative/rollout.jsonl", ""},
	} {
		in, _ := json.Marshal(map[string]string{"hook_event_name": "PostCompact", "session_id": "s", "transcript_path": tc.path, "trigger": "auto"})
		ev, err := h.Decode(in)
		if err != nil || ev.Summary != "" {
			t.Errorf("Decode(PostCompact) read the rollout (%q) or failed (%v): that waits for Refine", ev.Summary, err)
		}
		if ev = h.Refine(ev); ev.Kind != agent.AfterCompact || ev.Summary != tc.want {
			t.Errorf("Refine(PostCompact, %s) = %+v; want summary %q", tc.path, ev, tc.want)
		}
	}
}
