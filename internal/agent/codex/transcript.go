package codex

import (
	"regexp"
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
//	response_item function_call write_stdin {"session_id"}
//	                           polls a command still running ("Process
//	                           running with session ID N"): its output
//	                           brings that command's exit code
//	response_item function_call update_plan {"plan":[{"step","status"}]}
//
// Everything else (session_meta with the base instructions, world_state,
// the other event_msg records) streams past undecoded.

// maxSessions bounds the commands remembered as still running.
const maxSessions = 256

// records reads Codex rollout records into observations. Its own state
// (which running command each exec session and each poll belong to)
// round-trips through encoding/json.
type records struct {
	// Sessions maps an exec session still running to the call that
	// started it; Polls maps a write_stdin call to that call.
	Sessions map[string]string `json:"sessions,omitempty"`
	Polls    map[string]string `json:"polls,omitempty"`
	// Tools remembers the tool of each call awaiting its output (an
	// apply_patch output says success in words, not by an exit code).
	Tools map[string]string `json:"tools,omitempty"`
}

func newDecoder(root string, red func(string) string) transcript.Decoder {
	return transcript.NewDecoder(&records{}, root, red)
}

// wanted are the record types that can hold a fact.
var wanted = map[string]bool{"response_item": true, "compacted": true, "turn_context": true, "event_msg": true}

// Wants decides from a record's head: Codex writes "type" before the
// payload, and an event_msg's payload starts with its own type, so both
// are in the head. When the head does not tell, the record is kept.
func (d *records) Wants(head []byte) bool {
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
func (d *records) Record(rec []byte, acc *transcript.Accumulator) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return
	}
	r := gjson.ParseBytes(rec)
	if !r.IsObject() {
		return
	}
	p := r.Get("payload")
	ts := r.Get("timestamp").Str
	switch r.Get("type").Str {
	case "session_meta", "turn_context", "response_item", "compacted", "event_msg", "world_state", "token_usage_record":
		// A rollout record: what tells a rollout from a file that is not one.
		acc.Recognised()
	}
	switch r.Get("type").Str {
	case "turn_context":
		acc.Add(transcript.Observation{Kind: transcript.Cwd, Text: p.Get("cwd").Str})
		if m := p.Get("model").Str; m != "" {
			acc.Add(transcript.Observation{Kind: transcript.Usage, Model: m})
		}
	case "response_item":
		d.item(p, ts, acc)
	case "compacted":
		if s := compactSummary(p.Get("message").Str); s != "" {
			acc.Add(transcript.Observation{Kind: transcript.Summary, Time: ts, Text: s})
		}
	case "event_msg":
		if p.Get("type").Str == "token_count" {
			// The prompt of the last request: what is in context now.
			// Codex's estimate after a compaction reports 0 input tokens:
			// real usage only.
			if n := p.Get("info.last_token_usage.input_tokens").Int(); n > 0 {
				acc.Add(transcript.Observation{Kind: transcript.Usage, Tokens: int(n)})
			}
		}
	}
}

func (d *records) item(p gjson.Result, ts string, acc *transcript.Accumulator) {
	switch p.Get("type").Str {
	case "message":
		message(p, ts, acc)
	case "function_call":
		d.functionCall(p, ts, acc)
	case "custom_tool_call":
		if p.Get("name").Str == "apply_patch" {
			d.patch(p.Get("call_id").Str, p.Get("input").Str, ts, acc)
		}
	case "function_call_output", "custom_tool_call_output":
		d.output(p.Get("call_id").Str, outputText(p.Get("output")), ts, acc)
	}
}

