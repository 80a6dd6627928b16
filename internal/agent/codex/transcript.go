package codex

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// A Codex rollout is JSON lines {"timestamp","ordinal","type","payload"}.
// The records that hold facts:
//
//	turn_context               payload.cwd, payload.model
//	response_item message      role user (prompts; also the client's own
//	                           context), assistant (replies), developer
//	                           (instructions, hook output: never a fact)
//	response_item function_call / function_call_output
//	                           exec_command {"cmd"} and its output, with
//	                           "Process exited with code N"
//	response_item custom_tool_call / custom_tool_call_output
//	                           apply_patch with the patch text, and its
//	                           output, "Exit code: N" (a patch that fails
//	                           verification has none)
//	compacted                  payload.message: the compaction summary
//	event_msg token_count      payload.info.last_token_usage
//
// Everything else (session_meta with the base instructions, world_state,
// the other event_msg records) streams past undecoded.

// Bounds on what the facts keep: the last entries of each list, and the
// longest text kept from one prompt, reply, command or error.
const (
	maxFiles      = 200
	maxCommands   = 50
	maxErrors     = 30
	maxPrompts    = 20
	maxPending    = 1000
	maxTextRunes  = 4000
	maxLineRunes  = 200
	maxPromptRune = 2000
	// redactMargin is how far past a cut a kept text is redacted, so a
	// secret that starts before the cut is matched whole.
	redactMargin = 8 << 10
)

// call is a tool call whose output has not been read yet: its effect
// counts only if the call did not fail.
type call struct {
	ID      string   `json:"id"`
	Tool    string   `json:"tool"`
	Command string   `json:"command,omitempty"` // exec_command, as it ran (redacted)
	Files   []string `json:"files,omitempty"`   // apply_patch, relative to the root when inside it
}

// decoder reads Codex rollout records into handoff facts. Its state is
// the exported fields: they round-trip through encoding/json, so reading
// can resume where it stopped.
type decoder struct {
	root string
	red  func(string) string
	decoderState
}

type decoderState struct {
	F       handoff.Facts `json:"facts"`
	Cwd     string        `json:"cwd,omitempty"`
	Pending []call        `json:"pending,omitempty"`
	// Reply is the latest reply, redacted (the state is kept on disk),
	// cut to size at Facts; Before is the one before it: Codex records its
	// compaction request's answer (the summary) as an assistant message,
	// which is no reply.
	Reply  string `json:"reply,omitempty"`
	Before string `json:"before,omitempty"`
}

func newDecoder(root string, red func(string) string) *decoder {
	if root != "" {
		root = filepath.Clean(root)
	}
	return &decoder{root: root, red: red}
}

// MarshalJSON is the decoder's state.
func (d *decoder) MarshalJSON() ([]byte, error) { return json.Marshal(d.decoderState) }

// UnmarshalJSON restores a state MarshalJSON wrote.
func (d *decoder) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &d.decoderState) }

// wanted are the record types that can hold a fact.
var wanted = map[string]bool{"response_item": true, "compacted": true, "turn_context": true, "event_msg": true}

// Wants decides from a record's head: Codex writes "type" before the
// payload, and an event_msg's payload starts with its own type, so both
// are in the head. When the head does not tell, the record is kept.
func (d *decoder) Wants(head []byte) bool {
	typ := gjson.GetBytes(head, "type")
	if typ.Type != gjson.String {
		return !typ.Exists() // not yet seen (cut head, other key order): decode to judge
	}
	switch typ.Str {
	case "event_msg":
		pt := gjson.GetBytes(head, "payload.type")
		return !pt.Exists() || pt.Str == "token_count"
	case "response_item":
		// Reasoning items (encrypted, often the largest records) say nothing.
		return gjson.GetBytes(head, "payload.type").Str != "reasoning"
	}
	return wanted[typ.Str]
}

