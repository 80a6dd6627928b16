package gemini

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Bounds on what the facts keep: the last entries of each list, and the
// longest text kept from one prompt, reply or summary.
const (
	maxFiles      = 200
	maxCommands   = 50
	maxErrors     = 30
	maxPrompts    = 20
	maxSeen       = 256 // tool call and prompt ids remembered against repeats
	maxTextRunes  = 4000
	maxLineRunes  = 200
	maxPromptRune = 2000
	// redactMargin is how far past a cut a kept text is redacted, so a
	// secret that starts before the cut is matched whole.
	redactMargin = 8 << 10
)

// decoder reads a Gemini CLI chat file (JSONL) into handoff facts. Its
// records: a session header ({"sessionId","projectHash","startTime",…},
// again at every resume); messages {"id","timestamp","type":"user"|"gemini",
// "content",…} where a model message carries tokens, model and the tool
// calls it made with their status and results, and is written again, with
// the same id, as its calls complete; and patches {"$set":{…}}, of which
// one rewriting "messages" restates the whole history (at a resume, and
// after a compression, whose <state_snapshot> it then holds).
//
// Facts come from the messages as they are appended; a history rewrite
// only brings the compression's snapshot (its other messages were read
// when they were appended). Every field is exported so the state
// round-trips through encoding/json.
type decoder struct {
	Root  string        `json:"root,omitempty"`
	F     handoff.Facts `json:"facts"`
	Calls []string      `json:"calls,omitempty"` // ids of tool calls already counted, latest last
	Users []string      `json:"users,omitempty"` // ids of user messages already read
	Reply string        `json:"reply,omitempty"` // the latest reply, redacted, cut wide (cut to size in Facts)
	red   func(string) string
}

func newDecoder(root string, red func(string) string) *decoder {
	if root != "" {
		root = filepath.Clean(root)
	}
	return &decoder{Root: root, red: red}
}

// SetRedactor sets the redaction a decoder restored from JSON uses.
func (d *decoder) SetRedactor(red func(string) string) { d.red = red }

// redacted is s redacted, for a text that will be cut to at most n runes.
func (d *decoder) redacted(s string, n int) string {
	if d.red == nil || s == "" {
		return s
	}
	return d.red(handoff.Cut(s, n+redactMargin))
}

// keep is s redacted, then cut to at most n runes.
func (d *decoder) keep(s string, n int) string { return handoff.Cut(d.redacted(s, n), n) }

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
func (d *decoder) Record(rec []byte) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return // a last line cut short mid-write
	}
	root := gjson.ParseBytes(rec)
	if !root.IsObject() {
		return
	}
	if set := root.Get(`\$set`); set.Exists() {
		d.F.Records++ // a chat record: what tells a chat file from one that is not
		if msgs := set.Get("messages"); msgs.IsArray() {
			d.rewrite(msgs)
		}
		return
	}
	switch root.Get("type").Str {
	case "user":
		d.F.Records++
		d.user(root)
	case "gemini":
		d.F.Records++
		d.gemini(root)
	}
}

