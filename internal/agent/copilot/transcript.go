package copilot

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Copilot's events.jsonl holds one event a line: {type, data, id,
// timestamp, parentId}. The records that hold facts:
//
//	session.start, session.resume   data.context.cwd, data.selectedModel
//	user.message                    data.content: what the person typed
//	assistant.message               data.content: a reply (tool requests
//	                                are read from their execution)
//	tool.execution_start            data.toolCallId, toolName, arguments:
//	                                bash {command}, create/edit {path}
//	tool.execution_complete         data.success, shellExecution.exitCode,
//	                                fileEdits[{path, kind}], result.content
//	session.compaction_complete     data.summaryContent
//	session.usage_record            data.usage.inputTokens, model
//
// hook.*, model.*, system.message and the rest stream past undecoded.

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

// call is a tool call whose completion has not been read yet.
type call struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Command string `json:"command,omitempty"` // bash, as it ran (redacted)
	Path    string `json:"path,omitempty"`    // create, edit: the file, relative to the root when inside it
}

// decoder reads Copilot events into handoff facts; its state round-trips
// through encoding/json, so reading can resume where it stopped.
type decoder struct {
	root string
	red  func(string) string
	state
}

type state struct {
	F       handoff.Facts `json:"facts"`
	Cwd     string        `json:"cwd,omitempty"`
	Pending []call        `json:"pending,omitempty"`
	Reply   string        `json:"reply,omitempty"` // the latest reply, redacted
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

// wanted are the event types that can hold a fact.
var wanted = map[string]bool{
	"session.start": true, "session.resume": true, "user.message": true, "assistant.message": true,
	"tool.execution_start": true, "tool.execution_complete": true, "session.compaction_complete": true,
	"session.usage_record": true,
}

// Wants decides from a record's head: Copilot writes "type" first. Every
// record still counts as one of Copilot's (Record is not called for the
// rest, so the count comes from the head).
func (d *decoder) Wants(head []byte) bool {
	t := gjson.GetBytes(head, "type")
	if t.Type != gjson.String {
		return !t.Exists()
	}
	if strings.Contains(t.Str, ".") {
		d.F.Records++
	}
	return wanted[t.Str]
}

// Record decodes one record; anything that is not a JSON object is skipped
// (a line cut short by a crash).
func (d *decoder) Record(rec []byte) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return
	}
	r := gjson.ParseBytes(rec)
	if !r.IsObject() {
		return
	}
	data := r.Get("data")
	switch r.Get("type").Str {
	case "session.start", "session.resume":
		d.session(data)
	case "user.message":
		d.prompt(data.Get("content").Str)
	case "assistant.message":
		d.reply(data.Get("content").Str)
	case "tool.execution_start":
		d.toolStart(data)
	case "tool.execution_complete":
		d.toolComplete(data)
	case "session.compaction_complete":
		d.compacted(data.Get("summaryContent").Str)
	case "session.usage_record":
		d.usage(data.Get("usage"))
	}
}

// session notes where the session runs and its model.
func (d *decoder) session(data gjson.Result) {
	if cwd := data.Get("context.cwd").Str; filepath.IsAbs(cwd) {
		d.Cwd = cwd
	}
	if m := data.Get("selectedModel").Str; m != "" {
		d.F.Model = m
	}
}

// prompt records what the person typed.
func (d *decoder) prompt(text string) {
	if t := strings.TrimSpace(text); t != "" {
		d.F.Prompts = transcript.AppendLast(d.F.Prompts, maxPrompts, d.keep(t, maxPromptRune))
	}
}

// reply records the agent's latest words (a message that only calls tools
// has none).
func (d *decoder) reply(text string) {
	if t := strings.TrimSpace(text); t != "" {
		d.Reply = strings.Clone(d.redacted(t, maxTextRunes))
	}
}

// usage is the prompt size of the last model call: what is in context.
func (d *decoder) usage(u gjson.Result) {
	if n := u.Get("inputTokens").Int(); n > 0 {
		d.F.Tokens = int(n)
	}
	if m := u.Get("model").Str; m != "" {
		d.F.Model = m
	}
}

