// Package gemini is continuity's host for Google's Gemini CLI: its hook
// payloads and answers, its chat transcripts, its settings, and the design
// its hooks need. Gemini CLI fires PreCompress before every model call
// whether or not anything is compressed, has no event after a compression
// and no SessionStart after it, and drops the prompts that carried
// SessionStart's context when a session is resumed; so the hooks decide,
// from the payload and a cheap look at the tail of the chat file, when a
// compression is really coming (a handoff then) and when the model has lost
// what continuity injected (a short refresh at the next prompt).
//
// Facts measured with the real Gemini CLI 0.61.0 offline are in
// /work/shared/codex-gemini-facts.md; the payloads and chat files the tests
// read are in testdata/gemini.
package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/transcript"
)

// The events continuity registers, in Gemini CLI's names.
const (
	evSessionStart = "SessionStart"
	evBeforeAgent  = "BeforeAgent"
	evPreCompress  = "PreCompress"
	evAfterAgent   = "AfterAgent"
	evSessionEnd   = "SessionEnd"
)

// injectMax is the injection budget in characters. Gemini CLI has no cliff
// (200,000 characters arrived whole), but what SessionStart injects rides
// on the prompt and BeforeAgent's refresh on a later one: every character
// stays in the model's context for the rest of the session. The budget the
// Claude Code host uses keeps the ledger and the latest handoff whole in
// practice and the same ledger reads the same on every agent.
const injectMax = 9000

// endTimeout is the SessionEnd timeout init registers, in milliseconds.
// Gemini CLI waits for a SessionEnd hook to finish (it is not clamped like
// Codex's); past its timeout it kills the hook, so the budget is the timeout.
const endTimeout = 10000

// Host is Gemini CLI. The zero value reads the process environment; Getenv,
// when set, replaces it (tests).
type Host struct {
	Getenv func(string) string
}

var (
	_ agent.Host    = Host{}
	_ agent.Refiner = Host{}
)

// New returns the Gemini CLI host.
func New() Host { return Host{} }

func (h Host) getenv(name string) string {
	if h.Getenv != nil {
		return h.Getenv(name)
	}
	return os.Getenv(name)
}

// Name is the host's name on the command line.
func (Host) Name() string { return "gemini" }

// Title is the host's name for people.
func (Host) Title() string { return "Gemini CLI" }

// Limits are Gemini CLI's measured limits.
func (Host) Limits() agent.Limits {
	return agent.Limits{InjectMax: injectMax, InjectUnit: agent.Runes, EndBudget: endTimeout * time.Millisecond}
}

// payload is the part of a Gemini CLI hook payload continuity reads.
type payload struct {
	SessionID  string `json:"session_id"`
	Transcript string `json:"transcript_path"`
	Cwd        string `json:"cwd"`
	Event      string `json:"hook_event_name"`
	Source     string `json:"source"`          // SessionStart: startup, resume, clear
	Reason     string `json:"reason"`          // SessionEnd: exit, clear, logout, …
	Trigger    string `json:"trigger"`         // PreCompress: auto or manual
	Prompt     string `json:"prompt"`          // BeforeAgent, AfterAgent
	Response   string `json:"prompt_response"` // AfterAgent
}

// errNotObject is Decode's one failure.
var errNotObject = errors.New("continuity: decode Gemini CLI hook payload: not a JSON object")

// Decode turns a Gemini CLI hook payload into an event. PreCompress and
// BeforeAgent look at the tail of the chat file (and, for PreCompress near
// the threshold, at the settings): see compressionComing and refreshNeeded.
// A chat file that cannot be read decides for doing nothing.
func (h Host) Decode(b []byte) (agent.Event, error) {
	p, err := parsePayload(b)
	if err != nil {
		return agent.Event{}, err
	}
	ev := agent.Event{Kind: agent.Ignore, Name: p.Event, SessionID: p.SessionID, Transcript: p.Transcript, Cwd: p.Cwd}
	switch p.Event {
	case evSessionStart:
		ev.Kind, ev.Source = agent.Start, p.Source
		if ev.Source == "" {
			ev.Source = "startup"
		}
	case evSessionEnd:
		ev.Kind, ev.Reason = agent.End, p.Reason
	case evPreCompress:
		// Refine looks at the chat file: only a compression that is really
		// coming keeps it a BeforeCompact.
		ev.Kind, ev.Trigger = agent.BeforeCompact, p.Trigger
	case evBeforeAgent:
		// A prompt that carries continuity's context itself (SessionStart's,
		// in headless mode) needs no refresh: nothing to do.
		if !strings.Contains(p.Prompt, string(patOurs)) {
			ev.Kind = agent.BeforePrompt
		}
		ev.Prompt = stripHookContext(p.Prompt)
	case evAfterAgent:
		ev.Kind, ev.LastReply = agent.TurnEnd, p.Response
	}
	return ev, nil
}

// Refine decides what Decode cannot from the payload alone, from the chat
// file's tail and the settings: a PreCompress is a BeforeCompact only when
// a compression is really coming (or asked for), and a BeforeAgent is
// Compacted when the model lost continuity's context.
func (h Host) Refine(ev agent.Event) agent.Event {
	p := payload{Transcript: ev.Transcript, Cwd: ev.Cwd, Trigger: ev.Trigger}
	switch {
	case ev.Kind == agent.BeforeCompact:
		if p.Trigger != "manual" && !h.compressionComing(p) {
			ev.Kind = agent.Ignore
		}
	case ev.Kind == agent.BeforePrompt:
		ev.Compacted = h.refreshNeeded(p)
	}
	return ev
}