// rewrite reads a restated history: the <state_snapshot> a compression put
// at its start is the compaction summary.
func (d *decoder) rewrite(msgs gjson.Result) {
	msgs.ForEach(func(_, m gjson.Result) bool {
		if m.Get("type").Str != "user" {
			return true
		}
		text := strings.TrimSpace(partsText(m.Get("content")))
		if s, ok := snapshot(text); ok {
			d.F.CompactSummary = d.keep(s, 4*maxTextRunes)
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
func (d *decoder) user(m gjson.Result) {
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
	d.F.Prompts = transcript.AppendLast(d.F.Prompts, maxPrompts, d.keep(text, maxPromptRune))
}

// gemini reads a model record: its usage, its text (the last reply) and the
// tool calls it made, each counted once, when first seen with a status.
func (d *decoder) gemini(m gjson.Result) {
	if t := m.Get("tokens.input"); t.Type == gjson.Number && t.Int() > 0 {
		d.F.Tokens = int(t.Int())
	}
	if model := m.Get("model").Str; model != "" {
		d.F.Model = strings.Clone(model)
	}
	if text := strings.TrimSpace(partsText(m.Get("content"))); text != "" {
		d.Reply = strings.Clone(d.redacted(text, maxTextRunes))
	}
	m.Get("toolCalls").ForEach(func(_, c gjson.Result) bool {
		d.toolCall(c)
		return true
	})
}

// toolCall records one completed tool call: the file a write or replace
// touched, the command a shell call ran, and the error of a failed call
// (a shell command's non-zero exit included).
func (d *decoder) toolCall(c gjson.Result) {
	id := c.Get("id").Str
	status := c.Get("status").Str
	if status == "" || (id != "" && slices.Contains(d.Calls, id)) {
		return
	}
	if id != "" {
		d.Calls = transcript.AppendLast(d.Calls, maxSeen, strings.Clone(id))
	}
	name := c.Get("name").Str
	args := c.Get("args")
	path := args.Get("file_path").Str
	command := ""
	if name == "run_shell_command" {
		command = commandLine(d.redacted(args.Get("command").Str, 4*maxLineRunes))
		if command != "" {
			d.F.Commands = transcript.AppendLastUnique(d.F.Commands, command, maxCommands)
		}
	}
	switch status {
	case "error":
		d.addError(name, path, command, resultText(c.Get("result"), "error"))
	case "success":
		if name == "write_file" || name == "replace" {
			d.addFile(path)
		}
		if name == "run_shell_command" {
			if code, out, failed := shellFailure(resultText(c.Get("result"), "output")); failed {
				d.addError(name, "", command, "Exit Code "+code+": "+out)
			}
		}
	}
}

// addError records one failed call as a line: the tool, its file or
// command, and the first informative line of what it said.
func (d *decoder) addError(name, path, command, msg string) {
	msg = firstLine(d.redacted(msg, 50*maxLineRunes))
	if msg == "" {
		msg = "(no message)"
	}
	prefix := name
	switch {
	case command != "":
		prefix += " `" + handoff.Cut(command, 80) + "`"
	case path != "":
		prefix += " " + filepath.Base(path)
	}
	d.F.Errors = transcript.AppendLast(d.F.Errors, maxErrors, handoff.Cut(prefix+": "+msg, maxLineRunes))
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

// shellFailure reads run_shell_command's output ("Output: …\nExit Code:
// N\n…"): the exit code when not 0, and the first line of output that says
// something.
func shellFailure(out string) (code, first string, failed bool) {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if c, ok := strings.CutPrefix(l, "Exit Code:"); ok {
			code = strings.TrimSpace(c)
			continue
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "Output:"))
		if l == "" || strings.HasPrefix(l, "<") || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "Process Group PGID:") {
			continue
		}
		lines = append(lines, l)
	}
	if code == "" || code == "0" {
		return "", "", false
	}
	if len(lines) > 0 {
		first = lines[0]
	}
	return code, first, true
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.SplitN(s, "\n", 50) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func (d *decoder) addFile(p string) {
	p = d.rel(p)
	if p == "" || slices.Contains(d.F.Files, p) {
		return
	}
	d.F.Files = transcript.AppendLast(d.F.Files, maxFiles, p)
}

// rel makes p relative to the root when it lies inside it, with forward
// slashes; a path outside the root stays as it is (cleaned).
func (d *decoder) rel(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if d.Root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(d.Root, p); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(p)
}

// Facts is what the records so far say; reading can go on after.
func (d *decoder) Facts() *handoff.Facts {
	f := d.F
	f.Files = slices.Clone(d.F.Files)
	f.Tasks = slices.Clone(d.F.Tasks)
	f.Commands = slices.Clone(d.F.Commands)
	f.Errors = slices.Clone(d.F.Errors)
	f.Prompts = slices.Clone(d.F.Prompts)
	if d.Reply != "" {
		f.LastAssistant = handoff.Cut(d.Reply, maxTextRunes)
	}
	return &f
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

// commandLine is a command as it ran, on one line: the lines of a script
// joined by "; " (a line ending in a backslash goes on with the next),
// whitespace folded, at most maxLineRunes long.
func commandLine(cmd string) string {
	var b strings.Builder
	sep := ""
	for _, l := range strings.Split(cmd, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" {
			continue
		}
		b.WriteString(sep)
		if cont, ok := strings.CutSuffix(l, "\\"); ok {
			b.WriteString(strings.TrimSpace(cont))
			sep = " "
			continue
		}
		b.WriteString(l)
		sep = "; "
	}
	return handoff.Cut(b.String(), maxLineRunes)
}
