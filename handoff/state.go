package handoff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// State is where a session's work stands: the one typed record of its
// facts, from the transcript's accumulator (Facts embeds it) through Build
// (Handoff embeds it) to the handoff file, whose front matter carries it
// (key "state", written by Render, not by the template) so that every
// reader (Substantial, log, injection) reads fields, never the rendered
// text a project's template may word its own way.
//
// A new fact is a field here, the line of the accumulator (or of git's
// facts) that sets it, and the template's line that shows it.
type State struct {
	// Task is what is being worked on: the ledger's now, else the latest
	// request.
	Task string `json:"task,omitempty"`
	// Plan is the agent's plan in creation order, latest statuses. The
	// accumulator keeps deleted items (they move done and next); Build
	// leaves them out.
	Plan []Task `json:"plan,omitempty"`
	// Checks is the last run of each test, build, lint or typecheck
	// command, in the order first run.
	Checks []Check `json:"checks,omitempty"`
	// Commits are the commits the session made, oldest first.
	Commits []Commit `json:"commits,omitempty"`
	// Uncommitted is what git says is uncommitted in the work tree, apart
	// from the files the session touched.
	Uncommitted []string `json:"uncommitted,omitempty"`
	// MoreUncommitted is how many uncommitted paths a handoff does not
	// name past the first maxUncommitted.
	MoreUncommitted int `json:"more_uncommitted,omitempty"`
	// InFlight are the tool calls with no result when the facts were taken.
	InFlight []string `json:"in_flight,omitempty"`
	// Read is the working set: the files the session read or searched
	// (its viewers, cat, sed -n, rg…) and did not change, the most read
	// and most recently first. Injection names them after the files
	// changed; the template lists them in a section of their own.
	Read []string `json:"read,omitempty"`
}

// Task is one of the agent's tasks (TaskCreate/TaskUpdate, or TodoWrite).
type Task struct {
	ID      string `json:"id,omitempty"`
	Subject string `json:"subject"`
	Status  string `json:"status"` // pending, in_progress, completed, deleted
}

// Outcomes of a check (see Check).
const (
	Passed  = "passed"
	Failed  = "failed"
	Unknown = "unknown" // the output was piped away: the exit status is another command's
	Running = "running" // no result yet when the facts were taken
)

// Check is the last run of one test, build, lint or typecheck command.
type Check struct {
	Command string   `json:"command"`           // as it ran, on one line
	Outcome string   `json:"outcome"`           // Passed, Failed, Unknown or Running
	Failing []string `json:"failing,omitempty"` // the failing tests' names, where the output gives them
	// FailedBefore says an earlier run of the same command failed: with
	// Outcome Passed, the failure is resolved.
	FailedBefore bool `json:"failed_before,omitempty"`
	// Tests is how many tests the run said it ran, in its tool's words; 0
	// when it did not say.
	Tests int `json:"tests,omitempty"`
}

// Commit is a commit the session made.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

