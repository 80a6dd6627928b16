package claude

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// maxAgents bounds the subagents told apart; the rest count as one.
const maxAgents = 200

// collector reads Claude Code's records into observations. Its own state
// is which form each subagent's records came in; it round-trips through
// encoding/json.
type collector struct {
	// Agents maps a subagent's id to how its records came: "progress"
	// (inside the parent transcript, Claude Code 2.0/2.1.x) or "file" (its
	// own subagents/agent-<id>.jsonl); when a client wrote both, the first
	// seen is read and the other ignored, so nothing counts twice.
	Agents map[string]string `json:"agents,omitempty"`
}

func newCollector(root string, red func(string) string) transcript.Decoder {
	return transcript.NewDecoder(&collector{}, root, red)
}

// Record decodes one transcript record. A line that is not one whole JSON
// object says nothing by itself, but a crash can leave a record cut short
// with the next one appended to it on the same line: the whole records in
// it are recovered.
func (c *collector) Record(rec []byte, acc *transcript.Accumulator) {
	if c.record(rec, acc) {
		return
	}
	for _, r := range wholeRecords(rec) {
		c.record(r, acc)
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
// whole: the values read point into it (the accumulator copies what it
// keeps). Only small values go through gjson; large ones (a tool result's
// text) are stepped over with IndexByte.
func (c *collector) record(b []byte, acc *transcript.Accumulator) bool {
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
		c.progress(data, r.ts, acc)
	case r.msg != nil && (r.typ == "user" || r.typ == "assistant"):
		via := ""
		if r.side {
			via = "file"
		}
		c.message(r, via, acc)
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
func (c *collector) progress(data []byte, ts string, acc *transcript.Accumulator) {
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
	c.message(r, "progress", acc)
}

// message handles a user or assistant message of the main agent (via "")
// or of a subagent.
func (c *collector) message(r record, via string, acc *transcript.Accumulator) {
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
	agent := ""
	if via != "" {
		if agent = c.agent(r.agent, via); agent == "" {
			return // the same subagent, already read from its other record form
		}
	}
	acc.Recognised()
	if r.typ == "assistant" || role == "assistant" {
		assistant(agent, r, content, model, usage, acc)
		return
	}
	if isArray(content) && toolResults(agent, r.ts, content, acc) {
		return
	}
	if via == "" {
		user(r, content, acc)
	}
}

func isArray(v []byte) bool { return len(v) > 0 && v[0] == '[' }

// agent is the name subagent id's records are told by when they arrive
// via this form, or "" when that subagent's records were already read in
// the other form.
func (c *collector) agent(id, via string) string {
	if id == "" {
		id = "sidechain"
	}
	seen, ok := c.Agents[id]
	if !ok {
		if len(c.Agents) >= maxAgents {
			return "more"
		}
		if c.Agents == nil {
			c.Agents = map[string]string{}
		}
		c.Agents[strings.Clone(id)] = via
		seen = via
	}
	if seen != via {
		return ""
	}
	return id
}

// user handles a user entry that is not a tool result: a prompt, a
// compaction summary, or something the client injected.
func user(r record, content []byte, acc *transcript.Accumulator) {
	text := contentText(parse(content))
	if r.isSummary {
		acc.Add(transcript.Observation{Kind: transcript.Summary, Time: r.ts, Text: cleanTranscriptSummary(text)})
		return
	}
	if r.isMeta {
		return
	}
	acc.Add(transcript.Observation{Kind: transcript.Prompt, Time: r.ts, Text: promptText(text)})
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

func assistant(agent string, r record, content []byte, model string, usage []byte, acc *transcript.Accumulator) {
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
			acc.Add(toolCall(agent, r.ts, id, name, parse(input)))
		}
		return true
	})
	if agent != "" {
		return
	}
	if usage != nil {
		// The real size of the context at this reply: everything the
		// request carried, cached or not.
		u := parse(usage)
		n := u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int()
		acc.Add(transcript.Observation{Kind: transcript.Usage, Tokens: int(n), Model: model})
	}
	if len(texts) > 0 {
		acc.Add(transcript.Observation{Kind: transcript.Reply, Time: r.ts, Text: strings.Join(texts, "\n\n")})
	}
}

// toolCall is the observation of one tool call: the files the edit tools
// write, the files Read reads and Grep searches, Bash's command, the task
// tools' changes to the plan.
func toolCall(agent, ts, id, name string, in gjson.Result) transcript.Observation {
	o := transcript.Observation{Kind: transcript.Call, Time: ts, Agent: agent, ID: id, Tool: name}
	switch name {
	case "Write", "Edit", "MultiEdit":
		o.Files = []string{in.Get("file_path").Str}
	case "NotebookEdit":
		o.Files = []string{in.Get("notebook_path").Str}
	case "Read":
		o.Reads = []string{in.Get("file_path").Str}
	case "NotebookRead":
		o.Reads = []string{in.Get("notebook_path").Str}
	case "Grep":
		o.Reads = []string{transcript.NamesFile(in.Get("path").Str)}
	case "Bash":
		o.Command = in.Get("command").Str
	case "TaskCreate":
		if s := in.Get("subject").Str; s != "" {
			o.Plan = &transcript.PlanEdit{Op: transcript.Add, Items: []handoff.Task{{Subject: s, Status: "pending"}}}
		}
	case "TaskUpdate":
		o.Plan = &transcript.PlanEdit{Op: transcript.Update, Items: []handoff.Task{{ID: scalarString(in.Get("taskId")), Status: in.Get("status").Str, Subject: in.Get("subject").Str}}}
	case "TodoWrite":
		e := &transcript.PlanEdit{Op: transcript.Set}
		in.Get("todos").ForEach(func(_, t gjson.Result) bool {
			e.Items = append(e.Items, handoff.Task{ID: scalarString(t.Get("id")), Subject: t.Get("content").Str, Status: t.Get("status").Str})
			return true
		})
		o.Plan = e
	}
	return o
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

// toolResults reports the tool results in a user message's content and
// reports whether there were any (then the message is no prompt).
func toolResults(agent, ts string, content []byte, acc *transcript.Accumulator) bool {
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
		o := transcript.Observation{Kind: transcript.Result, Time: ts, Agent: agent, ID: id, Failed: isErr}
		o.Output = func() string { return contentText(parse(text)) }
		o.MayHold = func(word string) bool { return mayHold(text, word) }
		if isErr {
			// A failed Bash command's result opens with its exit code.
			out := o.Output()
			if m := exitCode().FindStringSubmatch(out); m != nil {
				code, _ := strconv.Atoi(m[1])
				o.Exit, out = transcript.Exit(code), out[len(m[0]):]
			}
			o.Text = out
		}
		if head := text[:min(len(text), 64)]; bytes.Contains(head, []byte("Task #")) {
			if m := taskCreated().FindStringSubmatch(strings.TrimSpace(o.Output())); m != nil {
				o.PlanID = m[1]
			}
		}
		acc.Add(o)
		return true
	})
	return found
}

