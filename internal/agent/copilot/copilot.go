// Package copilot is GitHub Copilot CLI as a continuity host: its native
// hook payloads (which do not name their event: init puts the event on the
// hook's command line) and the Claude-format payloads it sends to the hooks
// of a repository's .claude/settings.json, the one output shape that
// reaches its model (a flat additionalContext), its events.jsonl
// transcripts, its hooks files and folder trust, and its limits, as
// measured with the real Copilot CLI 1.0.102 (copilot-droid-facts.md;
// testdata/copilot holds the payloads and transcript recorded from it).
//
// Copilot fires no session start after a compaction and does not keep the
// injected context through one: the hook of the next prompt (or tool
// result) gives the model its goal, now and next again.
package copilot

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Host is Copilot CLI. The zero value reads the process environment and
// takes native payloads whose event it is not told; ForEvent names the
// event, Claude reads the Claude-format payloads.
type Host struct {
	event  string              // the native event named on the hook's command line
	claude bool                // Claude-format payloads (.claude/settings.json)
	getenv func(string) string // nil: the process environment
}

var (
	_ agent.Host       = Host{}
	_ agent.Refiner    = Host{}
	_ agent.EventNamer = Host{}
	_ agent.TrustNoter = Host{}
	_ agent.Guest      = Host{}
)

// claudeRegistrant is the agent whose project registration Copilot CLI
// also runs: it reads Claude Code's .claude/settings.json.
const claudeRegistrant = "claude"

// Hosting reports whether a hook registered for registrant runs under
// Copilot CLI (COPILOT_CLI=1 in its environment, which Claude Code never
// sets): there the hook is Copilot's, never Claude Code's. It steps aside
// (nil) when continuity's own Copilot registration answers the same event,
// and otherwise acts as Copilot (its name on the handoffs, its output
// shape).
func (Host) Hosting(registrant string, getenv func(string) string) (agent.Host, bool) {
	if registrant != claudeRegistrant || getenv("COPILOT_CLI") != "1" {
		return nil, false
	}
	root := getenv("COPILOT_PROJECT_DIR")
	if root == "" {
		root = getenv("CLAUDE_PROJECT_DIR")
	}
	if Registered(getenv, root) {
		return nil, true
	}
	return Claude(getenv), true
}

// Claude is Copilot CLI running the hooks of Claude Code's registration,
// with getenv its environment: Claude-format payloads, Copilot's output.
func Claude(getenv func(string) string) Host { return Host{claude: true, getenv: getenv} }

// ForEvent is the host reading native payloads of the event called name.
func (h Host) ForEvent(name string) agent.Host { h.event = name; return h }

func (h Host) env(name string) string {
	if h.getenv != nil {
		return h.getenv(name)
	}
	return os.Getenv(name)
}

// Name is the host's name on the command line.
func (Host) Name() string { return "copilot" }

// Title is the host's name for people.
func (Host) Title() string { return "Copilot CLI" }

// The limits. Flat additionalContext of 9,000 to 200,000 bytes reached the
// model whole: there is no cliff, but what is injected stays in context
// for the whole session, so the budget is the one the other hosts use.
const (
	injectMax = 9000
	// endTimeout is the sessionEnd timeout init registers, in seconds
	// (Copilot's default for every hook; it kills the hook then).
	endTimeout = 30
)

// Limits are Copilot CLI's.
func (Host) Limits() agent.Limits {
	return agent.Limits{InjectMax: injectMax, InjectUnit: agent.Runes, EndBudget: endTimeout * time.Second}
}

// The native events continuity registers, in Copilot's names.
const (
	evSessionStart = "sessionStart"
	evPrompt       = "userPromptSubmitted"
	evPostTool     = "postToolUse"
	evPreCompact   = "preCompact"
	evAgentStop    = "agentStop"
	evSessionEnd   = "sessionEnd"
)

// kinds maps both spellings of an event to what it means to continuity.
// A prompt or a tool result is where the model gets its goal back after a
// compaction (Refine decides whether one happened).
var kinds = map[string]agent.Kind{
	evSessionStart: agent.Start, "SessionStart": agent.Start,
	evPrompt: agent.BeforePrompt, "UserPromptSubmit": agent.BeforePrompt,
	evPostTool: agent.BeforePrompt, "PostToolUse": agent.BeforePrompt,
	evPreCompact: agent.BeforeCompact, "PreCompact": agent.BeforeCompact,
	evAgentStop: agent.TurnEnd, "Stop": agent.TurnEnd,
	evSessionEnd: agent.End, "SessionEnd": agent.End,
}

// errNotObject is Decode's one failure.
var errNotObject = errors.New("copilot: payload is not a JSON object")

// Decode turns a payload into an event. A native payload's event is the
// one named on the command line; a Claude-format one names its own. Only
// preCompact and agentStop carry the transcript's path: for the others it
// is derived from COPILOT_HOME and the session id.
func (h Host) Decode(payload []byte) (agent.Event, error) {
	payload = transcript.ValidUTF8(payload)
	if !gjson.ValidBytes(payload) {
		return agent.Event{}, errNotObject
	}
	p := gjson.ParseBytes(payload)
	if !p.IsObject() {
		return agent.Event{}, errNotObject
	}
	str := func(native, claude string) string {
		key := native
		if h.claude {
			key = claude
		}
		return strings.ReplaceAll(p.Get(gjson.Escape(key)).Str, "\x00", "")
	}
	ev := agent.Event{Name: h.event, SessionID: str("sessionId", "session_id"), Cwd: str("cwd", "cwd"),
		Transcript: str("transcriptPath", "transcript_path")}
	if h.claude {
		ev.Name = str("", "hook_event_name")
		// The same instant as the native payload's, as text.
		ev.At, _ = time.Parse(time.RFC3339Nano, str("", "timestamp"))
	} else if ms := p.Get("timestamp").Int(); ms > 0 {
		ev.At = time.UnixMilli(ms)
	}
	ev.Kind = kinds[ev.Name]
	switch ev.Kind {
	case agent.Start:
		ev.Source = source(str("source", "source"))
	case agent.BeforeCompact:
		ev.Trigger = str("trigger", "trigger")
	case agent.End:
		ev.Reason = str("reason", "reason")
	case agent.BeforePrompt:
		ev.Prompt = str("prompt", "prompt")
	}
	if ev.Transcript == "" && ev.Kind != agent.Ignore {
		ev.Transcript = h.transcriptOf(ev.SessionID)
	}
	return ev, nil
}

