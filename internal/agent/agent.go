// Package agent is the contract between continuity's core and the coding
// agents it serves, in this one file: the neutral Event and Answer, and Host,
// what every agent package implements, with the optional capabilities
// declared beside it. An agent package (internal/agent/claude, codex,
// gemini, …) knows one agent: the payload its hooks receive and the answer
// they print, where its transcripts live and how their records read, how its
// hooks are registered, and its limits. Nothing outside an agent package
// knows an agent's names, paths or environment variables.
package agent

import (
	"time"

	"github.com/continuity-md/continuity/internal/transcript"
)

// Kind is what a hook event means to continuity, whatever the host calls it.
type Kind int

// The kinds of event continuity acts on.
const (
	Ignore        Kind = iota // an event continuity does nothing for
	Start                     // a session starts or restarts (Event.Source says why)
	BeforeCompact             // context is about to be compacted
	AfterCompact              // compaction finished (Event.Summary, when the host gives it)
	BeforePrompt              // the agent is about to take a prompt (Gemini's BeforeAgent)
	TurnEnd                   // a turn finished: a checkpoint, no committed file
	End                       // the session ends
)

// Event is one hook call, decoded from the host's payload.
type Event struct {
	Kind       Kind
	Name       string // the host's own event name ("SessionStart"), for messages and local state
	Source     string // Start: startup, resume, clear, compact, fork
	Trigger    string // BeforeCompact, AfterCompact: manual or auto
	Reason     string // End
	SessionID  string // the agent's session id
	Transcript string // path of the session's transcript, "" when the host gave none
	Cwd        string // absolute working directory of the session, "" when not given
	Summary    string // AfterCompact: the compaction summary, raw
	Prompt     string // BeforePrompt
	Compacted  bool   // BeforePrompt: the host saw a compaction since the session's last injection
	LastReply  string // TurnEnd: the agent's last reply, when the host sends it
	// Subagent is the subagent's id when a subagent's hook fired: SessionID
	// is then its parent session's, to which its work belongs.
	Subagent string
	// At is when the host says the call was made (zero when it does not):
	// a host whose transcript lags behind its hooks finds the call's own
	// record by it.
	At time.Time
}

// Answer is what the core returns for an event: text for the model and a
// line for the person. The host encodes it in its own output shape.
type Answer struct {
	Context string // additional context for the model ("" for none)
	Message string // one line shown to the person ("" for none)
}

// Unit is what an injection limit counts.
type Unit int

// Units of an injection limit.
const (
	Runes Unit = iota // characters (Claude Code)
	Bytes             // bytes of UTF-8 (Codex)
)

// Limits are a host's measured limits.
type Limits struct {
	// InjectMax is the largest injected context that reaches the model
	// whole, in InjectUnit; 0 when no limit was found.
	InjectMax  int
	InjectUnit Unit
	// EndBudget is how long the host lets a session-end hook run before it
	// kills it, with the timeout init registers.
	EndBudget time.Duration
}

// Scope says where hooks are registered.
type Scope int

// Registration scopes.
const (
	Project Scope = iota // the repository's own settings
	User                 // the user's settings, for every project
)

// Status is what a host's settings say about continuity's registration.
type Status struct {
	// Events maps each host event continuity registers to the command
	// registered for it ("" when missing).
	Events map[string]string
	// Stale names registrations in an older form that init would rewrite.
	Stale []string
	// Notes are facts the person must act on that the settings alone show
	// (for example hooks the host asks about before it runs them).
	Notes []string
	// Ignored says why the host will not run the registered hooks at all
	// until the person acts (a project it does not trust, hooks switched
	// off): doctor fails on each.
	Ignored []string
}

// Host is one coding agent: what every host can do, as four small
// interfaces. The optional capabilities below it are what only some hosts
// do: each is a named interface a host package implements, found once when
// the host is chosen (Serve) and asked of the Served value after that.
type Host interface {
	Identity
	Hooks
	Transcripts
	Registrar
}

// Identity names a host and its measured limits.
type Identity interface {
	// Name is the host's name on the command line: claude, codex, gemini.
	Name() string
	// Title is the host's name for people: "Claude Code".
	Title() string
	// Limits are the host's measured limits.
	Limits() Limits
}