// mayHold reports whether the text of the JSON value raw (a string, or an
// array of text blocks) may hold word, a word of letters: false only when
// its bytes do not, and no \u escape (the one escape that can stand for a
// letter) could hide it.
func mayHold(raw []byte, word string) bool {
	return bytes.Contains(raw, []byte(word)) || bytes.Contains(raw, []byte(`\u`))
}

var (
	taskCreated = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Task #(\S+?) created`) })
	exitCode    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Exit code (-?\d+)\s*`) })
)

// readTranscript reads a Claude Code transcript from r; root makes file
// paths relative; red, when not nil, redacts every text kept (prompts,
// commands, errors, tasks, the last reply, the compaction summary) before
// it is cut to size.
func readTranscript(r io.Reader, root string, red func(string) string) (*handoff.Facts, error) {
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

// readTranscriptFrom reads the Claude Code transcript at path and its
// subagents' files, resuming from cp (nil: from the start) and stopping at
// deadline (zero: none); it returns the facts of everything read so far
// and the checkpoint to resume from next time (see transcript.ReadFrom,
// transcript.LoadCheckpoint and transcript.SaveCheckpoint).
func readTranscriptFrom(path, root string, red func(string) string, cp *transcript.Checkpoint, deadline time.Time) (*handoff.Facts, *transcript.Checkpoint, error) {
	return transcript.ReadFrom(TranscriptFiles(path), newCollector(root, red), cp, deadline)
}

// parse parses JSON in place: the results point into b, which must stay
// unchanged while they are used; what is kept is cloned.
func parse(b []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
}
