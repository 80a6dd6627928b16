package claude

import (
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Bounds on what handoff.Facts keeps: the last entries of each list, and the
// longest text kept from one prompt or message.
const (
	maxFiles      = 200
	maxTasks      = 200
	maxCommands   = 50
	maxErrors     = 30
	maxPrompts    = 20
	maxPending    = 1000
	maxAgents     = 200
	maxTextRunes  = 4000
	maxLineRunes  = 200
	maxPromptRune = 2000
)

// collector is the Claude Code transcript.Decoder: it turns the client's
// records into handoff.Facts. Its state (st) round-trips through JSON.
type collector struct {
	root string
	red  func(string) string // redacts secrets; nil: none
	st   state
}

func newCollector(root string, red func(string) string) *collector {
	if root != "" {
		root = filepath.Clean(root)
	}
	return &collector{root: root, red: red}
}

// redactMargin is how far past a cut a kept text is redacted: a secret that
// starts before the cut is matched whole (a private key block is a few KB),
// not as a fragment no rule recognises.
const redactMargin = 8 << 10

// redacted is s redacted, for a text that will be cut to at most n runes.
func (c *collector) redacted(s string, n int) string {
	if c.red == nil || s == "" {
		return s
	}
	return c.red(transcript.PrefixRunes(s, n+redactMargin))
}

// keep is s, redacted, cut to at most n runes (see handoff.Cut).
func (c *collector) keep(s string, n int) string {
	return handoff.Cut(c.redacted(s, n), n)
}

// Record decodes one transcript record. A line that is not one whole JSON
// object says nothing by itself, but a crash can leave a record cut short
// with the next one appended to it on the same line: the whole records in
// it are recovered.
func (c *collector) Record(rec []byte) {
	if c.record(rec) {
		return
	}
	for _, r := range wholeRecords(rec) {
		c.record(r)
	}
}

// record is one entry, with the fields that say whose and when it is.
type record struct {
	typ, agent, ts          string
	isMeta, isSummary, side bool
	msg                     []byte
}

// record decodes one line and reports whether it was one whole JSON
// object. The line is scanned in place, never copied nor unescaped
// whole: the values read point into it, so every text kept is cloned
// (handoff.Cut copies). Only small values go through gjson; large ones
// (a tool result's text) are stepped over with IndexByte.
func (c *collector) record(b []byte) bool {
	var r record
	var data []byte
	ok := topLevel(b, func(k, v []byte) {
		switch string(k) {
		case "type":
			r.typ = str(v)
		case "isMeta":
			r.isMeta = parse(v).Bool()
		case "isCompactSummary":
			r.isSummary = parse(v).Bool()
		case "isSidechain":
			r.side = parse(v).Bool()
		case "agentId":
			r.agent = str(v)
		case "message":
			r.msg = v
		case "data":
			data = v
		case "timestamp":
			r.ts = str(v)
		}
	})
	if !ok {
		return false
	}
	switch {
	case r.typ == "progress":
		c.progress(data, r.ts)
	case r.msg != nil && (r.typ == "user" || r.typ == "assistant"):
		via := ""
		if r.side {
			via = "file"
		}
		c.message(r, via)
	}
	return true
}

// str is the JSON string v's text ("" for any other value).
func str(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	return parse(v).Str
}

// progress reads a subagent's message from a Claude Code 2.0/2.1.x
// progress record: {"type":"progress","data":{"type":"agent_progress",
// "agentId":…,"message":{"type":"assistant"|"user","message":{…},
// "timestamp":…}},…}. Other progress kinds (bash, hook, MCP) say nothing a
// handoff needs.
func (c *collector) progress(data []byte, ts string) {
	var kind, agent string
	var wrapped []byte
	eachKey(data, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			kind = str(v)
		case "agentId":
			agent = str(v)
		case "message":
			wrapped = v
		}
		return true
	})
	if kind != "agent_progress" || wrapped == nil {
		return
	}
	r := record{agent: agent, ts: ts, side: true}
	eachKey(wrapped, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			r.typ = str(v)
		case "message":
			r.msg = v
		case "timestamp":
			r.ts = str(v)
		}
		return true
	})
	if r.msg == nil || (r.typ != "user" && r.typ != "assistant") {
		return
	}
	c.message(r, "progress")
}