// toolStart notes a call: a command, or a file a writing tool names.
func (d *decoder) toolStart(data gjson.Result) {
	c := call{ID: data.Get("toolCallId").Str, Tool: data.Get("toolName").Str}
	args := data.Get("arguments")
	switch c.Tool {
	case "bash":
		c.Command = d.redacted(args.Get("command").Str, 4*maxLineRunes)
		if line := commandLine(c.Command); line != "" {
			d.F.Commands = transcript.AppendLastUnique(d.F.Commands, line, maxCommands)
		}
	case "create", "edit":
		c.Path = d.rel(args.Get("path").Str)
	default:
		return
	}
	if len(d.Pending) >= maxPending {
		d.Pending = d.Pending[1:]
	}
	d.Pending = append(d.Pending, c)
}

// toolComplete settles a call: the files it edited, or its failure (a
// tool that failed, a command that exited non-zero: Copilot reports both
// as a success of the tool, with the exit code apart).
func (d *decoder) toolComplete(data gjson.Result) {
	id := data.Get("toolCallId").Str
	i := slices.IndexFunc(d.Pending, func(c call) bool { return c.ID == id })
	var c call
	if i >= 0 {
		c = d.Pending[i]
		d.Pending = slices.Delete(d.Pending, i, i+1)
	}
	code := int(data.Get("shellExecution.exitCode").Int())
	if !data.Get("success").Bool() || code != 0 {
		if c.Tool == "" {
			return // a call not seen starting (reading resumed mid-call): nothing to name
		}
		body := d.redacted(resultText(data.Get("result")), 50*maxLineRunes)
		d.F.Errors = transcript.AppendLast(d.F.Errors, maxErrors, errorLine(c, code, body))
		return
	}
	data.Get("fileEdits").ForEach(func(_, e gjson.Result) bool {
		d.addFile(d.rel(e.Get("path").Str))
		return true
	})
	if !data.Get("fileEdits").Exists() {
		d.addFile(c.Path)
	}
}

func (d *decoder) addFile(p string) {
	if p != "" && !slices.Contains(d.F.Files, p) {
		d.F.Files = transcript.AppendLast(d.F.Files, maxFiles, p)
	}
}

// compacted records a compaction's summary; what was in context is gone.
func (d *decoder) compacted(summary string) {
	s := handoff.CleanSummary(summary)
	if s == "" {
		return
	}
	d.F.CompactSummary = d.keep(s, 4*maxTextRunes)
	d.F.Compactions++
	d.F.Tokens = 0
}

// guidance opens what Copilot appends to a tool's result from postToolUse
// hooks: no output of the tool's.
const guidance = "\n\nTool \""

// resultText is a tool's own output: the detailed content when given,
// else the content without the hooks' guidance.
func resultText(r gjson.Result) string {
	if s := r.Get("detailedContent").Str; s != "" {
		return s
	}
	s := r.Get("content").Str
	if i := strings.Index(s, guidance); i >= 0 {
		s = s[:i]
	}
	return s
}

// shellTrailer is how Copilot ends a command's output:
// "<shellId: 0 completed with exit code 2>".
const shellTrailer = "<shellId:"

// errorLine is the one line reported for a failed call: the command or
// the file, the exit code, and the output's last line that says why.
func errorLine(c call, code int, body string) string {
	var last string
	lines := strings.Split(strings.TrimSpace(body), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, shellTrailer) && !strings.HasPrefix(l, "Tool \"") {
			last = l
			break
		}
	}
	var b strings.Builder
	if c.Command != "" {
		b.WriteString("`" + handoff.Cut(commandLine(c.Command), 80) + "`")
	} else {
		b.WriteString(c.Tool)
		if c.Path != "" {
			b.WriteString(" " + c.Path)
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
// "…" when more followed.
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

// Facts is what the records so far say. Reading can go on.
func (d *decoder) Facts() *handoff.Facts {
	f := d.F
	f.Files = slices.Clone(f.Files)
	f.Tasks = slices.Clone(f.Tasks)
	f.Commands = slices.Clone(f.Commands)
	f.Errors = slices.Clone(f.Errors)
	f.Prompts = slices.Clone(f.Prompts)
	for _, c := range d.Pending {
		if c.Path != "" && !slices.Contains(f.Files, c.Path) {
			f.Files = transcript.AppendLast(f.Files, maxFiles, c.Path)
		}
	}
	if d.Reply != "" {
		f.LastAssistant = handoff.Cut(d.Reply, maxTextRunes)
	}
	return &f
}
