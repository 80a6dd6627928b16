package transcript

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/continuity-md/continuity/handoff"
)

// The one set of limits on what the facts keep: the last entries of each
// list, and the longest text kept from one prompt, reply, command or error.
const (
	MaxFiles       = 200
	maxOutside     = 50
	MaxTasks       = 200
	MaxCommands    = 50
	MaxErrors      = 30
	MaxPrompts     = 20
	maxChecks      = 30
	maxCommits     = 50
	maxPending     = 1000
	maxAgents      = 200
	MaxTextRunes   = 4000
	MaxLineRunes   = 200
	MaxPromptRunes = 2000
	maxOutputRunes = 50 * MaxLineRunes
	// redactMargin is how far past a cut a kept text is redacted: a secret
	// that starts before the cut is matched whole (a private key block is
	// a few KB), not as a fragment no rule recognises.
	redactMargin = 8 << 10
)

// Accumulator turns observations into handoff facts (see Observation). Its
// state round-trips through encoding/json (redacted), so that a checkpoint
// can resume it.
type Accumulator struct {
	root      string
	red       func(string) string
	checks    []*regexp.Regexp
	readLimit int // the working set the facts list: MaxRead when 0
	st        accState
}

// newAccumulator returns an empty accumulator: paths are made relative to
// root ("" leaves them as they are), red (nil: none) redacts every text
// kept before it is cut to size.
func newAccumulator(root string, red func(string) string) *Accumulator {
	if root != "" {
		root = filepath.Clean(root)
	}
	return &Accumulator{root: root, red: red}
}

// SetCheckPatterns adds a project's own check commands (regular
// expressions over one command, from its start) to the toolchains'.
func (a *Accumulator) SetCheckPatterns(res []*regexp.Regexp) { a.checks = res }

// accState is everything gathered so far.
type accState struct {
	// Main is the session's own agent; Agents its subagents, by id.
	Main   source             `json:"main"`
	Agents map[string]*source `json:"agents,omitempty"`

	// State is the session's state as far as the transcript says it:
	// the plan, the checks, the commits (Facts adds the calls in flight).
	handoff.State
	Prompts []item `json:"prompts,omitempty"`
	// Last is the latest reply, cut wide: it is redacted and cut to size
	// once, when the facts are made (and in the checkpoint); Before is
	// the one before it.
	Last   item `json:"last"`
	Before item `json:"before"`

	LookOnly int `json:"look_only,omitempty"`

	// Seen is the working set (files read or searched), weighed by
	// Calls, the tool calls seen so far; Turns counts the prompts, Made
	// the commits (however many are kept), Ran names the check run last.
	Seen  []seen `json:"seen,omitempty"`
	Calls int    `json:"calls,omitempty"`
	Turns int    `json:"turns,omitempty"`
	Made  int    `json:"made,omitempty"`
	Ran   string `json:"ran,omitempty"`

	Summary     string `json:"summary,omitempty"`
	Compactions int    `json:"compactions,omitempty"`
	CompactedAt string `json:"compacted_at,omitempty"`

	Cwd     string `json:"cwd,omitempty"`
	Started string `json:"started,omitempty"`
	Model   string `json:"model,omitempty"`
	Tokens  int    `json:"tokens,omitempty"`
	Records int    `json:"records"`
}

// source is what one agent did. Its lists are merged with the other
// agents' by time when the facts are made, so that the facts do not depend
// on the order in which the files were read.
type source struct {
	Start    string `json:"start,omitempty"`
	Files    []item `json:"files,omitempty"`
	Outside  []item `json:"outside,omitempty"`
	Commands []item `json:"commands,omitempty"`
	Errors   []item `json:"errors,omitempty"`
	Pending  []call `json:"pending,omitempty"`
	Cut      cut    `json:"cut,omitempty"`
}

type cut struct {
	Files    int `json:"files,omitempty"`
	Commands int `json:"commands,omitempty"`
	Errors   int `json:"errors,omitempty"`
}