// message handles a user or assistant message of the main agent (via "")
// or of a subagent.
func (c *collector) message(r record, via string) {
	var role, model string
	var content, usage []byte
	isObject := false
	eachKey(r.msg, func(k, v []byte) bool {
		isObject = true
		switch string(k) {
		case "role":
			role = str(v)
		case "content":
			content = v
		case "model":
			model = str(v)
		case "usage":
			usage = v
		}
		return true
	})
	if !isObject {
		return
	}
	src := &c.st.Main
	if via != "" {
		if r.agent == "" {
			r.agent = "sidechain"
		}
		src = c.agent(r.agent, via, r.ts)
		if src == nil {
			return // the same subagent, already read from its other record form
		}
	}
	c.st.Records++
	if r.typ == "assistant" || role == "assistant" {
		c.assistant(src, r, content, model, usage)
		return
	}
	if isArray(content) && c.toolResults(src, r.ts, content) {
		return
	}
	if via == "" {
		c.user(r, content)
	}
}

func isArray(v []byte) bool { return len(v) > 0 && v[0] == '[' }

// agent is the source of subagent id's records arriving via one form, or
// nil when that subagent's records were already read in the other form.
func (c *collector) agent(id, via, ts string) *source {
	s := c.st.Agents[id]
	if s == nil {
		if len(c.st.Agents) >= maxAgents {
			id = "more"
			if s = c.st.Agents[id]; s != nil {
				return s
			}
		}
		if c.st.Agents == nil {
			c.st.Agents = map[string]*source{}
		}
		s = &source{Via: via, Start: strings.Clone(ts)}
		c.st.Agents[strings.Clone(id)] = s
	}
	if s.Via != via {
		return nil
	}
	return s
}

// user handles a user entry that is not a tool result: a prompt, a
// compaction summary, or something the client injected.
func (c *collector) user(r record, content []byte) {
	text := contentText(parse(content))
	if r.isSummary {
		if s := cleanTranscriptSummary(text); s != "" {
			c.st.Summary = c.keep(s, 4*maxTextRunes)
			c.st.Compactions++
			c.st.CompactedAt = strings.Clone(r.ts)
		}
		return
	}
	if r.isMeta {
		return
	}
	text = promptText(text)
	if text == "" {
		return
	}
	c.st.Prompts = transcript.AppendLast(c.st.Prompts, maxPrompts, cloneItem(r.ts, c.st.Compactions, c.keep(text, maxPromptRune)))
}

