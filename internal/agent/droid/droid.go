// Package droid is Factory's Droid as a continuity host: its Claude-format
// hook payloads (every event carries the transcript's path), the output
// shape that reaches its model, its settings files and session
// transcripts, and its limits, as measured with the real Droid 0.215.0
// (copilot-droid-facts.md; testdata/droid holds what was recorded from it).
package droid

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

// Host is Droid.
type Host struct{}

var _ agent.Host = Host{}

// Name is the host's name on the command line.
func (Host) Name() string { return "droid" }

// Title is the host's name for people.
func (Host) Title() string { return "Droid" }

// The limits. Droid's cliff was not measured: the budget is the one the
// other hosts use, and the session end gets the timeout init registers.
const (
	injectMax   = 9000
	endTimeout  = 30 // seconds
	stopTimeout = 10
)

// Limits are Droid's.
func (Host) Limits() agent.Limits {
	return agent.Limits{InjectMax: injectMax, InjectUnit: agent.Runes, EndBudget: endTimeout * time.Second}
}

// kinds maps Droid's events to what they mean to continuity.
var kinds = map[string]agent.Kind{
	"SessionStart": agent.Start,
	"PreCompact":   agent.BeforeCompact,
	"Stop":         agent.TurnEnd,
	"SessionEnd":   agent.End,
}

var errNotObject = errors.New("droid: payload is not a JSON object")

// Decode turns a Droid hook payload into an event.
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
	ev.Kind = kinds[ev.Name]
	switch ev.Kind {
	case agent.Start:
		ev.Source = str("source")
		if ev.Source == "" {
			ev.Source = "startup"
		}
	case agent.BeforeCompact:
		ev.Trigger = str("trigger")
	case agent.End:
		ev.Reason = str("reason")
	}
	return ev, nil
}

// startOutput is what reaches Droid's model from SessionStart: the
// hookSpecificOutput's additionalContext, verbatim, as a user message (a
// flat additionalContext arrives as raw JSON text).
type startOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Encode prints SessionStart's context; the other events print nothing
// (Droid would show any stdout to the model).
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

// ProjectDir is the project directory Droid names in a hook's environment.
func (Host) ProjectDir(getenv func(string) string) string {
	if d := getenv("FACTORY_PROJECT_DIR"); d != "" {
		return d
	}
	return getenv("DROID_PROJECT_DIR")
}

// ExportLedger: continuity does not rely on Droid reading the env file
// its SessionStart payload names (not measured).
func (Host) ExportLedger(func(string) string, string) (bool, error) { return false, nil }

// ClientNames are the command names of Droid's client process.
func (Host) ClientNames() []string { return []string{"droid"} }

// NewDecoder returns a decoder of Droid's session records.
func (Host) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return newDecoder(root, red)
}

// home is where Droid keeps .factory: FACTORY_HOME_OVERRIDE, else HOME.
func home(getenv func(string) string) string { return agent.Home(getenv, "FACTORY_HOME_OVERRIDE") }

// TranscriptDir is where Droid keeps every project's sessions:
// ~/.factory/sessions/<cwd, / as ->/<session id>.jsonl.
func (Host) TranscriptDir(getenv func(string) string, _ string) string {
	h := home(getenv)
	if h == "" {
		return ""
	}
	return filepath.Join(h, ".factory", "sessions")
}

// events are the hooks continuity registers with Droid, in order.
var events = []string{"SessionStart", "PreCompact", "Stop", "SessionEnd"}

// HookEvents are the events Register registers, in order.
func (Host) HookEvents() []string { return append([]string(nil), events...) }

// SettingsPath is .factory/settings.json in the project, or the user's
// ~/.factory/settings.json.
func (Host) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	file := filepath.Join(".factory", "settings.json")
	return install.Settings{Agent: "droid", Project: file, User: file, Home: home(getenv), HomeVar: "HOME"}.Path(scope, root)
}

// Register adds continuity's hooks to Droid settings, keeping every other
// byte; registering twice changes nothing.
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	return install.Add(settings, install.Hook{Command: command, Events: events,
		Timeouts: map[string]int{"Stop": stopTimeout, "SessionEnd": endTimeout}})
}

// Unregister removes exactly what Register added.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, events...)
}

// Registered reports the command registered for each event and those in
// an older form. Droid needs no trust for a project's hooks.
func (Host) Registered(settings []byte) (agent.Status, error) {
	return install.AgentStatus(settings, "droid", events...)
}
