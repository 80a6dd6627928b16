package droid

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/transcript"
)

// A Droid session file holds one record a line:
//
//	session_start       cwd
//	message             timestamp, message.role, message.content[]: text,
//	                    tool_use {id, name, input}, tool_result
//	                    {tool_use_id, is_error, content}; message.modelId;
//	                    a hook's run is a message with hookEventName (never
//	                    a fact), the client's own reminders have ids
//	                    "context-…"
//	agent_turn_outcome  a turn's end
//
// Tools: Execute {command}, Create {file_path, content}, Edit {file_path,
// old_str, new_str}; Read, LS, Grep and Glob only look.

// records reads Droid's session records into observations; it keeps no
// state of its own.
type records struct{}

func newDecoder(root string, red func(string) string) transcript.Decoder {
	return transcript.NewDecoder(&records{}, root, red)
}

// Wants keeps Droid's own records (type first in each).
func (*records) Wants(head []byte) bool {
	t := gjson.GetBytes(head, "type")
	return !t.Exists() || t.Str == "message" || t.Str == "session_start" || t.Str == "agent_turn_outcome"
}

// Record decodes one record.
func (*records) Record(rec []byte, acc *transcript.Accumulator) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return
	}
	r := gjson.ParseBytes(rec)
	if !r.IsObject() {
		return
	}
	switch r.Get("type").Str {
	case "session_start":
		acc.Recognised()
		acc.Add(transcript.Observation{Kind: transcript.Cwd, Text: r.Get("cwd").Str})
	case "agent_turn_outcome":
		acc.Recognised()
	case "message":
		acc.Recognised()
		m := r.Get("message")
		if m.Get("hookEventName").Exists() || strings.HasPrefix(r.Get("id").Str, "context-") {
			return // a hook's run, the client's own reminder
		}
		if model := m.Get("modelId").Str; model != "" {
			acc.Add(transcript.Observation{Kind: transcript.Usage, Model: strings.TrimPrefix(model, "custom:")})
		}
		ts, role := r.Get("timestamp").Str, m.Get("role").Str
		m.Get("content").ForEach(func(_, c gjson.Result) bool {
			if o, ok := content(role, c, ts); ok {
				acc.Add(o)
			}
			return true
		})
	}
}

// content is what one part of a message says.
func content(role string, c gjson.Result, ts string) (transcript.Observation, bool) {
	switch c.Get("type").Str {
	case "text":
		t := c.Get("text").Str
		switch {
		case role == "assistant":
			return transcript.Observation{Kind: transcript.Reply, Time: ts, Text: t}, true
		case role == "user" && !strings.HasPrefix(strings.TrimSpace(t), "<system-reminder>"):
			return transcript.Observation{Kind: transcript.Prompt, Time: ts, Text: t}, true
		}
	case "tool_use":
		return toolUse(c, ts), true
	case "tool_result":
		return toolResult(c, ts), true
	}
	return transcript.Observation{}, false
}

// toolUse is a call: the command Execute runs, the file a writing tool
// writes, the file Read reads or Grep searches.
func toolUse(c gjson.Result, ts string) transcript.Observation {
	o := transcript.Observation{Kind: transcript.Call, Time: ts, ID: c.Get("id").Str, Tool: c.Get("name").Str}
	in := c.Get("input")
	switch o.Tool {
	case "Execute":
		o.Command = in.Get("command").Str
	case "Create", "Edit", "MultiEdit", "Write":
		if p := in.Get("file_path").Str; p != "" {
			o.Files = []string{p}
		}
	case "Read":
		o.Reads = []string{in.Get("file_path").Str}
	case "Grep":
		o.Reads = []string{transcript.NamesFile(in.Get("path").Str)}
	}
	return o
}

var exitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[Process exited with code (-?\d+)\]\s*$`)
})

// toolResult is a call's outcome: is_error, and a command's exit code,
// which Droid writes last: "[Process exited with code 2]".
func toolResult(c gjson.Result, ts string) transcript.Observation {
	text := resultText(c.Get("content"))
	o := transcript.Observation{Kind: transcript.Result, Time: ts, ID: c.Get("tool_use_id").Str, Failed: c.Get("is_error").Bool()}
	if m := exitLine().FindStringSubmatchIndex(text); m != nil {
		code, _ := strconv.Atoi(text[m[2]:m[3]])
		o.Exit = transcript.Exit(code)
		text = strings.TrimRight(text[:m[0]], "\n")
	}
	o.Text = strings.TrimPrefix(text, "Error: ")
	return o
}

// resultText is a tool result's text: a string, or text parts.
func resultText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var parts []string
	c.ForEach(func(_, p gjson.Result) bool {
		parts = append(parts, p.Get("text").Str)
		return true
	})
	return strings.Join(parts, "\n")
}
