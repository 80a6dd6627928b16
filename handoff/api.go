package handoff

// This file fixes the package's API for its callers (cmd, inject).
// Bodies are filled in by the implementation files.

import (
	"errors"
	"time"

	"github.com/continuity-md/continuity/ledger"
)

// Task is one of the agent's tasks (TaskCreate/TaskUpdate, or TodoWrite).
type Task struct {
	ID      string `json:"id,omitempty"`
	Subject string `json:"subject"`
	Status  string `json:"status"` // pending, in_progress, completed, deleted
}

// Facts is what a transcript says about a session.
type Facts struct {
	Files          []string `json:"files"`    // written or edited, relative to the repository root, first touch first
	Tasks          []Task   `json:"tasks"`    // in creation order, latest status
	Commands       []string `json:"commands"` // notable Bash commands, in order, deduplicated
	Errors         []string `json:"errors"`   // tool results with is_error, trimmed
	Prompts        []string `json:"prompts"`  // the person's prompts, in order (not tool results, not hook output)
	LastAssistant  string   `json:"last_assistant"`
	CompactSummary string   `json:"compact_summary"`   // the latest compaction summary
	Model          string   `json:"model,omitempty"`   // the model of the last main-agent reply
	Tokens         int      `json:"tokens,omitempty"`  // tokens in context at the last main-agent reply, from its usage (never estimated)
	Partial        bool     `json:"partial,omitempty"` // reading stopped before the end (deadline): the facts cover only what was read
	Lines          int      `json:"lines"`             // lines read
	SkippedLines   int      `json:"skipped_lines"`     // lines over MaxLineBytes, skipped
	Bytes          int64    `json:"bytes"`             // bytes read
}

// Meta is a handoff's front matter.
type Meta struct {
	Session      string    `json:"session"`
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
	Summary    string
	Goal       string
	Now        string
	Done       []string
	Next       []string
	Decisions  []ledger.Decision
	Files      []string
	Commands   []string
	Errors     []string
	Prompts    []string
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
	for _, s := range []*string{&h.Summary, &h.Goal, &h.Now, &h.Branch, &h.Author} {
		*s = red(*s)
	}
	for _, list := range []*[]string{&h.Done, &h.Next, &h.Files, &h.Commands, &h.Errors, &h.Prompts} {
		for i := range *list {
			(*list)[i] = red((*list)[i])
		}
	}
	for i := range h.Decisions {
		d := &h.Decisions[i]
		d.Decision, d.Why = red(d.Decision), red(d.Why)
	}
}