// parsePayload reads a hook payload; fields of unexpected types read as
// empty. It fails only when b is not a JSON object.
func parsePayload(b []byte) (payload, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return payload{}, errNotObject
	}
	var p payload
	if err := json.Unmarshal(trimmed, &p); err != nil {
		// Fields of unexpected types: keep what can be read, by name only.
		var m map[string]json.RawMessage
		if json.Unmarshal(trimmed, &m) != nil {
			return payload{}, errNotObject
		}
		p = payload{}
		str := func(k string) string {
			var s string
			_ = json.Unmarshal(m[k], &s)
			return s
		}
		p.Event, p.SessionID, p.Transcript, p.Cwd = str("hook_event_name"), str("session_id"), str("transcript_path"), str("cwd")
	}
	return p, nil
}

// ourMark opens every context continuity injects, as the model sees it:
// Gemini CLI wraps a hook's context in <hook_context> (escaping < and >),
// and the core's renderer starts it with "continuity". Encode makes sure
// it does, so the chat file shows which injections are ours.
const (
	ourPrefix = "continuity"
	ourMark   = "<hook_context>" + ourPrefix
)

// output is a Gemini CLI hook's answer. Only hookSpecificOutput's
// additionalContext reaches the model; systemMessage is shown to the person.
type output struct {
	SystemMessage string          `json:"systemMessage,omitempty"`
	Specific      *specificOutput `json:"hookSpecificOutput,omitempty"`
}

type specificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Encode is what the hook prints: JSON with the context for SessionStart
// and BeforeAgent (the only events whose context reaches the model) and the
// message as a systemMessage; nil when there is neither.
func (Host) Encode(ev agent.Event, a agent.Answer) ([]byte, error) {
	var out output
	if a.Context != "" && (ev.Kind == agent.Start || ev.Kind == agent.BeforePrompt) {
		ctx := a.Context
		if !strings.HasPrefix(ctx, ourPrefix) {
			ctx = ourPrefix + ":\n" + ctx
		}
		name := ev.Name
		if name == "" {
			name = evSessionStart
			if ev.Kind == agent.BeforePrompt {
				name = evBeforeAgent
			}
		}
		out.Specific = &specificOutput{HookEventName: name, AdditionalContext: ctx}
	}
	out.SystemMessage = a.Message
	if out.Specific == nil && out.SystemMessage == "" {
		return nil, nil
	}
	return json.Marshal(out)
}

// ProjectDir is the project directory Gemini CLI names in the hook's
// environment.
func (Host) ProjectDir(getenv func(string) string) string {
	if d := getenv("GEMINI_PROJECT_DIR"); d != "" {
		return d
	}
	return getenv("GEMINI_CWD")
}

// ExportLedger: Gemini CLI offers no way to set the environment of the
// agent's later shell commands.
func (Host) ExportLedger(func(string) string, string) (bool, error) { return false, nil }

// NewDecoder returns a decoder of Gemini CLI chat records.
func (Host) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return newDecoder(root, red)
}

// geminiHome is the directory Gemini CLI uses as the home directory:
// GEMINI_CLI_HOME, else the user's home.
func geminiHome(getenv func(string) string) string { return agent.Home(getenv, "GEMINI_CLI_HOME") }

// TranscriptDir is where Gemini CLI keeps the chats of project root:
// HOME/.gemini/tmp/<project>/chats, <project> being the name
// HOME/.gemini/projects.json gives root. When the registry does not name
// root (yet), it is HOME/.gemini/tmp, which holds every project's chats.
func (Host) TranscriptDir(getenv func(string) string, root string) string {
	home := geminiHome(getenv)
	if home == "" {
		return ""
	}
	tmp := filepath.Join(home, ".gemini", "tmp")
	if id := projectID(filepath.Join(home, ".gemini", "projects.json"), root); id != "" {
		return filepath.Join(tmp, id, "chats")
	}
	return tmp
}

// chatStore is the directory that holds every project's chats,
// HOME/.gemini/tmp ("" when no home is known): a transcript a hook reads
// must lie inside it.
func (h Host) chatStore() string {
	home := geminiHome(h.getenv)
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini", "tmp")
}

// TranscriptRoots are the directories a hook may read the project's chats
// from: all of HOME/.gemini/tmp, since a session started in a
// subdirectory of root, or by a Gemini CLI that names projects by a hash,
// keeps its chats under another name than TranscriptDir's.
func (Host) TranscriptRoots(getenv func(string) string, _ string) []string {
	return []string{Host{Getenv: getenv}.chatStore()}
}

// projectID is the short name Gemini CLI's project registry gives root
// ("" when none, or when the name would leave the tmp directory).
func projectID(registry, root string) string {
	b, err := safefile.Read(registry, safefile.Options{MaxSize: 4 << 20})
	if err != nil {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil {
		return ""
	}
	id := reg.Projects[filepath.Clean(root)]
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return ""
	}
	return id
}