// Markdown is s as a handoff's State section says it: one line per fact,
// a list's items indented below its label. The built-in template writes
// it and injection repeats it; s is expected clean (each text on one line,
// as the front matter holds it).
func (s State) Markdown() string {
	var b strings.Builder
	if s.Task != "" {
		b.WriteString("- Task: " + s.Task + "\n")
	}
	if len(s.Plan) > 0 {
		b.WriteString("- Plan:\n")
		for _, t := range s.Plan {
			mark, status := " ", ""
			if t.Done() {
				mark = "x"
			}
			if t.Status == "in_progress" {
				status = inProgress
			}
			b.WriteString("  - [" + mark + "] " + t.Subject + status + "\n")
		}
	}
	if len(s.Checks) > 0 {
		b.WriteString("- Checks:\n")
		for _, c := range s.Checks {
			b.WriteString("  - " + c.Line() + "\n")
		}
	}
	if n := s.TestsRun(); n > 0 {
		fmt.Fprintf(&b, "- Tests run: %d\n", n)
	}
	if len(s.Commits) > 0 {
		b.WriteString("- Commits:\n")
		for _, c := range s.Commits {
			b.WriteString("  - " + codeSpan(c.Hash) + " " + c.Subject + "\n")
		}
	}
	if len(s.Uncommitted) > 0 {
		b.WriteString("- Uncommitted: " + s.uncommittedLine() + "\n")
	}
	if len(s.InFlight) > 0 {
		b.WriteString("- In flight:\n")
		for _, f := range s.InFlight {
			b.WriteString("  - " + f + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// uncommittedLine is the uncommitted paths on one line.
func (s State) uncommittedLine() string {
	paths := make([]string, len(s.Uncommitted))
	for i, p := range s.Uncommitted {
		paths[i] = codeSpan(p)
	}
	if s.MoreUncommitted > 0 {
		paths = append(paths, fmt.Sprintf("… %d more", s.MoreUncommitted))
	}
	return strings.Join(paths, ", ")
}

// inProgress marks a plan item being worked on.
const inProgress = " (in progress)"

// resolvedCheck marks a check that failed earlier and passed last.
const resolvedCheck = " (failed earlier: resolved)"

// Line is c on one line, as the State section lists it: "`go test ./...`:
// failed (TestX, TestY)".
func (c Check) Line() string {
	if c.Outcome == "" { // a person's own line (see legacyState)
		return c.Command
	}
	s := codeSpan(c.Command) + ": " + c.Outcome
	if len(c.Failing) > 0 {
		s += " (" + strings.Join(c.Failing, ", ") + ")"
	}
	if c.Resolved() {
		s += resolvedCheck
	}
	return s
}

// TestsRun is how many tests the last run of each check said it ran.
func (s *State) TestsRun() int {
	n := 0
	for _, c := range s.Checks {
		n += c.Tests
	}
	return n
}

// Worked reports whether s says work was done: a plan, a check or a commit.
func (s *State) Worked() bool {
	return len(s.Plan) > 0 || len(s.Checks) > 0 || len(s.Commits) > 0
}

// Empty reports whether s says nothing at all.
func (s *State) Empty() bool {
	return s.Task == "" && !s.Worked() && len(s.Uncommitted) == 0 && len(s.InFlight) == 0 && len(s.Read) == 0
}

// Clone returns a copy of s that shares no memory with it.
func (s State) Clone() State {
	s.Plan = slices.Clone(s.Plan)
	s.Checks = slices.Clone(s.Checks)
	for i := range s.Checks {
		s.Checks[i].Failing = slices.Clone(s.Checks[i].Failing)
	}
	s.Commits = slices.Clone(s.Commits)
	s.Uncommitted = slices.Clone(s.Uncommitted)
	s.InFlight = slices.Clone(s.InFlight)
	s.Read = slices.Clone(s.Read)
	return s
}

// Done reports whether the task is completed.
func (t Task) Done() bool { return t.Status == "completed" }

// Resolved reports whether the check failed earlier and passed last.
func (c Check) Resolved() bool { return c.FailedBefore && c.Outcome == Passed }

// Work is how much a handoff's lists hold, as its front matter records it
// (key "work", written by Render from what the file lists): what
// Substantial and injection need without reading the lists' rendering.
type Work struct {
	Files    int `json:"files,omitempty"`    // files touched in the repository, those the handoff left out counted
	Outside  int `json:"outside,omitempty"`  // files written outside it
	Commands int `json:"commands,omitempty"` // commands run, those left out counted
	Errors   int `json:"errors,omitempty"`   // errors met, those left out counted
	// Open are the latest errors not resolved later (at most MaxOpen),
	// OpenBefore how many earlier open ones they leave out.
	Open       []string `json:"open,omitempty"`
	OpenBefore int      `json:"open_before,omitempty"`
}

// MaxOpen bounds the open errors a handoff's Work names.
const MaxOpen = 5

// ResolvedMark ends an error whose command succeeded later.
const ResolvedMark = " (resolved: passed later)"

// Any reports whether w counts any work.
func (w *Work) Any() bool { return w.Files > 0 || w.Outside > 0 || w.Commands > 0 || w.Errors > 0 }

// workOf counts what h's lists hold.
func workOf(h *Handoff) Work {
	w := Work{Files: len(h.Files) + h.Omitted.Files, Outside: len(h.Outside), Commands: len(h.Commands) + h.Omitted.Commands,
		Errors: len(h.Errors) + h.Omitted.Errors}
	var open []string
	for _, e := range h.Errors {
		if e = itemText(e); e != "" && !strings.HasSuffix(e, ResolvedMark) {
			open = append(open, e)
		}
	}
	if n := len(open); n > MaxOpen {
		w.OpenBefore, open = n-MaxOpen, open[n-MaxOpen:]
	}
	w.Open = open
	return w
}

// oneLineJSON is v as JSON on one line: a YAML flow value a front matter
// line holds whole, read back by yaml.v3 and by encoding/json alike.
func oneLineJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}" // the types here always marshal
	}
	return string(b)
}
