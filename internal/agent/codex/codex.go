// Package codex is OpenAI's Codex CLI as a continuity host: its hook
// payloads and output, its rollout transcripts, its hooks.json registration
// and trust, and its limits, as measured with the real Codex 0.169.0
// (see testdata/codex, recorded from it).
package codex

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Host is the Codex CLI. Its zero value reads the process environment;
// Situate gives it another environment and the repository, which only
// Registered needs (to tell whether Codex trusts the project).
type Host struct {
	getenv func(string) string
	root   string
}

var (
	_ agent.Host    = Host{}
	_ agent.Refiner = Host{}
)

// Situate returns the host as seen from repository root with environment
// getenv: Registered then reports whether Codex trusts root.
func (h Host) Situate(getenv func(string) string, root string) agent.Host {
	return Host{getenv: getenv, root: root}
}

func (h Host) env(name string) string {
	if h.getenv != nil {
		return h.getenv(name)
	}
	return os.Getenv(name)
}

// Name is the host's name on the command line.
func (Host) Name() string { return "codex" }

// Title is the host's name for people.
func (Host) Title() string { return "Codex" }

// The measured limits (codex-gemini-facts.md, "Injection" and "Timeouts").
const (
	// injectMax: SessionStart context of 10,000 bytes reaches the model
	// whole; 10,001 bytes arrive as a head-and-tail preview.
	injectMax = 10000
	// endTimeout is the SessionEnd timeout init registers, in seconds:
	// Codex clamps any larger value to 3 s and kills the hook then;
	// without a timeout it kills it after about 1 s.
	endTimeout = 3
)

// Limits are Codex's measured limits: the injection cliff is in bytes, and
// a SessionEnd hook registered with timeout 3 is killed after 3 s.
func (Host) Limits() agent.Limits {
	return agent.Limits{InjectMax: injectMax, InjectUnit: agent.Bytes, EndBudget: endTimeout * time.Second}
}

// kinds maps Codex's hook events to what they mean to continuity; any
// other event (UserPromptSubmit, PreToolUse, PostToolUse, …) is Ignore.
var kinds = map[string]agent.Kind{
	"SessionStart": agent.Start,
	"PreCompact":   agent.BeforeCompact,
	"PostCompact":  agent.AfterCompact,
	"Stop":         agent.TurnEnd,
	"SessionEnd":   agent.End,
}

// Decode turns a Codex hook payload into an event. A field of the wrong
// type reads as empty. Codex's PostCompact carries no summary: Decode
// takes it from the session's rollout (its last compacted record), when
// the rollout lies where Codex keeps them.
func (h Host) Decode(payload []byte) (agent.Event, error) {
	if !gjson.ValidBytes(payload) {
		return agent.Event{}, errors.New("codex: payload is not JSON")
	}
	p := gjson.ParseBytes(payload)
	if !p.IsObject() {
		return agent.Event{}, errors.New("codex: payload is not a JSON object")
	}
	str := func(key string) string { return p.Get(gjson.Escape(key)).Str }
	ev := agent.Event{
		Name:       str("hook_event_name"),
		SessionID:  str("session_id"),
		Transcript: str("transcript_path"),
		Cwd:        str("cwd"),
	}
	ev.Kind = kinds[ev.Name]
	switch ev.Kind {
	case agent.Start:
		ev.Source = str("source")
	case agent.BeforeCompact:
		ev.Trigger = str("trigger")
	case agent.AfterCompact:
		ev.Trigger = str("trigger") // the summary: Refine, from the rollout
	case agent.TurnEnd:
		ev.LastReply = str("last_assistant_message")
	case agent.End:
		ev.Reason = str("reason")
	}
	return ev, nil
}

// startOutput is what Codex reads from a SessionStart hook's stdout: the
// context becomes a developer message before the user's prompt. Codex
// accepts systemMessage too (it never reaches the model).
type startOutput struct {
	SystemMessage      string `json:"systemMessage,omitempty"`
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Encode prints the answer to a SessionStart; every other event prints
// nothing (Codex wants nothing from them, and output on Stop could ask it
// to go on).
func (Host) Encode(ev agent.Event, a agent.Answer) ([]byte, error) {
	if ev.Kind != agent.Start || (a.Context == "" && a.Message == "") {
		return nil, nil
	}
	var out startOutput
	out.SystemMessage = a.Message
	out.HookSpecificOutput.HookEventName = "SessionStart"
	out.HookSpecificOutput.AdditionalContext = a.Context
	return json.Marshal(out)
}

// Refine gives PostCompact the compaction summary, which Codex's payload
// does not carry: the last compacted record of the session's rollout. The
// core calls it only in a repository that has opted in.
func (h Host) Refine(ev agent.Event) agent.Event {
	if ev.Kind == agent.AfterCompact && ev.Summary == "" {
		ev.Summary = h.summary(ev.Transcript)
	}
	return ev
}

// ProjectDir is "": Codex names no project directory in a hook's
// environment (the payload's cwd is the only one).
func (Host) ProjectDir(func(string) string) string { return "" }

// ExportLedger does nothing: Codex has no file a hook can write to set
// the agent's later environment. The agent's shell commands carry the
// session id instead (see sessionFromEnv).
func (Host) ExportLedger(func(string) string, string) (bool, error) { return false, nil }

// sessionFromEnv is the Codex session (thread) id that Codex sets in the
// environment of every command the agent runs (CODEX_THREAD_ID, and
// CODEX_SESSION_ID with the same value), "" outside Codex. It equals the
// hooks' session_id, so `continuity done …` run by the agent can find the
// ledger the session's hooks use. Hooks themselves do not get it.
func sessionFromEnv(getenv func(string) string) string {
	if id := getenv("CODEX_THREAD_ID"); id != "" {
		return id
	}
	return getenv("CODEX_SESSION_ID")
}

// summary is the last compaction summary in the rollout at path ("" when
// none, or when path is not a rollout under $CODEX_HOME/sessions). Only
// compacted records are decoded; the rest streams past.
func (h Host) summary(path string) string {
	dir := h.TranscriptDir(h.env, "")
	if dir == "" || !filepath.IsAbs(path) {
		return ""
	}
	// Inside the sessions directory once symlinks are resolved, and a
	// regular file (never a FIFO or a /proc file, which could hold the hook).
	fh, _, err := safefile.OpenRegular(path, dir)
	if err != nil {
		return ""
	}
	fh.Close()
	// Within the hook's own budget: a long rollout is cut short, not waited on.
	deadline := time.Now().Add(h.Limits().EndBudget * 6 / 10)
	f, _, err := transcript.ReadFrom([]string{path}, transcript.NewDecoder(summaryRecords{&records{}}, "", nil), nil, deadline)
	if err != nil {
		return ""
	}
	return f.CompactSummary
}

// summaryRecords reads compacted records only.
type summaryRecords struct{ *records }

func (summaryRecords) Wants(head []byte) bool {
	t := gjson.GetBytes(head, "type")
	return !t.Exists() || t.Str == "compacted"
}

// NewDecoder returns a decoder of Codex rollout records.
func (Host) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return newDecoder(root, red)
}

// home is $CODEX_HOME, else ~/.codex ("" when neither is known).
func home(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// TranscriptDir is where Codex writes rollouts, for every project:
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<session id>.jsonl.
func (Host) TranscriptDir(getenv func(string) string, _ string) string {
	h := home(getenv)
	if h == "" {
		return ""
	}
	return filepath.Join(h, "sessions")
}
