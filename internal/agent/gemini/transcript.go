package gemini

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// maxSeen bounds the tool call and prompt ids remembered against repeats.
const maxSeen = 256

// decoder reads a Gemini CLI chat file (JSONL) into observations. Its
// records: a session header ({"sessionId","projectHash","startTime",…},
// again at every resume); messages {"id","timestamp","type":"user"|"gemini",
// "content",…} where a model message carries tokens, model and the tool
// calls it made with their status and results, and is written again, with
// the same id, as its calls complete; and patches {"$set":{…}}, of which
// one rewriting "messages" restates the whole history (at a resume, and
// after a compression, whose <state_snapshot> it then holds).
//
// Observations come from the messages as they are appended; a history
// rewrite only brings the compression's snapshot (its other messages were
// read when they were appended). Its own state, the ids already read,
// round-trips through encoding/json.
type decoder struct {
	Calls []string `json:"calls,omitempty"` // ids of tool calls already reported, latest last
	Users []string `json:"users,omitempty"` // ids of user messages already read
}

func newDecoder(root string, red func(string) string) transcript.Decoder {
	return transcript.NewDecoder(&decoder{}, root, red)
}

var (
	headSet     = []byte(`{"$set"`)
	headHeader  = []byte(`{"sessionId"`)
	headRewind  = []byte(`{"$rewindTo"`)
	toolResults = []byte(`"type":"user","content":[{"functionResponse"`)
)

// Wants keeps message records and history rewrites; it skips, from their
// first bytes, the headers, the lastUpdated patches and the tool results a
// user record echoes (the model record that made the call holds them too).
func (d *decoder) Wants(head []byte) bool {
	head = bytes.TrimLeft(head, " \t")
	switch {
	case bytes.HasPrefix(head, setMessages):
		return true
	case bytes.HasPrefix(head, headSet), bytes.HasPrefix(head, headHeader), bytes.HasPrefix(head, headRewind):
		return false
	}
	window := head[:min(len(head), 512)]
	return !bytes.Contains(window, toolResults)
}

// Record decodes one chat record.
func (d *decoder) Record(rec []byte, acc *transcript.Accumulator) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return // a last line cut short mid-write
	}
	root := gjson.ParseBytes(rec)
	if !root.IsObject() {
		return
	}
	if set := root.Get(`\$set`); set.Exists() {
		acc.Recognised() // a chat record: what tells a chat file from one that is not
		if msgs := set.Get("messages"); msgs.IsArray() {
			rewrite(msgs, acc)
		}
		return
	}
	switch root.Get("type").Str {
	case "user":
		acc.Recognised()
		d.user(root, acc)
	case "gemini":
		acc.Recognised()
		d.gemini(root, acc)
	}
}

// rewrite reads a restated history: the <state_snapshot> a compression put
// at its start is the compaction summary (the same one restated again at a
// resume is no new compaction: the accumulator knows it).
func rewrite(msgs gjson.Result, acc *transcript.Accumulator) {
	msgs.ForEach(func(_, m gjson.Result) bool {
		if m.Get("type").Str != "user" {
			return true
		}
		text := strings.TrimSpace(partsText(m.Get("content")))
		if s, ok := snapshot(text); ok {
			acc.Add(transcript.Observation{Kind: transcript.Summary, Time: m.Get("timestamp").Str, Text: s})
		}
		return true
	})
}

// snapshot is the text inside a <state_snapshot> message.
func snapshot(text string) (string, bool) {
	const open, close = "<state_snapshot>", "</state_snapshot>"
	if !strings.HasPrefix(text, open) {
		return "", false
	}
	s := strings.TrimPrefix(text, open)
	if i := strings.LastIndex(s, close); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	return s, s != ""
}

// user reads a prompt: its text without the <hook_context> parts hooks
// added. Tool results (functionResponse parts) are read from the model
// record that made the call.
func (d *decoder) user(m gjson.Result, acc *transcript.Accumulator) {
	id := m.Get("id").Str
	if id != "" && slices.Contains(d.Users, id) {
		return
	}
	text := stripHookContext(partsText(m.Get("content")))
	if text == "" || strings.HasPrefix(text, "<session_context>") {
		return
	}
	if id != "" {
		d.Users = transcript.AppendLast(d.Users, maxSeen, strings.Clone(id))
	}
	acc.Add(transcript.Observation{Kind: transcript.Prompt, Time: m.Get("timestamp").Str, Text: text})
}

// gemini reads a model record: its usage, its text (the last reply) and the
// tool calls it made, each reported once, when first seen with a status.
func (d *decoder) gemini(m gjson.Result, acc *transcript.Accumulator) {
	ts := m.Get("timestamp").Str
	u := transcript.Observation{Kind: transcript.Usage, Model: m.Get("model").Str}
	if t := m.Get("tokens.input"); t.Type == gjson.Number && t.Int() > 0 {
		u.Tokens = int(t.Int())
	}
	acc.Add(u)
	acc.Add(transcript.Observation{Kind: transcript.Reply, Time: ts, Text: partsText(m.Get("content"))})
	m.Get("toolCalls").ForEach(func(_, c gjson.Result) bool {
		d.toolCall(c, ts, acc)
		return true
	})
}