// Hooks translates one hook call: the payload in, the answer out.
type Hooks interface {
	// Decode turns a hook payload into an event. It fails only when the
	// payload is not one the host could have sent (not a JSON object).
	Decode(payload []byte) (Event, error)
	// Encode is what the hook prints on stdout for ev and the core's
	// answer; nil prints nothing.
	Encode(ev Event, a Answer) ([]byte, error)
	// ProjectDir is the project directory the host names in the hook's
	// environment ("" when none); used when the payload has no cwd.
	ProjectDir(getenv func(string) string) string
	// ExportLedger tells the agent's later shell commands which ledger is
	// active, where the host offers a way (false when it offers none).
	ExportLedger(getenv func(string) string, name string) (bool, error)
}

// Transcripts is where a host's transcripts live and how they read.
type Transcripts interface {
	// NewDecoder returns a decoder of this host's transcript records;
	// root makes file paths relative, red redacts every text kept.
	NewDecoder(root string, red func(string) string) transcript.Decoder
	// TranscriptDir is where the host keeps the transcripts of sessions in
	// project root ("" when unknown); a transcript read by a hook must lie
	// inside it.
	TranscriptDir(getenv func(string) string, root string) string
}

// Registrar registers continuity's hooks in the host's settings.
type Registrar interface {
	// SettingsPath is the file init edits for scope.
	SettingsPath(getenv func(string) string, root string, scope Scope) (string, error)
	// Register adds continuity's hooks, running command, to settings (the
	// file's bytes; nil for a new file), keeping everything else byte for
	// byte. Registering twice changes nothing the second time.
	Register(settings []byte, command string) (out []byte, changed bool, err error)
	// Unregister removes exactly what Register added.
	Unregister(settings []byte) (out []byte, changed bool, err error)
	// Registered reports what settings hold of continuity's registration.
	Registered(settings []byte) (Status, error)
}

// The optional capabilities.

// A Refiner is a host whose reading of some events needs a look at files
// the event names (the transcript's tail, settings): Decode reads nothing
// but the payload, and Refine completes the event from it. The core calls
// Refine only once the project is known to have opted in, so a hook in a
// repository that has not reads nothing a payload names. Refine may turn
// an event into Ignore.
type Refiner interface {
	Refine(ev Event) Event
}

// A TranscriptRooter keeps a project's transcripts in more than one
// directory (Claude Code keeps one per directory a session started in).
type TranscriptRooter interface {
	TranscriptRoots(getenv func(string) string, root string) []string
}

// A SessionFiler keeps a session's records in more than one file (Claude
// Code's subagents): the files to read after the transcript at path.
type SessionFiler interface {
	TranscriptFiles(path string) []string
}

// A SessionLister finds the transcripts it keeps of sessions that ran in
// any of dirs (a repository's worktrees), for `continuity index`: only
// those whose own records say they ran there, never another project's.
type SessionLister interface {
	Sessions(getenv func(string) string, dirs []string) []Found
}

// Found is one session's transcript a SessionLister found.
type Found struct {
	Session string // the agent's session id
	Path    string // its transcript
}

// A ClientNamer names the client's executables, so that recovery can tell
// the client process from a shell between it and the hook.
type ClientNamer interface {
	ClientNames() []string
}

// A SettingsFiler reads more settings files than its project and user
// ones (a local, uncommitted one), most specific first.
type SettingsFiler interface {
	SettingsFiles(getenv func(string) string, root string) ([]string, error)
}

// An EventLister says in which order it registers its events.
type EventLister interface {
	HookEvents() []string
}

// A TrustNoter keeps its trust in a project outside its hook settings
// (Gemini CLI's trusted folders): what the person must do, if anything,
// for the project's hooks to run. ignored says the host will not run them
// (it does not trust the project: doctor fails); notes say what it may
// ask or skip that continuity cannot tell from its files.
type TrustNoter interface {
	TrustNotes(getenv func(string) string, root string) (ignored, notes []string)
}

// An EventNamer is a host whose payloads do not name their event (Copilot
// CLI's native hooks): init registers each event's name on the hook's
// command line (--event NAME), and the hook passes it on. ForEvent is the
// host reading payloads of that event.
type EventNamer interface {
	ForEvent(name string) Host
}