// Record decodes one record; anything that is not a whole JSON object is
// skipped (a line cut short by a crash).
func (d *decoder) Record(rec []byte) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return
	}
	r := gjson.ParseBytes(rec)
	if !r.IsObject() {
		return
	}
	p := r.Get("payload")
	switch r.Get("type").Str {
	case "session_meta", "turn_context", "response_item", "compacted", "event_msg", "world_state", "token_usage_record":
		// A rollout record: what tells a rollout from a file that is not one.
		d.F.Records++
	}
	switch r.Get("type").Str {
	case "turn_context":
		if cwd := p.Get("cwd").Str; filepath.IsAbs(cwd) {
			d.Cwd = cwd
		}
		if m := p.Get("model").Str; m != "" {
			d.F.Model = m
		}
	case "response_item":
		d.item(p)
	case "compacted":
		d.compacted(p.Get("message").Str)
	case "event_msg":
		if p.Get("type").Str == "token_count" {
			// The prompt of the last request: what is in context now.
			// Codex's estimate after a compaction reports 0 input tokens:
			// real usage only.
			if n := p.Get("info.last_token_usage.input_tokens").Int(); n > 0 {
				d.F.Tokens = int(n)
			}
		}
	}
}

func (d *decoder) item(p gjson.Result) {
	switch p.Get("type").Str {
	case "message":
		d.message(p)
	case "function_call":
		d.functionCall(p)
	case "custom_tool_call":
		d.customToolCall(p)
	case "function_call_output", "custom_tool_call_output":
		d.output(p.Get("call_id").Str, outputText(p.Get("output")))
	}
}

// message handles a message: the user's prompt, an assistant reply, or
// context the client wrote itself (never a fact).
func (d *decoder) message(p gjson.Result) {
	text := messageText(p.Get("content"))
	switch p.Get("role").Str {
	case "assistant":
		if t := strings.TrimSpace(text); t != "" {
			d.Before, d.Reply = d.Reply, strings.Clone(d.redacted(t, maxTextRunes))
		}
	case "user":
		if !typedPrompt(p, text) {
			return
		}
		d.F.Prompts = transcript.AppendLast(d.F.Prompts, maxPrompts, d.keep(strings.TrimSpace(text), maxPromptRune))
	}
}

// clientPrompts start user messages Codex writes itself: the environment,
// AGENTS.md and other instructions, aborted turns, the compaction prompt.
var clientPrompts = []string{
	"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
	"<turn_aborted>", "<user_shell_command>", "<subagent_notification>",
	"You are performing a CONTEXT CHECKPOINT COMPACTION", compactPreamble,
}

// typedPrompt reports whether a user message is what the person typed.
// Codex marks each message's content kinds; when it does, only user.text
// is a prompt. Without the marks (older rollouts) the text decides.
func typedPrompt(p gjson.Result, text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	if kinds := p.Get("internal_chat_message_metadata_passthrough.content_item_kinds"); kinds.IsArray() {
		typed := false
		kinds.ForEach(func(_, k gjson.Result) bool {
			typed = k.Str == "user.text"
			return !typed
		})
		if !typed {
			return false
		}
	}
	for _, w := range clientPrompts {
		if strings.HasPrefix(t, w) {
			return false
		}
	}
	return true
}