// claudeNames are the native names of the events Copilot sends to the
// hooks of a Claude-format registration: its events file records each
// call under the native name.
var claudeNames = map[string]string{"SessionStart": evSessionStart, "UserPromptSubmit": evPrompt,
	"PostToolUse": evPostTool, "PreCompact": evPreCompact, "Stop": evAgentStop, "SessionEnd": evSessionEnd}

// nativeName is the native name of an event called name in either format.
func nativeName(name string) string {
	if n := claudeNames[name]; n != "" {
		return n
	}
	return name
}

// source is Copilot's session start source in continuity's words: a new
// session starts ("new"), a resumed one resumes.
func source(s string) string {
	switch s {
	case "new", "":
		return "startup"
	}
	return s
}

// transcriptOf is where Copilot keeps session id's events,
// $COPILOT_HOME/session-state/<id>/events.jsonl ("" for an id that is no
// single path element).
func (h Host) transcriptOf(id string) string {
	dir := h.TranscriptDir(h.env, "")
	if dir == "" || id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return ""
	}
	return filepath.Join(dir, id, "events.jsonl")
}

// output is what Copilot reads from a sessionStart, userPromptSubmitted or
// postToolUse hook: only a flat additionalContext reaches the model
// (hookSpecificOutput is dropped without a word).
type output struct {
	AdditionalContext string `json:"additionalContext"`
}

// Encode prints the context for a session start and for a prompt or tool
// result after a compaction; nothing otherwise. Copilot shows the person no
// message from a hook, so the answer's message is not printed.
func (Host) Encode(ev agent.Event, a agent.Answer) ([]byte, error) {
	if a.Context == "" || (ev.Kind != agent.Start && ev.Kind != agent.BeforePrompt) {
		return nil, nil
	}
	ctx := a.Context
	if !strings.HasPrefix(ctx, ourPrefix) {
		ctx = ourPrefix + ":\n" + ctx // how Refine knows continuity's injections
	}
	b, err := json.Marshal(output{AdditionalContext: ctx})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// flushWait bounds how long a handoff waits for Copilot to write the
// events up to its own call (it writes them about every half second,
// measured); promptWait, how long a prompt's or tool result's hook waits
// before a refresh (the person is waiting on it).
const (
	flushWait  = 3 * time.Second
	promptWait = 1500 * time.Millisecond
)

// Refine decides whether a prompt or a tool result comes after a
// compaction that took away what continuity injected: the session's events
// show a compaction starting after the last injection of continuity's.
// Before a handoff it waits until Copilot has written the session's events
// up to this very hook call. The core calls it only in a repository that
// has opted in.
func (h Host) Refine(ev agent.Event) agent.Event {
	switch ev.Kind {
	case agent.BeforePrompt:
		// Copilot writes its events behind: a compaction last in the file
		// may have been followed by an injection not written yet (this
		// session's start a moment ago, the previous prompt's refresh), so
		// before refreshing (only then: after a compaction) the events are
		// read again once they reach this very call.
		if ev.Compacted = h.compactedSinceInjection(ev.Transcript); ev.Compacted {
			if h.awaitRecord(ev.Transcript, nativeName(ev.Name), ev.At, promptWait) {
				ev.Compacted = h.compactedSinceInjection(ev.Transcript)
			}
		}
	case agent.BeforeCompact, agent.End:
		h.awaitRecord(ev.Transcript, nativeName(ev.Name), ev.At, flushWait)
	}
	return ev
}

// ProjectDir is the project directory Copilot names in a hook's
// environment.
func (Host) ProjectDir(getenv func(string) string) string { return getenv("COPILOT_PROJECT_DIR") }

// ExportLedger: Copilot offers no way to set the environment of the
// agent's later shell commands.
func (Host) ExportLedger(func(string) string, string) (bool, error) { return false, nil }

// NewDecoder returns a decoder of Copilot's events.jsonl records.
func (Host) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return newDecoder(root, red)
}

// Home is Copilot's own directory: $COPILOT_HOME, else ~/.copilot ("" when
// neither is known).
func Home(getenv func(string) string) string {
	if h := getenv("COPILOT_HOME"); h != "" {
		return h
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".copilot")
	}
	return ""
}

// TranscriptDir is where Copilot keeps every session's events, whatever
// the project: $COPILOT_HOME/session-state/<session id>/events.jsonl. A
// transcript a hook reads must lie inside it.
func (Host) TranscriptDir(getenv func(string) string, _ string) string {
	h := Home(getenv)
	if h == "" {
		return ""
	}
	return filepath.Join(h, "session-state")
}

var _ agent.ClientNamer = Host{}

// ClientNames are the command names of Copilot CLI's client process. Its
// native binary (which the npm package's loader only starts) is a Node
// single executable that names its main thread, and so its process,
// "MainThread" (measured with 1.0.102); "copilot" is the file's name.
func (Host) ClientNames() []string { return []string{"MainThread", "copilot"} }