// message handles a message: the user's prompt, an assistant reply, or
// context the client wrote itself (never a fact).
func message(p gjson.Result, ts string, acc *transcript.Accumulator) {
	text := messageText(p.Get("content"))
	switch p.Get("role").Str {
	case "assistant":
		acc.Add(transcript.Observation{Kind: transcript.Reply, Time: ts, Text: text})
	case "user":
		if typedPrompt(p, text) {
			acc.Add(transcript.Observation{Kind: transcript.Prompt, Time: ts, Text: text})
		}
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

// functionCall handles exec_command {"cmd": "..."} (older Codex releases
// named the tool shell, with {"command": ["bash", "-lc", "..."]}), a
// write_stdin poll of a command still running, update_plan, and a
// function-style apply_patch.
func (d *records) functionCall(p gjson.Result, ts string, acc *transcript.Accumulator) {
	name := p.Get("name").Str
	id := p.Get("call_id").Str
	args := gjson.Parse(p.Get("arguments").Str)
	var cmd string
	switch name {
	case "exec_command":
		cmd = args.Get("cmd").Str
	case "shell", "container.exec", "local_shell":
		cmd = shellCommand(args.Get("command"))
	case "apply_patch": // models without the freeform tool
		d.patch(id, args.Get("input").Str, ts, acc)
		return
	case "write_stdin":
		if started, ok := d.Sessions[scalar(args.Get("session_id"))]; ok {
			d.Polls = bounded(d.Polls)
			d.Polls[strings.Clone(id)] = started
		}
		return
	case "update_plan":
		edit := &transcript.PlanEdit{Op: transcript.Set}
		args.Get("plan").ForEach(func(_, it gjson.Result) bool {
			edit.Items = append(edit.Items, handoff.Task{Subject: it.Get("step").Str, Status: it.Get("status").Str})
			return true
		})
		d.remember(id, name)
		acc.Add(transcript.Observation{Kind: transcript.Call, Time: ts, ID: id, Tool: name, Plan: edit})
		return
	default:
		return
	}
	d.remember(id, name)
	acc.Add(transcript.Observation{Kind: transcript.Call, Time: ts, ID: id, Tool: name, Command: cmd, Dir: args.Get("workdir").Str})
}

// remember notes the tool of a call awaiting its output.
func (d *records) remember(id, tool string) {
	d.Tools = bounded(d.Tools)
	d.Tools[strings.Clone(id)] = tool
}

// bounded is m, emptied when it grew past maxSessions (outputs that never
// came), made when nil.
func bounded(m map[string]string) map[string]string {
	if m == nil || len(m) >= maxSessions {
		return map[string]string{}
	}
	return m
}

func scalar(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	return r.Raw
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

// patch reports an apply_patch call and the files its patch names.
func (d *records) patch(id, text, ts string, acc *transcript.Accumulator) {
	var files []string
	for _, line := range strings.Split(text, "\n") {
		for _, marker := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if path, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), marker); ok {
				files = append(files, strings.TrimSpace(path))
			}
		}
	}
	d.remember(id, "apply_patch")
	acc.Add(transcript.Observation{Kind: transcript.Call, Time: ts, ID: id, Tool: "apply_patch", Files: files})
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

var (
	exitLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:) (-?\d+)\s*$`)
	})
	runningLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^Process running with session ID (\d+)\s*$`)
	})
)

// output reports the output of a call: its exit code, or that the command
// goes on in an exec session (a later write_stdin brings its exit), and
// the output proper (what follows "Output:").
func (d *records) output(id, out, ts string, acc *transcript.Accumulator) {
	target, tool := id, d.Tools[id]
	if started, ok := d.Polls[id]; ok {
		delete(d.Polls, id)
		target, tool = started, d.Tools[started]
	} else if _, ok := d.Tools[id]; !ok {
		return // the output of a call not reported (write_stdin to no known command, a search)
	}
	head, body, found := strings.Cut(out, "\nOutput:\n")
	if !found {
		head, body = out, ""
	}
	o := transcript.Observation{Kind: transcript.Result, Time: ts, ID: target, Text: body}
	if m := exitLine().FindStringSubmatch(head); m != nil {
		code, _ := strconv.Atoi(m[1])
		o.Exit = transcript.Exit(code)
	} else if m := runningLine().FindStringSubmatch(head); m != nil { // the header, never the output proper (long)
		d.Sessions = bounded(d.Sessions)
		d.Sessions[strings.Clone(m[1])] = strings.Clone(target)
		o.Running = true
	} else if tool == "apply_patch" {
		// A patch that fails verification answers with the reason alone.
		o.Failed, o.Text = !strings.Contains(out, "Success."), out
	} else if tool == "update_plan" {
		// "Plan updated"; a client without the tool answers "unsupported call".
		o.Failed, o.Text = !strings.Contains(out, "Plan updated"), out
	}
	if !o.Running {
		delete(d.Tools, target)
		for sid, started := range d.Sessions {
			if started == target {
				delete(d.Sessions, sid)
			}
		}
	}
	acc.Add(o)
}

// compactPreamble opens the message Codex writes into the history after a
// compaction, before the summary itself.
const compactPreamble = "Another language model started to solve this problem"

// compactSummary is a compaction's summary without Codex's preamble (one
// paragraph ending in "…analysis:" and a line break).
func compactSummary(msg string) string {
	s := strings.TrimSpace(msg)
	if strings.HasPrefix(s, compactPreamble) {
		if _, after, ok := strings.Cut(s, "\n"); ok {
			s = after
		} else {
			s = ""
		}
	}
	return strings.TrimSpace(s)
}
