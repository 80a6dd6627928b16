package transcript

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/continuity-md/continuity/handoff"
)

// A host's transcript becomes a handoff's facts in two steps. The host's
// Records decoder reads its own record format and tells an Accumulator what
// it saw, as neutral Observations; the one Accumulator turns them into
// handoff.Facts, with one set of limits, one rule for paths, one rendering of
// commands and errors, one filter for commands that only look at files, and
// one reading of checks, commits and plans. The same work thus reads the
// same whichever agent did it.
//
// What a host reports, and how:
//
//	a prompt the person typed       Observation{Kind: Prompt, Text}
//	the agent's reply               Observation{Kind: Reply, Text}
//	a compaction summary            Observation{Kind: Summary, Text} (the host's wrapping removed)
//	usage                           Observation{Kind: Usage, Tokens, Model}
//	the session's working directory Observation{Kind: Cwd, Text}: relative paths are taken from it
//	a tool call                     Observation{Kind: Call, ID, Tool, and what it does:
//	                                  Command (a shell command, as it ran),
//	                                  Files (paths it writes, edits, deletes or moves),
//	                                  Reads (paths it reads or searches: a file viewer's, a
//	                                  search tool's; a command's own are found in it),
//	                                  Dir (where the command runs, when not the session's cwd),
//	                                  Plan (a change to the agent's plan or todo list)}
//	the call's result               Observation{Kind: Result, ID, Failed or Exit, Text (its output)};
//	                                  Running: the command goes on, its exit comes in a later
//	                                  Result with the same ID (Codex's write_stdin);
//	                                  PlanID: the id the client gave an item the call added
//	a whole plan                    Observation{Kind: Plan, Plan.Items} (no call to wait for)
//
// Agent names the subagent that did it ("" for the session's own agent):
// a subagent's files, commands and errors count, its prompts, replies, usage
// and plans do not. Time is the record's timestamp when it has one (RFC
// 3339): lists of several agents are merged by it. A call's effects (files,
// plan) count once its result says it did not fail, or when no result ever
// comes (the session stopped mid-call: the tool may well have run).

// Kind says what an Observation reports.
type Kind uint8

// The kinds of Observation.
const (
	Prompt Kind = iota + 1
	Reply
	Summary
	Usage
	Cwd
	Call
	Result
	Plan
)

// Observation is one thing a transcript says happened, in no host's terms.
// Only the fields its Kind names are read. Strings may point into the
// record being decoded: the Accumulator copies what it keeps.
type Observation struct {
	Kind  Kind
	Time  string // the record's timestamp (RFC 3339), "" when none
	Agent string // "" the session's own agent, else a subagent's id

	ID      string    // Call, Result: the tool call's id
	Tool    string    // Call: the tool's name, as the host calls it
	Command string    // Call: a shell command, as it ran
	Files   []string  // Call: the files it writes, edits, deletes or moves (either end of a move)
	Reads   []string  // Call: the files it reads or searches (a shell command's are read from it)
	Dir     string    // Call: the directory its command runs in, when not the session's
	Plan    *PlanEdit // Call (applied when it succeeds), Plan

	Failed  bool   // Result: the call failed
	Exit    *int   // Result: the command's exit status, when known (non-zero: failed)
	Running bool   // Result: the command is still running; its exit comes later
	PlanID  string // Result: the id the client gave the plan item the call added

	Text string // Prompt, Reply, Summary, Cwd; Result: the output (the part after the host's headers)
	// Output is a Result's output when making it costs (a large tool
	// result to unescape): called only when the accumulator needs it (a
	// failure, a check, a commit), and only when Text is "".
	Output func() string
	// MayHold, when not nil, tells without making the output whether it
	// may hold word (letters only): false only when it surely does not.
	// A check's output that cannot hold a test runner's failure is
	// then never made (the hot path of a long session's test runs).
	MayHold func(word string) bool
	Tokens  int    // Usage: tokens in context, from the host's own count (0: unknown)
	Model   string // Usage
}

// PlanEdit is a change to the agent's plan.
type PlanEdit struct {
	Op    PlanOp
	Items []handoff.Task // Set: the whole plan; Add: the new item; Update: the item's id and what changed
}