// contentText is a message's text: the string itself, or its text blocks
// joined (images and other blocks are left out).
func contentText(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.Str
	}
	var parts []string
	content.ForEach(func(_, el gjson.Result) bool {
		if el.Get("type").Str == "text" {
			parts = append(parts, el.Get("text").Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

func (c *collector) assistant(src *source, r record, content []byte, model string, usage []byte) {
	if model == "<synthetic>" {
		return // the client's own stand-in for a failed request
	}
	var texts []string
	eachElem(content, func(el []byte) bool {
		var typ, id, name string
		var text, input []byte
		eachKey(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = str(v)
			case "text":
				text = v
			case "id":
				id = str(v)
			case "name":
				name = str(v)
			case "input":
				input = v
			}
			return true
		})
		switch typ {
		case "text":
			if t := strings.TrimSpace(str(text)); t != "" {
				texts = append(texts, t)
			}
		case "tool_use":
			c.toolUse(src, r.ts, id, name, parse(input))
		}
		return true
	})
	if src != &c.st.Main {
		return
	}
	if usage != nil {
		// The real size of the context at this reply: everything the
		// request carried, cached or not.
		u := parse(usage)
		c.st.Tokens = int(u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int())
		if model != "" {
			c.st.Model = strings.Clone(model)
		}
	}
	if len(texts) > 0 {
		c.st.Last = item{T: strings.Clone(r.ts), E: c.st.Compactions, S: strings.Clone(transcript.PrefixRunes(strings.Join(texts, "\n\n"), maxTextRunes+redactMargin))}
	}
}

func (c *collector) toolUse(src *source, ts, id, name string, in gjson.Result) {
	u := pendingUse{ID: id, Name: name, T: ts, E: c.st.Compactions}
	switch u.Name {
	case "Write", "Edit", "MultiEdit":
		u.Path = in.Get("file_path").Str
	case "NotebookEdit":
		u.Path = in.Get("notebook_path").Str
	case "Bash":
		u.Command = c.redacted(in.Get("command").Str, 4*maxLineRunes)
		if cmd := commandLine(u.Command); cmd != "" && !trivialCommand(u.Command) {
			src.Commands = appendLastUniqueItem(src.Commands, cloneItem(ts, u.E, cmd), maxCommands)
		}
	case "TaskCreate":
		u.Subject = c.redacted(in.Get("subject").Str, maxLineRunes)
	case "TaskUpdate":
		u.Update = &taskUpdate{ID: scalarString(in.Get("taskId")), Status: in.Get("status").Str, Subject: c.redacted(in.Get("subject").Str, maxLineRunes)}
	case "TodoWrite":
		u.IsTodo = true
		in.Get("todos").ForEach(func(_, t gjson.Result) bool {
			u.Todos = append(u.Todos, handoff.Task{ID: scalarString(t.Get("id")), Subject: c.keep(t.Get("content").Str, maxLineRunes), Status: t.Get("status").Str})
			return true
		})
	}
	if len(src.Pending) >= maxPending {
		// Results that never came: the oldest call is taken as done.
		c.apply(src, src.Pending[0], "")
		src.Pending = src.Pending[1:]
	}
	src.Pending = append(src.Pending, clonePending(u))
}

// scalarString reads a value the client may write as a string or a number.
func scalarString(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	if r.Type == gjson.Number {
		return r.Raw
	}
	return ""
}

// toolResults reads the tool results in a user message's content and
// reports whether there were any (then the message is no prompt).
func (c *collector) toolResults(src *source, ts string, content []byte) bool {
	found := false
	eachElem(content, func(el []byte) bool {
		// One pass over the block's keys, without unescaping the
		// result's text (it can be large): it is parsed only when needed.
		var typ, id string
		var isErr bool
		var text []byte
		eachKey(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = str(v)
			case "tool_use_id":
				id = str(v)
			case "is_error":
				isErr = parse(v).Bool()
			case "content":
				text = v
			}
			return true
		})
		if typ != "tool_result" {
			return true
		}
		found = true
		var u pendingUse
		ok := false
		for i := len(src.Pending) - 1; i >= 0; i-- {
			if src.Pending[i].ID == id {
				u, ok = src.Pending[i], true
				src.Pending = append(src.Pending[:i], src.Pending[i+1:]...)
				break
			}
		}
		if isErr {
			line := errorLine(u, c.redacted(contentText(parse(text)), 50*maxLineRunes))
			src.Errors = transcript.AppendLast(src.Errors, maxErrors, cloneItem(ts, c.st.Compactions, line))
			return true
		}
		if ok {
			result := ""
			if u.Name == "TaskCreate" {
				result = contentText(parse(text))
			}
			c.apply(src, u, result)
		}
		return true
	})
	return found
}

var taskCreated = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Task #(\S+?) created`) })

