package claude

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// state is everything the collector has gathered, in a form that
// round-trips through encoding/json, so that a later hook can resume
// reading where the last one stopped (transcript.Checkpoint). Every text in
// it is redacted, except the last reply, which is redacted when marshalled
// (see MarshalJSON).
type state struct {
	// Main is the session's own agent; Agents its subagents, by agent id.
	Main   source             `json:"main"`
	Agents map[string]*source `json:"agents,omitempty"`

	Tasks   []handoff.Task `json:"tasks,omitempty"`
	Prompts []item         `json:"prompts,omitempty"`
	// Last is the latest main-agent reply, cut wide: it is redacted and cut
	// to size once, when the facts are made, not at every message.
	Last item `json:"last"`

	Summary     string `json:"summary,omitempty"`      // the latest compaction summary, redacted
	Compactions int    `json:"compactions,omitempty"`  // compaction summaries seen
	CompactedAt string `json:"compacted_at,omitempty"` // the latest one's timestamp

	Model   string `json:"model,omitempty"`
	Tokens  int    `json:"tokens,omitempty"`
	Records int    `json:"records"`
}

// source is what one agent (the main one or a subagent) did. Its lists are
// merged with the other agents' by time when the facts are made, so that
// the facts do not depend on the order in which the files were read.
type source struct {
	// Via is how a subagent's records came: "progress" (inside the parent
	// transcript, Claude Code 2.0/2.1.x) or "file" (its own
	// subagents/agent-<id>.jsonl); when a client wrote both, the first
	// seen is read and the other ignored, so nothing counts twice.
	Via      string       `json:"via,omitempty"`
	Start    string       `json:"start,omitempty"` // its first record's timestamp
	Files    []item       `json:"files,omitempty"`
	Commands []item       `json:"commands,omitempty"`
	Errors   []item       `json:"errors,omitempty"`
	Pending  []pendingUse `json:"pending,omitempty"`
}

// item is one fact with when it happened: T, the record's timestamp
// ("" when the record had none), and E, how many compactions the main
// agent had seen then.
type item struct {
	T string `json:"t,omitempty"`
	E int    `json:"e,omitempty"`
	S string `json:"s"`
	// LT and LE are a file's last touch, when it was touched again.
	LT string `json:"lt,omitempty"`
	LE int    `json:"le,omitempty"`
}

// last is when it last happened.
func (it item) last() item {
	if it.LT != "" || it.LE > it.E {
		return item{T: it.LT, E: it.LE}
	}
	return it
}

// pendingUse is a tool call whose result has not been read yet: its effect
// (a file touched, a task changed) counts only if the call did not fail.
type pendingUse struct {
	ID      string         `json:"id"`
	T       string         `json:"t,omitempty"`
	E       int            `json:"e,omitempty"`
	Name    string         `json:"name"`
	Path    string         `json:"path,omitempty"`    // file tools
	Subject string         `json:"subject,omitempty"` // TaskCreate
	Command string         `json:"command,omitempty"` // Bash, redacted
	Update  *taskUpdate    `json:"update,omitempty"`
	Todos   []handoff.Task `json:"todos,omitempty"` // TodoWrite
	IsTodo  bool           `json:"is_todo,omitempty"`
}

type taskUpdate struct {
	ID      string `json:"id"`
	Status  string `json:"status,omitempty"`
	Subject string `json:"subject,omitempty"`
}

// MarshalJSON is the collector's state, redacted: the checkpoint it goes
// into is local state, which holds no secret.
func (c *collector) MarshalJSON() ([]byte, error) {
	st := c.st
	st.Last.S = c.keep(c.st.Last.S, maxTextRunes)
	return json.Marshal(&st)
}

// UnmarshalJSON restores a state saved by MarshalJSON; the root and the
// redaction function stay the collector's own.
func (c *collector) UnmarshalJSON(b []byte) error {
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	c.st = st
	return nil
}

// since reports whether it happened after the latest compaction: by time
// when both have one, else by the compaction count.
func (st *state) since(it item) bool {
	if st.Compactions == 0 {
		return false
	}
	if it.T != "" && st.CompactedAt != "" {
		return it.T > st.CompactedAt
	}
	return it.E >= st.Compactions
}

// sources are the main agent then the subagents by start time (then id):
// the order merged lists fall back on when their times are equal.
func (st *state) sources() []*source {
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

// merge interleaves the lists by time (a stable merge: items without a
// time, and equal times, keep the sources' order).
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
func (st *state) facts() *handoff.Facts {
	srcs := st.sources()
	pick := func(get func(*source) []item) []item {
		lists := make([][]item, len(srcs))
		for i, s := range srcs {
			lists[i] = get(s)
		}
		return merge(lists)
	}
	f := &handoff.Facts{
		Tasks:          slices.Clone(st.Tasks),
		CompactSummary: st.Summary,
		Compactions:    st.Compactions,
		Model:          st.Model,
		Tokens:         st.Tokens,
		Records:        st.Records,
	}
	var since handoff.Since
	files := pick(func(s *source) []item { return s.Files })
	var fileItems []item
	for _, it := range files {
		if i := slices.IndexFunc(fileItems, func(x item) bool { return x.S == it.S }); i >= 0 {
			// The same file, touched by another agent too: since counts
			// from the later of the two last touches.
			if l, prev := it.last(), fileItems[i].last(); l.T > prev.T || l.T == prev.T && l.E > prev.E {
				fileItems[i].LT, fileItems[i].LE = l.T, l.E
			}
			continue
		}
		fileItems = transcript.AppendLast(fileItems, maxFiles, it)
	}
	var cmds []item
	for _, it := range pick(func(s *source) []item { return s.Commands }) {
		cmds = appendLastUniqueItem(cmds, it, maxCommands)
	}
	errs := pick(func(s *source) []item { return s.Errors })
	if len(errs) > maxErrors {
		errs = errs[len(errs)-maxErrors:]
	}
	for _, l := range []struct {
		items []item
		all   *[]string
		since *[]string
	}{
		{fileItems, &f.Files, &since.Files},
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

// appendLastUniqueItem appends it, dropping an earlier item of the same
// text (a command run again counts at its latest run), and keeps the last
// max items.
func appendLastUniqueItem(list []item, it item, max int) []item {
	if i := slices.IndexFunc(list, func(x item) bool { return x.S == it.S }); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	return transcript.AppendLast(list, max, it)
}

// clone copies a state deeply, so that settling the copy's pending calls
// leaves the original able to read on.
func (st *state) clone() state {
	cp := *st
	cp.Main = st.Main.clone()
	if st.Agents != nil {
		cp.Agents = make(map[string]*source, len(st.Agents))
		for id, s := range st.Agents {
			c := s.clone()
			cp.Agents[id] = &c
		}
	}
	cp.Tasks = slices.Clone(st.Tasks)
	cp.Prompts = slices.Clone(st.Prompts)
	return cp
}

func (s *source) clone() source {
	cp := *s
	cp.Files = slices.Clone(s.Files)
	cp.Commands = slices.Clone(s.Commands)
	cp.Errors = slices.Clone(s.Errors)
	cp.Pending = slices.Clone(s.Pending)
	return cp
}

// cloneItem detaches a kept text from the line it was read from.
func cloneItem(t string, e int, s string) item {
	return item{T: strings.Clone(t), E: e, S: s}
}
