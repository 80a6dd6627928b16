package qwen

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/transcript"
)

// A Qwen Code chat file holds one record a line, Claude-style records
// around Gemini-style parts:
//
//	user         message.parts[]: text (a hook's added context is a part
//	             of its own, <qwen:…-context>…)
//	assistant    model, usageMetadata.promptTokenCount, message.parts[]:
//	             text, functionCall {id, name, args}
//	tool_result  message.parts[]: functionResponse {id, name, response
//	             {output} or {error}}
//	system       subtype chat_compression: systemPayload.compressedHistory,
//	             its first part the summary in <state_snapshot>; the other
//	             subtypes (telemetry, attribution) say nothing of the work
//
// Tools: run_shell_command {command}, write_file and edit {file_path};
// read_file, glob, grep_search and list_directory only look.

// records reads Qwen Code's chat records into observations; it keeps no
// state of its own.
type records struct{}

func newDecoder(root string, red func(string) string) transcript.Decoder {
	return transcript.NewDecoder(&records{}, root, red)
}

// Wants keeps the records of the conversation and the compressions.
func (*records) Wants(head []byte) bool {
	switch gjson.GetBytes(head, "type").Str {
	case "user", "assistant", "tool_result":
		return true
	case "system":
		return strings.Contains(string(head), `"chat_compression"`)
	}
	return false
}

// Record decodes one record.
func (*records) Record(rec []byte, acc *transcript.Accumulator) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return
	}
	r := gjson.ParseBytes(rec)
	if !r.IsObject() || !r.Get("sessionId").Exists() {
		return
	}
	ts := r.Get("timestamp").Str
	parts := r.Get("message.parts")
	switch r.Get("type").Str {
	case "user":
		acc.Recognised()
		if cwd := r.Get("cwd").Str; cwd != "" {
			acc.Add(transcript.Observation{Kind: transcript.Cwd, Text: cwd})
		}
		var prompt []string
		parts.ForEach(func(_, p gjson.Result) bool {
			if t := p.Get("text").Str; t != "" && !strings.HasPrefix(strings.TrimSpace(t), "<qwen:") {
				prompt = append(prompt, t)
			}
			return true
		})
		if len(prompt) > 0 {
			acc.Add(transcript.Observation{Kind: transcript.Prompt, Time: ts, Text: strings.Join(prompt, "\n")})
		}
	case "assistant":
		acc.Recognised()
		if model := r.Get("model").Str; model != "" {
			acc.Add(transcript.Observation{Kind: transcript.Usage, Model: model, Tokens: int(r.Get("usageMetadata.promptTokenCount").Int())})
		}
		parts.ForEach(func(_, p gjson.Result) bool {
			if c := p.Get("functionCall"); c.Exists() {
				acc.Add(call(c, ts))
			} else if t := p.Get("text").Str; t != "" && !p.Get("thought").Bool() {
				acc.Add(transcript.Observation{Kind: transcript.Reply, Time: ts, Text: t})
			}
			return true
		})
	case "tool_result":
		acc.Recognised()
		parts.ForEach(func(_, p gjson.Result) bool {
			if f := p.Get("functionResponse"); f.Exists() {
				acc.Add(result(f, ts))
			}
			return true
		})
	case "system":
		if r.Get("subtype").Str != "chat_compression" {
			return
		}
		acc.Recognised()
		if s := snapshot(r.Get("systemPayload.compressedHistory.0.parts.0.text").Str); s != "" {
			acc.Add(transcript.Observation{Kind: transcript.Summary, Time: ts, Text: s})
		}
	}
}

// call is a tool call: the command a shell call runs, the file a writing
// tool writes.
func call(c gjson.Result, ts string) transcript.Observation {
	o := transcript.Observation{Kind: transcript.Call, Time: ts, ID: c.Get("id").Str, Tool: c.Get("name").Str}
	args := c.Get("args")
	switch o.Tool {
	case "run_shell_command":
		o.Command = args.Get("command").Str
	case "write_file", "edit", "replace":
		if p := args.Get("file_path").Str; p != "" {
			o.Files = []string{p}
		}
	}
	return o
}

var exitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^Exit Code: (-?\d+)$`)
})

// result is a call's outcome: a response's error fails it; a shell
// call's text is "Command: …\nDirectory: …\nOutput: …\nError: …\nExit
// Code: N\n…", of which the output is kept.
func result(f gjson.Result, ts string) transcript.Observation {
	o := transcript.Observation{Kind: transcript.Result, Time: ts, ID: f.Get("id").Str}
	text := f.Get("response.output").Str
	if e := f.Get("response.error"); e.Exists() {
		o.Failed, text = true, e.Str
	}
	if m := exitLine().FindStringSubmatch(text); m != nil {
		code, _ := strconv.Atoi(m[1])
		o.Exit = transcript.Exit(code)
		if i := strings.Index(text, "\nOutput: "); i >= 0 {
			out := text[i+len("\nOutput: "):]
			if j := strings.Index(out, "\nError: "); j >= 0 {
				out = out[:j]
			}
			text = out
		}
	}
	o.Text = text
	return o
}

// snapshot is the summary a compression left, the text of its
// <state_snapshot> ("" when none).
func snapshot(s string) string {
	const open, end = "<state_snapshot>", "</state_snapshot>"
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, end); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSpace(s)
}