// apply records the effect of a tool call that did not fail. Tasks are the
// main agent's: a subagent's task list is its own.
func (c *collector) apply(src *source, u pendingUse, result string) {
	switch {
	case u.Path != "":
		c.addFile(src, u)
	case src != &c.st.Main:
	case u.Name == "TaskCreate" && u.Subject != "":
		t := handoff.Task{Subject: u.Subject, Status: "pending"}
		if m := taskCreated().FindStringSubmatch(strings.TrimSpace(result)); m != nil {
			t.ID = strings.Clone(m[1])
		}
		c.st.Tasks = transcript.AppendLast(c.st.Tasks, maxTasks, t)
	case u.Update != nil:
		for i := len(c.st.Tasks) - 1; i >= 0; i-- { // the latest task of that id
			if c.st.Tasks[i].ID == u.Update.ID && u.Update.ID != "" {
				if u.Update.Status != "" {
					c.st.Tasks[i].Status = u.Update.Status
				}
				if u.Update.Subject != "" {
					c.st.Tasks[i].Subject = u.Update.Subject
				}
				break
			}
		}
	case u.IsTodo:
		c.st.Tasks = transcript.AppendLast(nil, maxTasks, u.Todos...)
	}
}

func (c *collector) addFile(src *source, u pendingUse) {
	p := c.rel(u.Path)
	if p == "" {
		return
	}
	for i := range src.Files {
		if src.Files[i].S == p { // touched again: listed at its first touch, counted since its last
			src.Files[i].LT, src.Files[i].LE = strings.Clone(u.T), u.E
			return
		}
	}
	src.Files = transcript.AppendLast(src.Files, maxFiles, item{T: u.T, E: u.E, S: p})
}

// rel makes p relative to the root when it lies inside it, with forward
// slashes; a path outside the root stays as it is (cleaned).
func (c *collector) rel(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if c.root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(c.root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && r != "." {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(p)
}

// Facts is what the records so far say. Calls still awaiting their result
// count as done (the session may have stopped mid-call: the tool may well
// have run). It leaves the collector as it was, so reading can go on.
func (c *collector) Facts() *handoff.Facts {
	settled := collector{root: c.root, red: c.red, st: c.st.clone()}
	for _, src := range settled.st.sources() {
		for _, u := range src.Pending {
			settled.apply(src, u, "")
		}
		src.Pending = nil
	}
	f := settled.st.facts()
	if f.LastAssistant != "" {
		f.LastAssistant = c.keep(f.LastAssistant, maxTextRunes)
		if f.Since != nil && f.Since.LastAssistant != "" {
			f.Since.LastAssistant = f.LastAssistant
		}
	}
	return f
}

// ReadTranscript reads a Claude Code transcript from r; root makes file
// paths relative; red, when not nil, redacts every text kept (prompts,
// commands, errors, tasks, the last reply, the compaction summary) before
// it is cut to size.
func ReadTranscript(r io.Reader, root string, red func(string) string) (*handoff.Facts, error) {
	return transcript.Read(r, newCollector(root, red))
}

// ReadTranscriptFile reads the Claude Code transcript at path (a regular
// file only) and the files of its subagents beside it
// (<session>/subagents/agent-*.jsonl, Claude Code 2.1.x).
func ReadTranscriptFile(path, root string, red func(string) string) (*handoff.Facts, error) {
	return transcript.ReadFiles(TranscriptFiles(path), newCollector(root, red))
}

// TranscriptFiles is the transcript at path and its subagents' files: a
// session's records, all of them. The subagents' files are sorted by name;
// the facts do not depend on the order (they are merged by time).
func TranscriptFiles(path string) []string {
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-*.jsonl"))
	return append([]string{path}, subs...)
}

// ReadTranscriptFrom reads the Claude Code transcript at path and its
// subagents' files, resuming from cp (nil: from the start) and stopping at
// deadline (zero: none); it returns the facts of everything read so far
// and the checkpoint to resume from next time (see transcript.ReadFrom,
// transcript.LoadCheckpoint and transcript.SaveCheckpoint).
func ReadTranscriptFrom(path, root string, red func(string) string, cp *transcript.Checkpoint, deadline time.Time) (*handoff.Facts, *transcript.Checkpoint, error) {
	return transcript.ReadFrom(TranscriptFiles(path), newCollector(root, red), cp, deadline)
}

// parse parses JSON in place: the results point into b, which must stay
// unchanged while they are used; what is kept is cloned.
func parse(b []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
}
