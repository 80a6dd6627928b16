package droid

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

// A Droid session file holds one record a line:
//
//	session_start       cwd
//	message             message.role, message.content[]: text,
//	                    tool_use {id, name, input}, tool_result
//	                    {tool_use_id, is_error, content}; a hook's run is
//	                    a message with hookEventName (never a fact), the
//	                    client's own reminders have ids "context-…"
//	agent_turn_outcome  a turn's end
//
// Tools: Execute {command}, Create {file_path, content}, Edit {file_path,
// old_str, new_str}; Read, LS, Grep and Glob only look.

// Bounds on what the facts keep.
const (
	maxFiles      = 200
	maxCommands   = 50
	maxErrors     = 30
	maxPrompts    = 20
	maxPending    = 1000
	maxTextRunes  = 4000
	maxLineRunes  = 200
	maxPromptRune = 2000
	redactMargin  = 8 << 10
)

// call is a tool call whose result has not been read yet.
type call struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Command string `json:"command,omitempty"`
	Path    string `json:"path,omitempty"`
}

type decoder struct {
	root string
	red  func(string) string
	state
}

type state struct {
	F       handoff.Facts `json:"facts"`
	Cwd     string        `json:"cwd,omitempty"`
	Pending []call        `json:"pending,omitempty"`
	Reply   string        `json:"reply,omitempty"`
}

func newDecoder(root string, red func(string) string) *decoder {
	if root != "" {
		root = filepath.Clean(root)
	}
	return &decoder{root: root, red: red}
}

// MarshalJSON is the decoder's state.
func (d *decoder) MarshalJSON() ([]byte, error) { return json.Marshal(d.state) }

// UnmarshalJSON restores a state MarshalJSON wrote.
func (d *decoder) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &d.state) }

// Wants keeps Droid's own records (type first in each).
func (d *decoder) Wants(head []byte) bool {
	t := gjson.GetBytes(head, "type")
	return !t.Exists() || t.Str == "message" || t.Str == "session_start" || t.Str == "agent_turn_outcome"
}

// Record decodes one record.
func (d *decoder) Record(rec []byte) {
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
		d.F.Records++
		if cwd := r.Get("cwd").Str; filepath.IsAbs(cwd) {
			d.Cwd = cwd
		}
	case "agent_turn_outcome":
		d.F.Records++
	case "message":
		d.F.Records++
		m := r.Get("message")
		if m.Get("hookEventName").Exists() || strings.HasPrefix(r.Get("id").Str, "context-") {
			return // a hook's run, the client's own reminder
		}
		if model := m.Get("modelId").Str; model != "" {
			d.F.Model = strings.TrimPrefix(model, "custom:")
		}
		role := m.Get("role").Str
		m.Get("content").ForEach(func(_, c gjson.Result) bool {
			d.content(role, c)
			return true
		})
	}
}

// content takes one part of a message.
func (d *decoder) content(role string, c gjson.Result) {
	switch c.Get("type").Str {
	case "text":
		t := strings.TrimSpace(c.Get("text").Str)
		switch {
		case t == "":
		case role == "assistant":
			d.Reply = strings.Clone(d.redacted(t, maxTextRunes))
		case role == "user" && !strings.HasPrefix(t, "<system-reminder>"):
			d.F.Prompts = transcript.AppendLast(d.F.Prompts, maxPrompts, d.keep(t, maxPromptRune))
		}
	case "tool_use":
		d.toolUse(c)
	case "tool_result":
		d.toolResult(c)
	}
}

// toolUse notes a call: a command, or the file a writing tool names.
func (d *decoder) toolUse(c gjson.Result) {
	k := call{ID: c.Get("id").Str, Tool: c.Get("name").Str}
	in := c.Get("input")
	switch k.Tool {
	case "Execute":
		k.Command = d.redacted(in.Get("command").Str, 4*maxLineRunes)
		if line := commandLine(k.Command); line != "" {
			d.F.Commands = transcript.AppendLastUnique(d.F.Commands, line, maxCommands)
		}
	case "Create", "Edit", "MultiEdit", "Write":
		k.Path = d.rel(in.Get("file_path").Str)
	default:
		return
	}
	if len(d.Pending) >= maxPending {
		d.Pending = d.Pending[1:]
	}
	d.Pending = append(d.Pending, k)
}

var exitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[Process exited with code (-?\d+)\]|exit code: (-?\d+)\)`)
})

// toolResult settles a call: its file, or its failure.
func (d *decoder) toolResult(c gjson.Result) {
	id := c.Get("tool_use_id").Str
	i := slices.IndexFunc(d.Pending, func(k call) bool { return k.ID == id })
	if i < 0 {
		return
	}
	k := d.Pending[i]
	d.Pending = slices.Delete(d.Pending, i, i+1)
	text := resultText(c.Get("content"))
	if !c.Get("is_error").Bool() {
		d.addFile(k.Path)
		return
	}
	code := 0
	if m := exitLine().FindStringSubmatch(text); m != nil {
		code, _ = strconv.Atoi(m[1] + m[2])
	}
	d.F.Errors = transcript.AppendLast(d.F.Errors, maxErrors, errorLine(k, code, d.redacted(text, 50*maxLineRunes)))
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

func (d *decoder) addFile(p string) {
	if p != "" && !slices.Contains(d.F.Files, p) {
		d.F.Files = transcript.AppendLast(d.F.Files, maxFiles, p)
	}
}

// errorLine is the one line reported for a failed call.
func errorLine(k call, code int, body string) string {
	var last string
	lines := strings.Split(strings.TrimSpace(body), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "[Process exited") {
			last = l
			break
		}
	}
	var b strings.Builder
	if k.Command != "" {
		b.WriteString("`" + handoff.Cut(commandLine(k.Command), 80) + "`")
	} else {
		b.WriteString(k.Tool)
		if k.Path != "" {
			b.WriteString(" " + k.Path)
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

// commandLine is a command as one line.
func commandLine(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	first, rest, more := strings.Cut(cmd, "\n")
	first = strings.TrimSpace(first)
	if more && strings.TrimSpace(rest) != "" {
		first += " …"
	}
	return handoff.Cut(first, maxLineRunes)
}

// rel makes a path relative to the root; a path outside it stays absolute.
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
	return filepath.ToSlash(p)
}

func (d *decoder) redacted(s string, n int) string {
	if d.red == nil || s == "" {
		return strings.Clone(transcript.PrefixRunes(s, n+redactMargin))
	}
	return d.red(transcript.PrefixRunes(s, n+redactMargin))
}

func (d *decoder) keep(s string, n int) string { return handoff.Cut(d.redacted(s, n), n) }

// Facts is what the records so far say.
func (d *decoder) Facts() *handoff.Facts {
	f := d.F
	f.Files = slices.Clone(f.Files)
	f.Commands = slices.Clone(f.Commands)
	f.Errors = slices.Clone(f.Errors)
	f.Prompts = slices.Clone(f.Prompts)
	f.Tasks = slices.Clone(f.Tasks)
	for _, k := range d.Pending {
		if k.Path != "" && !slices.Contains(f.Files, k.Path) {
			f.Files = transcript.AppendLast(f.Files, maxFiles, k.Path)
		}
	}
	if d.Reply != "" {
		f.LastAssistant = handoff.Cut(d.Reply, maxTextRunes)
	}
	return &f
}