// item is one fact with when it happened: T, the record's timestamp, and
// E, how many compactions had been seen then.
type item struct {
	T string `json:"t,omitempty"`
	E int    `json:"e,omitempty"`
	S string `json:"s"`
	// LT and LE are a file's last touch, when it was touched again.
	LT string `json:"lt,omitempty"`
	LE int    `json:"le,omitempty"`
	// K is an error's command line; R says the command succeeded later.
	K string `json:"k,omitempty"`
	R bool   `json:"r,omitempty"`
}

func (it item) last() item {
	if it.LT != "" || it.LE > it.E {
		return item{T: it.LT, E: it.LE}
	}
	return it
}

// call is a tool call whose result has not come yet.
type call struct {
	ID      string    `json:"id"`
	T       string    `json:"t,omitempty"`
	E       int       `json:"e,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Command string    `json:"command,omitempty"` // redacted
	Files   []string  `json:"files,omitempty"`   // as the facts list them
	Reads   []string  `json:"reads,omitempty"`   // the files it reads, as the working set lists them
	At      int       `json:"at,omitempty"`      // the tool call it is, counted from the session's first
	Plan    *PlanEdit `json:"plan,omitempty"`
	Check   string    `json:"check,omitempty"` // the check it runs
	Running bool      `json:"running,omitempty"`
}

// Recognised counts a record the host recognised as one of its own (see
// transcript.Recognised), whether or not it held a fact.
func (a *Accumulator) Recognised() { a.st.Records++ }

// slowdown, when set (the benchslow build tag only), runs at each
// observation: a deliberately slow accumulator, which script/bench must
// catch.
var slowdown func()

// Add takes one observation.
func (a *Accumulator) Add(o Observation) {
	if slowdown != nil {
		slowdown()
	}
	if a.st.Started == "" && o.Time != "" {
		a.st.Started = strings.Clone(o.Time)
	}
	switch o.Kind {
	case Prompt:
		if o.Agent == "" {
			if t := cleanText(o.Text); t != "" {
				a.st.Turns++
				a.st.Prompts = AppendLast(a.st.Prompts, MaxPrompts, a.item(o.Time, a.keep(t, MaxPromptRunes)))
			}
		}
	case Reply:
		if o.Agent == "" {
			if t := cleanText(o.Text); t != "" {
				a.st.Before = a.st.Last
				a.st.Last = a.item(o.Time, strings.Clone(prefixRunes(t, MaxTextRunes+redactMargin)))
			}
		}
	case Summary:
		a.summary(o)
	case Usage:
		if o.Agent == "" {
			if o.Tokens > 0 {
				a.st.Tokens = o.Tokens
			}
			if o.Model != "" {
				a.st.Model = strings.Clone(o.Model)
			}
		}
	case Cwd:
		if filepath.IsAbs(o.Text) {
			a.st.Cwd = filepath.Clean(o.Text)
		}
	case Call:
		a.call(o)
	case Result:
		a.result(o)
	case Plan:
		if o.Agent == "" && o.Plan != nil {
			a.plan(*o.Plan, false)
		}
	}
}

// item is a kept text with when it happened.
func (a *Accumulator) item(t, s string) item {
	return item{T: strings.Clone(t), E: a.st.Compactions, S: s}
}

// summary takes a compaction summary. The same summary again (a history
// restated at a resume) is no new compaction; a reply that only echoed it
// (Codex records the summary as a reply first) is no reply.
func (a *Accumulator) summary(o Observation) {
	s := handoff.CleanSummary(o.Text)
	if s == "" || o.Agent != "" {
		return
	}
	kept := a.keep(s, 4*MaxTextRunes)
	if kept == a.st.Summary {
		return
	}
	if strings.TrimSpace(a.st.Last.S) == s || a.keep(a.st.Last.S, MaxTextRunes) == a.keep(s, MaxTextRunes) {
		a.st.Last, a.st.Before = a.st.Before, item{}
	}
	a.st.Summary = kept
	a.st.Compactions++
	a.st.CompactedAt = strings.Clone(o.Time)
	a.st.Tokens = 0 // what was in context is gone; the next usage says what is now
}

// source is the agent's record of what it did, nil when there are too
// many subagents (the rest count as one).
func (a *Accumulator) source(agent, t string) *source {
	if agent == "" {
		return &a.st.Main
	}
	s := a.st.Agents[agent]
	if s == nil {
		if len(a.st.Agents) >= maxAgents {
			agent = "more"
			if s = a.st.Agents[agent]; s != nil {
				return s
			}
		}
		if a.st.Agents == nil {
			a.st.Agents = map[string]*source{}
		}
		s = &source{Start: strings.Clone(t)}
		a.st.Agents[strings.Clone(agent)] = s
	}
	return s
}

func (a *Accumulator) call(o Observation) {
	src := a.source(o.Agent, o.Time)
	a.st.Calls++
	c := call{ID: strings.Clone(o.ID), T: strings.Clone(o.Time), E: a.st.Compactions, Tool: strings.Clone(o.Tool), At: a.st.Calls}
	for _, f := range o.Files {
		if p := a.rel(f); p != "" && !slices.Contains(c.Files, p) {
			c.Files = append(c.Files, p)
		}
	}
	reads := o.Reads
	if cmd := strings.TrimSpace(o.Command); cmd != "" {
		reads = append(slices.Clip(reads), ReadTargets(cmd, o.Dir)...)
	}
	for _, f := range reads {
		if p := a.rel(f); a.readable(p) && !slices.Contains(c.Reads, p) {
			c.Reads = append(c.Reads, p)
		}
	}
	if o.Plan != nil && o.Agent == "" {
		c.Plan = clonePlan(o.Plan, a)
	}
	if cmd := strings.TrimSpace(o.Command); cmd != "" {
		c.Command = handoff.Cut(a.redacted(cmd, 4*MaxLineRunes), 4*MaxLineRunes)
		line := CommandLine(c.Command)
		switch {
		case LookOnly(c.Command):
			a.st.LookOnly++
		case line != "":
			src.Commands = appendUnique(src.Commands, a.item(o.Time, line), MaxCommands, &src.Cut.Commands)
		}
		if k := checkOf(c.Command, a.checks); k != "" {
			c.Check = k
			a.runCheck(k, handoff.Running, nil, 0)
		}
	}
	if len(src.Pending) >= maxPending {
		// Results that never came: the oldest call is taken as done.
		a.apply(src, src.Pending[0])
		src.Pending = src.Pending[1:]
	}
	src.Pending = append(src.Pending, c)
}

// result settles the call a result answers. A result with no call seen
// (the call was cut off, or read in an earlier file) still reports a
// failure.
func (a *Accumulator) result(o Observation) {
	src := a.source(o.Agent, o.Time)
	i := slices.IndexFunc(src.Pending, func(c call) bool { return c.ID == o.ID })
	var c call
	if i >= 0 {
		c = src.Pending[i]
		if o.Running {
			src.Pending[i].Running = true
			return
		}
		src.Pending = slices.Delete(src.Pending, i, i+1)
	} else if o.Running {
		return
	}
	failed := o.Failed || (o.Exit != nil && *o.Exit != 0)
	// A check that did not fail by its status, whose output holds no
	// runner's failure and is not piped away, passed: its output (which
	// can be long) need not be made.
	quiet := c.Check != "" && !failed && o.Text == "" && o.MayHold != nil && !o.MayHold("FAIL") && !pipedAway(c.Command)
	if o.Text == "" && o.Output != nil && (failed || (c.Check != "" && !quiet) || c.Plan != nil || makesCommits(c.Command)) {
		o.Text = o.Output()
	}
	if c.Check != "" {
		outcome := handoff.Passed
		switch {
		case quiet:
		case failed:
			outcome = handoff.Failed
		case failedOutput(o.Text):
			outcome = handoff.Failed
		case pipedAway(c.Command) && !passedOutput(o.Text):
			outcome = handoff.Unknown
		}
		var names []string
		if outcome == handoff.Failed {
			names = failingNames(o.Text)
		}
		a.runCheck(c.Check, outcome, names, testsRun(o.Text))
	}
	if failed {
		if i < 0 && !o.Failed && o.Exit == nil {
			return
		}
		line := errorLine(c, o.Exit, a.redacted(prefixRunes(o.Text, maxOutputRunes), maxOutputRunes))
		it := a.item(o.Time, line)
		if c.Command != "" {
			it.K = CommandLine(c.Command)
		}
		src.Errors = appendLast(src.Errors, MaxErrors, &src.Cut.Errors, it)
		return
	}
	if i < 0 {
		return
	}
	if c.Command != "" {
		a.resolve(CommandLine(c.Command))
		if makesCommits(c.Command) {
			for _, cm := range commitsIn(o.Text) {
				a.commit(cm)
			}
		}
	}
	if c.Plan != nil && c.Plan.Op == Add && o.PlanID != "" && len(c.Plan.Items) == 1 {
		c.Plan.Items[0].ID = strings.Clone(o.PlanID)
	}
	a.apply(src, c)
}

// resolve marks the errors of a command that has now succeeded.
func (a *Accumulator) resolve(line string) {
	for _, src := range a.st.sources() {
		for i := range src.Errors {
			if src.Errors[i].K == line {
				src.Errors[i].R = true
			}
		}
	}
}

func (a *Accumulator) commit(cm handoff.Commit) {
	cm.Subject = a.keep(cm.Subject, MaxLineRunes)
	cm.Hash = strings.Clone(cm.Hash)
	for _, x := range a.st.Commits {
		if x.Hash == cm.Hash {
			return
		}
	}
	a.st.Made++
	a.st.Commits = AppendLast(a.st.Commits, maxCommits, cm)
}

// runCheck records a run of check k.
func (a *Accumulator) runCheck(k, outcome string, failing []string, tests int) {
	i := slices.IndexFunc(a.st.Checks, func(c handoff.Check) bool { return c.Command == k })
	if i < 0 {
		if len(a.st.Checks) >= maxChecks {
			a.st.Checks = slices.Delete(a.st.Checks, 0, 1)
		}
		a.st.Checks = append(a.st.Checks, handoff.Check{Command: strings.Clone(k)})
		i = len(a.st.Checks) - 1
	}
	c := &a.st.Checks[i]
	a.st.Ran = c.Command
	if c.Outcome == handoff.Failed {
		c.FailedBefore = true
	}
	c.Outcome, c.Tests = outcome, tests
	c.Failing = nil
	for _, n := range failing {
		c.Failing = append(c.Failing, a.keep(n, 120))
	}
}

// apply records the effects of a call that did not fail.
func (a *Accumulator) apply(src *source, c call) {
	for _, p := range c.Files {
		a.addFile(src, c, p)
	}
	for _, p := range c.Reads {
		a.st.read(p, c.At)
	}
	if c.Plan != nil && src == &a.st.Main {
		a.plan(*c.Plan, true)
	}
}

// plan applies an edit to the plan; kept says its items are copies the
// accumulator already made (a call's, kept until its result).
func (a *Accumulator) plan(e PlanEdit, kept bool) {
	items := e.Items
	if !kept {
		items = clonedTasks(items, a)
	}
	switch e.Op {
	case Set:
		a.st.Plan = AppendLast(slices.Clone(items), MaxTasks)
	case Add:
		a.st.Plan = AppendLast(a.st.Plan, MaxTasks, items...)
	case Update:
		for _, u := range e.Items {
			for i := len(a.st.Plan) - 1; i >= 0; i-- { // the latest item of that id
				if u.ID != "" && a.st.Plan[i].ID == u.ID {
					if u.Status != "" {
						a.st.Plan[i].Status = strings.Clone(u.Status)
					}
					if u.Subject != "" {
						a.st.Plan[i].Subject = a.keep(u.Subject, MaxLineRunes)
					}
					break
				}
			}
		}
	}
}

func clonePlan(e *PlanEdit, a *Accumulator) *PlanEdit {
	return &PlanEdit{Op: e.Op, Items: clonedTasks(e.Items, a)}
}

func clonedTasks(ts []handoff.Task, a *Accumulator) []handoff.Task {
	out := make([]handoff.Task, 0, len(ts))
	for _, t := range ts {
		out = append(out, handoff.Task{ID: strings.Clone(t.ID), Subject: a.keep(t.Subject, MaxLineRunes), Status: normalStatus(t.Status)})
	}
	return out
}

var statusWords = strings.NewReplacer("-", "_", " ", "_")

// normalStatus is a plan item's status in one vocabulary: pending,
// in_progress, completed (each host's words mapped), deleted.
func normalStatus(s string) string {
	switch strings.ToLower(statusWords.Replace(strings.TrimSpace(s))) {
	case "in_progress", "inprogress", "active", "doing", "running":
		return "in_progress"
	case "completed", "complete", "done", "finished":
		return "completed"
	case "deleted", "cancelled", "canceled", "removed":
		return "deleted"
	case "":
		return "pending"
	}
	return strings.Clone(strings.ToLower(s))
}

// addFile lists a file a call wrote: inside the repository among the
// files, outside it apart.
func (a *Accumulator) addFile(src *source, c call, p string) {
	list, limit, dropped := &src.Files, MaxFiles, &src.Cut.Files
	if a.outside(p) {
		list, limit, dropped = &src.Outside, maxOutside, new(int)
	}
	for i := range *list {
		if (*list)[i].S == p { // touched again: listed at its first touch, counted since its last
			(*list)[i].LT, (*list)[i].LE = c.T, c.E
			return
		}
	}
	*list = appendLast(*list, limit, dropped, item{T: c.T, E: c.E, S: p})
}

// outside reports whether a path the facts list lies outside the
// repository (an absolute path: inside ones are made relative).
func (a *Accumulator) outside(p string) bool {
	return a.root != "" && (filepath.IsAbs(p) || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../"))
}

// rel makes p relative to the root when it lies inside it, with forward
// slashes: a relative path is taken from the session's working directory;
// a path outside the root stays absolute (cleaned).
func (a *Accumulator) rel(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) && a.st.Cwd != "" {
		p = filepath.Join(a.st.Cwd, p)
	}
	p = filepath.Clean(p)
	if a.root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(a.root, p); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return strings.Clone(filepath.ToSlash(r)) // Rel may return a part of p, which may point into the record
		}
	}
	if p == "." {
		return ""
	}
	return strings.Clone(filepath.ToSlash(p))
}

// redacted is s redacted, for a text that will be cut to at most n runes.
func (a *Accumulator) redacted(s string, n int) string {
	if a.red == nil || s == "" {
		return prefixRunes(s, n+redactMargin) // may share s's memory: what is kept is cut (a copy)
	}
	return a.red(prefixRunes(s, n+redactMargin))
}

// keep is s redacted, then cut to at most n runes.
func (a *Accumulator) keep(s string, n int) string { return handoff.Cut(a.redacted(s, n), n) }

// MarshalJSON is the accumulator's state, redacted: the checkpoint it goes
// into is local state, which holds no secret.
func (a *Accumulator) MarshalJSON() ([]byte, error) {
	st := a.st
	st.Last.S = a.keep(a.st.Last.S, MaxTextRunes)
	st.Before.S = a.keep(a.st.Before.S, MaxTextRunes)
	return json.Marshal(&st)
}

// UnmarshalJSON restores a state MarshalJSON wrote; the root, the
// redaction and the check patterns stay the accumulator's own.
func (a *Accumulator) UnmarshalJSON(b []byte) error {
	var st accState
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	a.st = st
	return nil
}

// Progress is how far the observations so far go, in counts.
func (a *Accumulator) Progress() Progress {
	return Progress{Turns: a.st.Turns, Calls: a.st.Calls, Compactions: a.st.Compactions, Commits: a.st.Made, LastCheck: a.st.Ran}
}

// Facts is what the observations so far say. Calls still awaiting their
// result count as done and are listed in flight. The accumulator is left
// as it was: more observations can follow.
func (a *Accumulator) Facts() *handoff.Facts {
	settled := Accumulator{root: a.root, red: a.red, readLimit: a.readLimit, st: a.st.clone()}
	var inFlight []string
	for _, src := range settled.st.sources() {
		for _, c := range src.Pending {
			inFlight = append(inFlight, flightLine(c))
			settled.apply(src, c)
		}
		src.Pending = nil
	}
	f := settled.st.facts()
	f.InFlight = inFlight
	f.Read = settled.st.workingSet(f.Files, cmp.Or(a.readLimit, MaxRead))
	if f.LastAssistant != "" {
		f.LastAssistant = a.keep(f.LastAssistant, MaxTextRunes)
		if f.Since != nil && f.Since.LastAssistant != "" {
			f.Since.LastAssistant = f.LastAssistant
		}
	}
	return f
}

// flightLine says what a call with no result was doing.
func flightLine(c call) string {
	switch {
	case c.Command != "":
		return "`" + CommandLine(c.Command) + "`"
	case len(c.Files) > 0:
		return c.Tool + " " + strings.Join(c.Files, ", ")
	}
	return c.Tool
}

// since reports whether it happened after the latest compaction: by time
// when both have one, else by the compaction count.
func (st *accState) since(it item) bool {
	if st.Compactions == 0 {
		return false
	}
	if it.T != "" && st.CompactedAt != "" {
		return it.T > st.CompactedAt
	}
	return it.E >= st.Compactions
}

// sources are the main agent then the subagents by start time (then id).
func (st *accState) sources() []*source {
	out := []*source{&st.Main}
	ids := make([]string, 0, len(st.Agents))
	for id := range st.Agents {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(st.Agents[a].Start, st.Agents[b].Start), cmp.Compare(a, b))
	})
	for _, id := range ids {
		out = append(out, st.Agents[id])
	}
	return out
}

// merge interleaves lists by time (stable: items without a time, and
// equal times, keep the sources' order).
func merge(lists [][]item) []item {
	var out []item
	idx := make([]int, len(lists))
	for {
		best := -1
		for i, l := range lists {
			if idx[i] >= len(l) {
				continue
			}
			if best < 0 || l[idx[i]].T < lists[best][idx[best]].T && l[idx[i]].T != "" {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, lists[best][idx[best]])
		idx[best]++
	}
}

// facts makes handoff facts of a settled state (pending calls applied).
func (st *accState) facts() *handoff.Facts {
	srcs := st.sources()
	pick := func(get func(*source) []item) []item {
		lists := make([][]item, len(srcs))
		for i, s := range srcs {
			lists[i] = get(s)
		}
		return merge(lists)
	}
	f := &handoff.Facts{
		State:          st.State.Clone(),
		CompactSummary: st.Summary,
		Compactions:    st.Compactions,
		Model:          st.Model,
		Tokens:         st.Tokens,
		Records:        st.Records,
		LookOnly:       st.LookOnly,
		Started:        st.Started,
	}
	for _, s := range srcs {
		f.Omitted.Files += s.Cut.Files
		f.Omitted.Commands += s.Cut.Commands
		f.Omitted.Errors += s.Cut.Errors
	}
	var since handoff.Since
	var files []item
	for _, it := range pick(func(s *source) []item { return s.Files }) {
		if i := slices.IndexFunc(files, func(x item) bool { return x.S == it.S }); i >= 0 {
			// The same file, touched by another agent too: since counts
			// from the later of the two last touches.
			if l, prev := it.last(), files[i].last(); l.T > prev.T || l.T == prev.T && l.E > prev.E {
				files[i].LT, files[i].LE = l.T, l.E
			}
			continue
		}
		files = appendLast(files, MaxFiles, &f.Omitted.Files, it)
	}
	for _, it := range pick(func(s *source) []item { return s.Outside }) {
		if !slices.Contains(f.Outside, it.S) && len(f.Outside) < maxOutside {
			f.Outside = append(f.Outside, it.S)
		}
	}
	var cmds []item
	for _, it := range pick(func(s *source) []item { return s.Commands }) {
		cmds = appendUnique(cmds, it, MaxCommands, &f.Omitted.Commands)
	}
	errs := pick(func(s *source) []item { return s.Errors })
	if len(errs) > MaxErrors {
		f.Omitted.Errors += len(errs) - MaxErrors
		errs = errs[len(errs)-MaxErrors:]
	}
	for i := range errs {
		if errs[i].R {
			errs[i].S = handoff.Cut(errs[i].S, MaxLineRunes-len(handoff.ResolvedMark)) + handoff.ResolvedMark
		}
	}
	for _, l := range []struct {
		items []item
		all   *[]string
		since *[]string
	}{
		{files, &f.Files, &since.Files},
		{cmds, &f.Commands, &since.Commands},
		{errs, &f.Errors, &since.Errors},
		{st.Prompts, &f.Prompts, &since.Prompts},
	} {
		for _, it := range l.items {
			*l.all = append(*l.all, it.S)
			if st.since(it.last()) {
				*l.since = append(*l.since, it.S)
			}
		}
	}
	f.LastAssistant = st.Last.S
	if st.Compactions > 0 {
		if st.since(st.Last) {
			since.LastAssistant = st.Last.S
		}
		f.Since = &since
	}
	return f
}

// appendLast is AppendLast counting what it drops in *dropped.
func appendLast(list []item, max int, dropped *int, it item) []item {
	if len(list) >= max {
		*dropped += len(list) - max + 1
	}
	return AppendLast(list, max, it)
}

// appendUnique appends it, dropping an earlier item of the same text (a
// command run again counts at its latest run), keeps the last max items and
// counts what it drops.
func appendUnique(list []item, it item, max int, dropped *int) []item {
	if i := slices.IndexFunc(list, func(x item) bool { return x.S == it.S }); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	return appendLast(list, max, dropped, it)
}

// clone copies a state deeply, so that settling the copy's pending calls
// leaves the original able to read on.
func (st *accState) clone() accState {
	cp := *st
	cp.Main = st.Main.clone()
	if st.Agents != nil {
		cp.Agents = make(map[string]*source, len(st.Agents))
		for id, s := range st.Agents {
			c := s.clone()
			cp.Agents[id] = &c
		}
	}
	cp.State = st.State.Clone()
	cp.Prompts = slices.Clone(st.Prompts)
	cp.Seen = slices.Clone(st.Seen)
	return cp
}

func (s *source) clone() source {
	cp := *s
	cp.Files = slices.Clone(s.Files)
	cp.Outside = slices.Clone(s.Outside)
	cp.Commands = slices.Clone(s.Commands)
	cp.Errors = slices.Clone(s.Errors)
	cp.Pending = slices.Clone(s.Pending)
	for i, c := range cp.Pending {
		if c.Plan != nil {
			p := *c.Plan
			p.Items = slices.Clone(p.Items)
			cp.Pending[i].Plan = &p
		}
	}
	return cp
}