// toolCall reports one completed tool call and its result: the file a
// write or replace touched, the command a shell call ran (its exit code
// read from the output), the plan write_todos set.
func (d *decoder) toolCall(c gjson.Result, ts string, acc *transcript.Accumulator) {
	id := c.Get("id").Str
	status := c.Get("status").Str
	if status == "" || (id != "" && slices.Contains(d.Calls, id)) {
		return
	}
	if status == "cancelled" {
		return // never ran: touched nothing, failed nothing
	}
	if id != "" {
		d.Calls = transcript.AppendLast(d.Calls, maxSeen, strings.Clone(id))
	}
	name := c.Get("name").Str
	args := c.Get("args")
	call := transcript.Observation{Kind: transcript.Call, Time: ts, ID: id, Tool: name}
	switch name {
	case "write_file", "replace":
		call.Files = []string{args.Get("file_path").Str}
	case "run_shell_command":
		call.Command = args.Get("command").Str
		call.Dir = args.Get("dir_path").Str
	case "read_file":
		call.Reads = []string{args.Get("file_path").Str, args.Get("absolute_path").Str}
	case "read_many_files":
		args.Get("paths").ForEach(func(_, p gjson.Result) bool {
			call.Reads = append(call.Reads, transcript.NamesFile(p.Str))
			return true
		})
	case "grep_search", "search_file_content":
		call.Reads = []string{transcript.NamesFile(args.Get("dir_path").Str), transcript.NamesFile(args.Get("path").Str)}
	case "write_todos":
		e := &transcript.PlanEdit{Op: transcript.Set}
		args.Get("todos").ForEach(func(_, t gjson.Result) bool {
			e.Items = append(e.Items, handoff.Task{Subject: t.Get("description").Str, Status: t.Get("status").Str})
			return true
		})
		call.Plan = e
	}
	if id == "" {
		call.ID = "gemini-call-" + strconv.Itoa(len(d.Calls))
	}
	acc.Add(call)
	res := transcript.Observation{Kind: transcript.Result, Time: ts, ID: call.ID}
	switch status {
	case "error":
		res.Failed, res.Text = true, resultText(c.Get("result"), "error")
		if res.Text == "" {
			res.Text = resultText(c.Get("result"), "output")
		}
	case "success":
		res.Text = resultText(c.Get("result"), "output")
		if name == "run_shell_command" {
			res.Exit, res.Text = shellExit(res.Text)
		}
	default:
		return // still running: in flight
	}
	acc.Add(res)
}

// resultText is a call's result text: the response's field key (output or
// error) of its functionResponse parts, or the result itself when a string.
func resultText(result gjson.Result, key string) string {
	if result.Type == gjson.String {
		return result.Str
	}
	var parts []string
	result.ForEach(func(_, p gjson.Result) bool {
		if s := p.Get("functionResponse.response." + key).Str; s != "" {
			parts = append(parts, s)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// shellExit reads run_shell_command's output ("Output: …\nExit Code:
// N\n…"): the exit code, when given, and the output without the tool's
// own lines (its headers, the <untrusted_context> tags around the output).
func shellExit(out string) (*int, string) {
	var exit *int
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if c, ok := strings.CutPrefix(t, "Exit Code:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(c)); err == nil {
				exit = transcript.Exit(n)
			}
			continue
		}
		if strings.HasPrefix(t, "<") || strings.HasPrefix(t, "Process Group PGID:") || strings.HasPrefix(t, "Background PIDs:") || strings.HasPrefix(t, "Signal:") ||
			strings.HasPrefix(t, "Directory:") || strings.HasPrefix(t, "Command:") || strings.HasPrefix(t, "Error: (none)") {
			continue
		}
		lines = append(lines, strings.TrimPrefix(l, "Output: "))
	}
	return exit, strings.Join(lines, "\n")
}

// partsText is a message's text: the string itself, or its text parts
// joined (thoughts, calls and results left out).
func partsText(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.Str
	}
	var parts []string
	content.ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Type == gjson.String && !p.Get("thought").Bool() {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// stripHookContext is a prompt without the <hook_context>…</hook_context>
// blocks Gemini CLI added from hooks (SessionStart's before it, BeforeAgent's
// as a part after it), trimmed.
func stripHookContext(s string) string {
	const open, close = "<hook_context>", "</hook_context>"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], close)
		if j < 0 {
			s = s[:i] // an unclosed block runs to the end
			break
		}
		s = s[:i] + s[i+j+len(close):]
	}
	return strings.TrimSpace(s)
}