// messageText joins a message's text parts (input_text, output_text).
func messageText(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.Str
	}
	var parts []string
	content.ForEach(func(_, el gjson.Result) bool {
		switch el.Get("type").Str {
		case "input_text", "output_text", "text":
			parts = append(parts, el.Get("text").Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// functionCall handles exec_command {"cmd": "..."}; older Codex releases
// named the tool shell, with {"command": ["bash", "-lc", "..."]}.
func (d *decoder) functionCall(p gjson.Result) {
	name := p.Get("name").Str
	args := gjson.Parse(p.Get("arguments").Str)
	var cmd string
	switch name {
	case "exec_command":
		cmd = args.Get("cmd").Str
	case "shell", "container.exec":
		cmd = shellCommand(args.Get("command"))
	case "apply_patch": // a function-style apply_patch (models without the freeform tool)
		d.patch(p.Get("call_id").Str, args.Get("input").Str)
		return
	default:
		return
	}
	c := call{ID: p.Get("call_id").Str, Tool: name, Command: d.redacted(cmd, 4*maxLineRunes)}
	if line := commandLine(c.Command); line != "" {
		d.F.Commands = transcript.AppendLastUnique(d.F.Commands, line, maxCommands)
	}
	d.pend(c)
}

// shellCommand is a command given as an argument list: the script of
// "bash -lc SCRIPT", else the words joined.
func shellCommand(argv gjson.Result) string {
	var words []string
	argv.ForEach(func(_, w gjson.Result) bool {
		words = append(words, w.Str)
		return true
	})
	if n := len(words); n >= 3 && (words[n-2] == "-lc" || words[n-2] == "-c") {
		return words[n-1]
	}
	return strings.Join(words, " ")
}

func (d *decoder) customToolCall(p gjson.Result) {
	if p.Get("name").Str == "apply_patch" {
		d.patch(p.Get("call_id").Str, p.Get("input").Str)
	}
}

// patch records an apply_patch call and the files its patch names.
func (d *decoder) patch(id, text string) {
	c := call{ID: id, Tool: "apply_patch"}
	for _, line := range strings.Split(text, "\n") {
		for _, marker := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if path, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), marker); ok {
				if p := d.rel(strings.TrimSpace(path)); p != "" && !slices.Contains(c.Files, p) {
					c.Files = append(c.Files, p)
				}
			}
		}
	}
	d.pend(c)
}

func (d *decoder) pend(c call) {
	if len(d.Pending) >= maxPending {
		// Outputs that never came: the oldest call is taken as done.
		d.apply(d.Pending[0])
		d.Pending = d.Pending[1:]
	}
	d.Pending = append(d.Pending, c)
}

// outputText is a tool output: a string, or (in some releases) content
// parts.
func outputText(o gjson.Result) string {
	if o.Type == gjson.String {
		return o.Str
	}
	if o.IsObject() {
		if c := o.Get("content"); c.Type == gjson.String {
			return c.Str
		}
		return messageText(o.Get("content"))
	}
	return messageText(o)
}

var exitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:) (-?\d+)\s*$`)
})

// outcome reads a tool output: the exit code (ok when none is given), and
// the output proper (what follows "Output:").
func outcome(tool, out string) (code int, failed bool, body string) {
	head, body, found := strings.Cut(out, "\nOutput:\n")
	if !found {
		head, body = out, ""
	}
	if m := exitLine().FindStringSubmatch(head); m != nil {
		code, _ = strconv.Atoi(m[1])
		return code, code != 0, body
	}
	if tool == "apply_patch" {
		// A patch that fails verification answers with the reason alone.
		return 0, !strings.Contains(out, "Success."), out
	}
	return 0, false, body
}

// output settles the call an output answers.
func (d *decoder) output(id, out string) {
	i := slices.IndexFunc(d.Pending, func(c call) bool { return c.ID == id })
	if i < 0 {
		return
	}
	c := d.Pending[i]
	d.Pending = slices.Delete(d.Pending, i, i+1)
	code, failed, body := outcome(c.Tool, out)
	if !failed {
		d.apply(c)
		return
	}
	d.F.Errors = transcript.AppendLast(d.F.Errors, maxErrors, errorLine(c, code, d.redacted(body, 50*maxLineRunes)))
}

// apply records the effect of a call that did not fail.
func (d *decoder) apply(c call) {
	for _, f := range c.Files {
		if !slices.Contains(d.F.Files, f) {
			d.F.Files = transcript.AppendLast(d.F.Files, maxFiles, f)
		}
	}
}

// errorLine is the one line reported for a failed call: the command or
// the patched files, the exit code, and the output's last line (where a
// failing command says why).
func errorLine(c call, code int, body string) string {
	var last string
	lines := strings.Split(strings.TrimSpace(body), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			last = l
			break
		}
	}
	var b strings.Builder
	if c.Command != "" {
		b.WriteString("`" + handoff.Cut(commandLine(c.Command), 80) + "`")
	} else {
		b.WriteString(c.Tool)
		if len(c.Files) > 0 {
			b.WriteString(" " + strings.Join(c.Files, ", "))
		}
	}
	if code != 0 {
		b.WriteString(": exit " + strconv.Itoa(code))
	}
	if last != "" {
		b.WriteString(": " + last)
	}
	return handoff.Cut(b.String(), maxLineRunes)
}

// commandLine is a command as one line: its first non-empty line, with
// "…" when more followed, at most maxLineRunes long.
func commandLine(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	first, rest, more := strings.Cut(cmd, "\n")
	first = strings.TrimSpace(first)
	if more && strings.TrimSpace(rest) != "" {
		first += " …"
	}
	return handoff.Cut(first, maxLineRunes)
}

// compactPreamble opens the message Codex writes into the history after a
// compaction, before the summary itself.
const compactPreamble = "Another language model started to solve this problem"

// compacted records a compaction's summary. Codex recorded the summary,
// just before, as an assistant message: that is no reply.
func (d *decoder) compacted(msg string) {
	s := strings.TrimSpace(msg)
	if strings.HasPrefix(s, compactPreamble) {
		// The preamble is one paragraph ending in "…analysis:" and a line break.
		if _, after, ok := strings.Cut(s, "\n"); ok {
			s = after
		} else {
			s = ""
		}
	}
	s = handoff.CleanSummary(s)
	if s == "" {
		return
	}
	if d.Reply != "" && strings.TrimSpace(d.Reply) == strings.TrimSpace(d.redacted(s, maxTextRunes)) {
		d.Reply, d.Before = d.Before, ""
	}
	d.F.CompactSummary = d.keep(s, 4*maxTextRunes)
	// What was in context is gone; the next real usage says what is now.
	d.F.Tokens = 0
}

// rel makes a patch path relative to the root: a relative path is taken
// from the session's cwd; a path outside the root stays absolute.
func (d *decoder) rel(p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) && d.Cwd != "" {
		p = filepath.Join(d.Cwd, p)
	}
	p = filepath.Clean(p)
	if d.root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(d.root, p); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r)
		}
	}
	if p == "." {
		return ""
	}
	return filepath.ToSlash(p)
}

// redacted is s redacted, for a text that will be cut to at most n runes.
func (d *decoder) redacted(s string, n int) string {
	if d.red == nil || s == "" {
		return strings.Clone(transcript.PrefixRunes(s, n+redactMargin))
	}
	return d.red(transcript.PrefixRunes(s, n+redactMargin))
}

// keep is s, redacted, cut to at most n runes.
func (d *decoder) keep(s string, n int) string { return handoff.Cut(d.redacted(s, n), n) }

// Facts is what the records so far say. Calls still awaiting their output
// count as done (the session may have stopped mid-call). Reading can go on.
func (d *decoder) Facts() *handoff.Facts {
	f := d.F
	f.Files = slices.Clone(f.Files)
	f.Tasks = slices.Clone(f.Tasks)
	f.Commands = slices.Clone(f.Commands)
	f.Errors = slices.Clone(f.Errors)
	f.Prompts = slices.Clone(f.Prompts)
	for _, c := range d.Pending {
		for _, p := range c.Files {
			if !slices.Contains(f.Files, p) {
				f.Files = transcript.AppendLast(f.Files, maxFiles, p)
			}
		}
	}
	if d.Reply != "" {
		f.LastAssistant = handoff.Cut(d.Reply, maxTextRunes)
	}
	return &f
}