// PlanOp says how a PlanEdit changes the plan.
type PlanOp uint8

// The ways a plan changes.
const (
	// Set replaces the plan (Codex's update_plan, Claude Code's TodoWrite,
	// Gemini CLI's write_todos).
	Set PlanOp = iota + 1
	// Add appends an item (Claude Code's TaskCreate); its id may come with
	// the result (Observation.PlanID).
	Add
	// Update changes the status or subject of the item with the given id
	// (Claude Code's TaskUpdate).
	Update
)

// Records is what a host supplies: a decoder of its own record format that
// reports what it reads to the accumulator. Its own state (what it must
// remember between records, such as ids already seen) must round-trip
// through encoding/json, so that a checkpoint can resume it; it holds no
// text of the session (that is the accumulator's, redacted).
type Records interface {
	// Wants reports, from the first bytes of a record (at least 64 KiB,
	// or the whole record when shorter), whether the record can matter;
	// the rest of a record it does not want streams past unread.
	Wants(head []byte) bool
	// Record reads one whole record, without its line break, and tells acc
	// what it says. The slice is only valid during the call.
	Record(rec []byte, acc *Accumulator)
}

// NewDecoder is the Decoder that feeds the records r reads into the one
// accumulator: paths are made relative to root, and red (nil: none)
// redacts every text kept before it is cut to size.
func NewDecoder(r Records, root string, red func(string) string) Decoder {
	return &pipeline{records: r, acc: newAccumulator(root, red)}
}

// CheckPatterns is a Decoder that takes a project's own check commands
// (see Accumulator.SetCheckPatterns): every decoder NewDecoder returns.
type CheckPatterns interface {
	Decoder
	SetCheckPatterns(res []*regexp.Regexp)
}

// Progress is how far a decoder's records go, in counts: where a session's
// turns, tool calls, compactions and commits fall (continuity eval's split
// points), read without making the facts.
type Progress struct {
	Turns       int    // the person's prompts
	Calls       int    // tool calls, subagents' included
	Compactions int    // compaction summaries
	Commits     int    // commits the session's commands made
	LastCheck   string // the check command run last, "" when none
}

// Counter is a Decoder that tells its Progress: every decoder NewDecoder
// returns.
type Counter interface {
	Decoder
	Progress() Progress
}

// Progress is the accumulator's.
func (p *pipeline) Progress() Progress { return p.acc.Progress() }

// ReadLimit is a Decoder whose facts can list a larger working set than
// MaxRead (up to every file it weighs): every decoder NewDecoder returns.
type ReadLimit interface {
	Decoder
	SetReadLimit(n int)
}

// SetReadLimit sets how many files the facts' working set lists.
func (p *pipeline) SetReadLimit(n int) { p.acc.readLimit = n }

// SetCheckPatterns passes a project's own check commands to the accumulator.
func (p *pipeline) SetCheckPatterns(res []*regexp.Regexp) { p.acc.SetCheckPatterns(res) }

// pipeline is a host's Records and the accumulator they feed.
type pipeline struct {
	records Records
	acc     *Accumulator
}

func (p *pipeline) Wants(head []byte) bool { return p.records.Wants(head) }
func (p *pipeline) Record(rec []byte)      { p.records.Record(rec, p.acc) }
func (p *pipeline) Facts() *handoff.Facts  { return p.acc.Facts() }

// pipelineState is a pipeline's checkpointed state: the host decoder's
// own, and the accumulator's, encoded in one pass.
type pipelineState struct {
	Records Records      `json:"records,omitempty"`
	Facts   *Accumulator `json:"facts"`
}

// MarshalJSON is the pipeline's state, redacted.
func (p *pipeline) MarshalJSON() ([]byte, error) {
	return json.Marshal(pipelineState{Records: p.records, Facts: p.acc})
}

// UnmarshalJSON restores a state MarshalJSON wrote, into the pipeline's
// own decoder and accumulator.
func (p *pipeline) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &pipelineState{Records: p.records, Facts: p.acc})
}

// Exit is a pointer to code, for Observation.Exit.
func Exit(code int) *int { return &code }

// cleanText is s trimmed; "" when only spaces.
func cleanText(s string) string { return strings.TrimSpace(s) }