// A Guest is a client that also runs other agents' hook registrations
// (Copilot CLI runs the hooks of Claude Code's .claude/settings.json).
// Hosting reports whether the hook registered for the agent called
// registrant is, by its environment, really run by this client; when it
// is, h is the host that serves it (this client, under its own name and
// output shape), or nil when this client's own registration answers the
// same call and the borrowed one must do nothing.
type Guest interface {
	Hosting(registrant string, getenv func(string) string) (h Host, hosting bool)
}

// Sample is a host's way of playing the recorded session: how a person
// starts it, the hook calls around a compaction, and what the start hook's
// answer injects (claude.Sample): the demo plays it.
type Sample interface {
	Start() string                                           // what a person types to start a session
	Typed() string                                           // the prompt before a command typed inside it
	Private(key string) bool                                 // a variable the demo's hook calls must not see
	Home(dir string) []string                                // the environment that keeps the client's files under dir
	Compaction(id, transcript, cwd, summary string) [][]byte // the payloads around a compaction
	Context(out []byte) (string, error)                      // the context a start hook's output injects
}

// Served is a host with its optional capabilities found once, where a
// command chooses the host (as rclone's Features.Fill): the rest of the
// code asks these fields, never the host's type. A nil field is a
// capability the host does not have.
type Served struct {
	Host
	// Refine completes an event from the files it names (Refiner).
	Refine func(ev Event) Event
	// TranscriptRoots lists every directory that keeps the project's
	// transcripts (TranscriptRooter).
	TranscriptRoots func(getenv func(string) string, root string) []string
	// TranscriptFiles lists a session's files, its transcript first
	// (SessionFiler).
	TranscriptFiles func(path string) []string
	// Sessions finds the transcripts of a repository's sessions
	// (SessionLister).
	Sessions func(getenv func(string) string, dirs []string) []Found
	// ClientNames names the client's executables (ClientNamer); nil when
	// the host names none.
	ClientNames []string
	// SettingsFiles lists every settings file the host reads, the most
	// specific first (SettingsFiler).
	SettingsFiles func(getenv func(string) string, root string) ([]string, error)
	// HookEvents are the host's events in the order it registers them
	// (EventLister); nil when it does not say.
	HookEvents []string
	// TrustNotes say what the person must do for the project's hooks to
	// run (TrustNoter).
	TrustNotes func(getenv func(string) string, root string) (ignored, notes []string)
	// ForEvent is the host reading payloads of the event it is told
	// (EventNamer), already served.
	ForEvent func(name string) Served
	// Hosting reports whether this client runs the hook registered for
	// registrant, and the host that serves it (Guest), already served;
	// served.Host is nil when the client's own registration answers.
	Hosting func(registrant string, getenv func(string) string) (served Served, hosting bool)
}

// Serve finds h's optional capabilities, once. Serving a Served host
// returns it unchanged.
func Serve(h Host) Served {
	if s, ok := h.(Served); ok {
		return s
	}
	s := Served{Host: h}
	if r, ok := h.(Refiner); ok {
		s.Refine = r.Refine
	}
	if r, ok := h.(TranscriptRooter); ok {
		s.TranscriptRoots = r.TranscriptRoots
	}
	if f, ok := h.(SessionFiler); ok {
		s.TranscriptFiles = f.TranscriptFiles
	}
	if l, ok := h.(SessionLister); ok {
		s.Sessions = l.Sessions
	}
	if n, ok := h.(ClientNamer); ok {
		s.ClientNames = n.ClientNames()
	}
	if f, ok := h.(SettingsFiler); ok {
		s.SettingsFiles = f.SettingsFiles
	}
	if l, ok := h.(EventLister); ok {
		s.HookEvents = l.HookEvents()
	}
	if n, ok := h.(TrustNoter); ok {
		s.TrustNotes = n.TrustNotes
	}
	if n, ok := h.(EventNamer); ok {
		s.ForEvent = func(name string) Served { return Serve(n.ForEvent(name)) }
	}
	if g, ok := h.(Guest); ok {
		s.Hosting = func(registrant string, getenv func(string) string) (Served, bool) {
			served, hosting := g.Hosting(registrant, getenv)
			if served == nil {
				return Served{}, hosting
			}
			return Serve(served), hosting
		}
	}
	return s
}
