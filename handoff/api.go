package handoff

// This file fixes the package's API for its callers (cmd, inject).
// Bodies are filled in by the implementation files.

import (
	"errors"
	"time"

	"github.com/continuity-md/continuity/ledger"
)

// Facts is what a transcript says about a session: its State (the plan,
// checks, commits and calls in flight; the task and uncommitted paths
// come from the ledger and git), and the lists and texts a handoff shows.
type Facts struct {
	State
	Files          []string `json:"files"`               // written or edited, relative to the repository root, first touch first
	Commands       []string `json:"commands"`            // notable Bash commands, in order, deduplicated
	Errors         []string `json:"errors"`              // failed tool calls and commands, one line each; ResolvedMark once the same command succeeded
	Outside        []string `json:"outside,omitempty"`   // files written or edited outside the repository (the agent's own memory files)
	Omitted        Omitted  `json:"omitted,omitempty"`   // how many entries the bounded lists left out
	LookOnly       int      `json:"look_only,omitempty"` // commands left out because they only look at files
	Started        string   `json:"started,omitempty"`   // the first record's timestamp (RFC 3339), "" when none had one
	Prompts        []string `json:"prompts"`             // the person's prompts, in order (not tool results, not hook output)
	LastAssistant  string   `json:"last_assistant"`
	CompactSummary string   `json:"compact_summary"`       // the latest compaction summary
	Compactions    int      `json:"compactions,omitempty"` // compaction summaries seen
	Since          *Since   `json:"since,omitempty"`       // what happened after the latest compaction; nil when there was none
	Model          string   `json:"model,omitempty"`       // the model of the last main-agent reply
	Tokens         int      `json:"tokens,omitempty"`      // tokens in context at the last main-agent reply, from its usage (never estimated)
	Partial        bool     `json:"partial,omitempty"`     // reading stopped before the end (deadline): the facts cover only what was read
	Records        int      `json:"records"`               // records the host's decoder recognised: 0 from a non-empty input means it is not a transcript
	Lines          int      `json:"lines"`                 // lines read
	SkippedLines   int      `json:"skipped_lines"`         // lines over MaxLineBytes, skipped
	Bytes          int64    `json:"bytes"`                 // bytes read
}

// Omitted counts the entries a bounded list of Facts left out (the oldest).
type Omitted struct {
	Files    int `json:"files,omitempty"`
	Commands int `json:"commands,omitempty"`
	Errors   int `json:"errors,omitempty"`
}

// Since is what a session did after its latest compaction, so that a
// handoff's summary is never older than the work (see SummaryOf).
type Since struct {
	Prompts       []string `json:"prompts,omitempty"`        // the person's prompts after it
	Files         []string `json:"files,omitempty"`          // files first touched after it (subagents' included)
	Commands      []string `json:"commands,omitempty"`       // commands run after it
	Errors        []string `json:"errors,omitempty"`         // failed tool calls after it
	LastAssistant string   `json:"last_assistant,omitempty"` // the latest reply after it; "" when none came
}

// Meta is a handoff's front matter.
type Meta struct {
	Stream       string    `json:"stream"`
	Created      time.Time `json:"created"`
	Event        string    `json:"event"` // pre-compact, session-end, manual
	Trigger      string    `json:"trigger,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	AgentSession string    `json:"agent_session,omitempty"`
	Agent        string    `json:"agent,omitempty"`  // the host that wrote it: claude, codex, gemini
	Model        string    `json:"model,omitempty"`  // the model in use when it was written
	Tokens       int       `json:"tokens,omitempty"` // tokens in context when it was written, from the transcript
	Branch       string    `json:"branch,omitempty"`
	Commit       string    `json:"commit,omitempty"`
	Dirty        int       `json:"dirty"`
	Author       string    `json:"author,omitempty"`
	Version      string    `json:"version"`
}

// Handoff is everything a handoff file says.
type Handoff struct {
	Meta
	State

	Summary   string
	Goal      string
	Now       string
	Done      []string
	Next      []string
	Decisions []ledger.Decision
	Files     []string
	Outside   []string // files written outside the repository
	Commands  []string
	Errors    []string
	Prompts   []string
	// Omitted counts what the transcript's bounded lists left out before
	// Files, Commands and Errors: the rendering says so.
	Omitted    Omitted
	LedgerPath string // relative to the repository root
	// NewDecisions are the decisions (their text) that the previous
	// handoff of the work stream did not list; rendering marks them.
	NewDecisions []string
}

// ErrNoHandoff reports that a session has no handoff yet.
var ErrNoHandoff = errors.New("no handoff")

// Redact passes every text a handoff carries from the session and the
// ledger through red (which replaces secrets with markers), before the
// handoff is rendered and its items cut to size: a secret cut in half would
// no longer be recognised.
func (h *Handoff) Redact(red func(string) string) {
	for _, s := range []*string{&h.Summary, &h.Goal, &h.Now, &h.Branch, &h.Author, &h.Task} {
		*s = red(*s)
	}
	for i := range h.Plan {
		h.Plan[i].Subject = red(h.Plan[i].Subject)
	}
	for i := range h.Checks {
		c := &h.Checks[i]
		c.Command = red(c.Command)
		for j := range c.Failing {
			c.Failing[j] = red(c.Failing[j])
		}
	}
	for i := range h.Commits {
		h.Commits[i].Subject = red(h.Commits[i].Subject)
	}
	for _, list := range []*[]string{&h.Done, &h.Next, &h.Files, &h.Read, &h.Outside, &h.Commands, &h.Errors, &h.Prompts, &h.Uncommitted, &h.InFlight} {
		for i := range *list {
			(*list)[i] = red((*list)[i])
		}
	}
	for i := range h.Decisions {
		d := &h.Decisions[i]
		d.Decision, d.Why = red(d.Decision), red(d.Why)
	}
}
