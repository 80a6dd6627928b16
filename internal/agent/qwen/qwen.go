// Package qwen is Qwen Code as a continuity host: its Claude-format hook
// payloads (every event carries the chat file's path), the output shape
// that reaches its model, its settings files and chat files, and its
// limits, as measured with the real Qwen Code 0.24.4
// (next-hosts-facts.md; testdata holds what was recorded from it).
//
// Qwen Code calls SessionEnd only in its interactive UI: a headless run
// ends after its last Stop, and one killed mid-turn calls nothing. Each
// Stop checkpoints the chat, and the next session's start recovers a
// session that ended without a handoff, as it does a crashed one.
package qwen

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Host is Qwen Code.
type Host struct{}

var _ agent.Host = Host{}

// Name is the host's name on the command line.
func (Host) Name() string { return "qwen" }

// Title is the host's name for people.
func (Host) Title() string { return "Qwen Code" }

// The limits. SessionStart's context lands at the end of the system
// prompt of every request; it has no limit of its own (1,048,400
// characters arrived whole; the hook's stdout is cut at 1 MiB). What is
// injected stays in every request, so the budget is the one the other
// hosts use. Timeouts are in seconds.
const (
	injectMax   = 9000
	endTimeout  = 30
	stopTimeout = 10
)

// Limits are Qwen Code's.
func (Host) Limits() agent.Limits {
	return agent.Limits{InjectMax: injectMax, InjectUnit: agent.Runes, EndBudget: endTimeout * time.Second}
}

// kinds maps Qwen Code's events to what they mean to continuity.
var kinds = map[string]agent.Kind{
	"SessionStart": agent.Start,
	"PreCompact":   agent.BeforeCompact,
	"PostCompact":  agent.AfterCompact,
	"Stop":         agent.TurnEnd,
	"SessionEnd":   agent.End,
}

var errNotObject = errors.New("qwen: payload is not a JSON object")

// Decode turns a Qwen Code hook payload into an event.
func (Host) Decode(payload []byte) (agent.Event, error) {
	payload = transcript.ValidUTF8(payload)
	if !gjson.ValidBytes(payload) {
		return agent.Event{}, errNotObject
	}
	p := gjson.ParseBytes(payload)
	if !p.IsObject() {
		return agent.Event{}, errNotObject
	}
	str := func(key string) string { return strings.ReplaceAll(p.Get(gjson.Escape(key)).Str, "\x00", "") }
	ev := agent.Event{Name: str("hook_event_name"), SessionID: str("session_id"), Transcript: str("transcript_path"), Cwd: str("cwd")}
	if at, err := time.Parse(time.RFC3339Nano, str("timestamp")); err == nil {
		ev.At = at
	}
	ev.Kind = kinds[ev.Name]
	switch ev.Kind {
	case agent.Start:
		ev.Source = str("source")
		if ev.Source == "" {
			ev.Source = "startup"
		}
	case agent.BeforeCompact:
		ev.Trigger = str("trigger")
	case agent.AfterCompact:
		ev.Trigger, ev.Summary = str("trigger"), str("compact_summary")
	case agent.TurnEnd:
		ev.LastReply = str("last_assistant_message")
	case agent.End:
		ev.Reason = str("reason")
	}
	return ev, nil
}

// startOutput is what reaches Qwen Code's model from SessionStart: the
// hookSpecificOutput's additionalContext, appended to the system prompt
// (a flat additionalContext is dropped).
type startOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Encode prints SessionStart's context; the other events print nothing
// (a Stop or PostCompact hook's stdout would reach the model or the
// person as noise).
func (Host) Encode(ev agent.Event, a agent.Answer) ([]byte, error) {
	if ev.Kind != agent.Start || a.Context == "" {
		return nil, nil
	}
	var out startOutput
	out.HookSpecificOutput.HookEventName = "SessionStart"
	out.HookSpecificOutput.AdditionalContext = a.Context
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ProjectDir is the project directory Qwen Code names in a hook's
// environment (QWEN_CODE_PROJECT_DIR is its own folder for the project,
// not the project).
func (Host) ProjectDir(getenv func(string) string) string { return getenv("QWEN_PROJECT_DIR") }

// ExportLedger does nothing: Qwen Code offers hooks no file that sets the
// agent's later environment.
func (Host) ExportLedger(func(string) string, string) (bool, error) { return false, nil }

// NewDecoder returns a decoder of Qwen Code's chat records.
func (Host) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return newDecoder(root, red)
}

// home is where Qwen Code keeps .qwen: HOME.
func home(getenv func(string) string) string { return agent.Home(getenv, "HOME") }

// TranscriptDir is where Qwen Code keeps every project's chats:
// ~/.qwen/projects/<cwd, / as ->/chats/<session id>.jsonl.
func (Host) TranscriptDir(getenv func(string) string, _ string) string {
	h := home(getenv)
	if h == "" {
		return ""
	}
	return filepath.Join(h, ".qwen", "projects")
}

// events are the hooks continuity registers with Qwen Code, in order.
var events = []string{"SessionStart", "PreCompact", "PostCompact", "Stop", "SessionEnd"}

// HookEvents are the events Register registers, in order.
func (Host) HookEvents() []string { return append([]string(nil), events...) }

// SettingsPath is .qwen/settings.json in the project, or the user's
// ~/.qwen/settings.json. Both are read, and neither is shared with
// another client.
func (Host) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	file := filepath.Join(".qwen", "settings.json")
	return install.Settings{Agent: "qwen", Project: file, User: file, Home: home(getenv), HomeVar: "HOME"}.Path(scope, root)
}

// Register adds continuity's hooks to Qwen Code settings, keeping every
// other byte; registering twice changes nothing.
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	return install.Add(settings, install.Hook{Command: command, Events: events,
		Timeouts: map[string]int{"Stop": stopTimeout, "SessionEnd": endTimeout}})
}

// Unregister removes exactly what Register added.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, events...)
}

// Registered reports the command registered for each event and those in
// an older form. Qwen Code runs a project's hooks without a trust step
// (unless the person turned folder trust on).
func (Host) Registered(settings []byte) (agent.Status, error) {
	return install.AgentStatus(settings, "qwen", events...)
}
