package copilot

import (
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
//	assistant.message               data.content: a reply (its tool
//	                                requests are read from their execution)
//	tool.execution_start            data.toolCallId, toolName, arguments:
//	                                bash {command}, create/edit {path}
//	tool.execution_complete         data.success, shellExecution.exitCode
//	                                (a command that exits non-zero is a
//	                                success of the tool), result
//	session.compaction_complete     data.summaryContent
//	session.usage_record            data.usage.inputTokens, model
//
// hook.*, model.*, system.message and the rest stream past undecoded.

// records reads Copilot's events into observations; it keeps no state of
// its own.
type records struct{}

func newDecoder(root string, red func(string) string) transcript.Decoder {
	return transcript.NewDecoder(&records{}, root, red)
}

// wanted are the event types that can hold a fact.
var wanted = map[string]bool{
	"session.start": true, "session.resume": true, "user.message": true, "assistant.message": true,
	"tool.execution_start": true, "tool.execution_complete": true, "session.compaction_complete": true,
	"session.usage_record": true,
}

// Wants decides from a record's head: Copilot writes "type" first.
func (*records) Wants(head []byte) bool {
	t := gjson.GetBytes(head, "type")
	if t.Type != gjson.String {
		return !t.Exists()
	}
	return wanted[t.Str]
}

// Record decodes one record; anything that is not a JSON object is skipped
// (a line cut short by a crash).
func (*records) Record(rec []byte, acc *transcript.Accumulator) {
	rec = transcript.ValidUTF8(rec)
	if !gjson.ValidBytes(rec) {
		return
	}
	r := gjson.ParseBytes(rec)
	if !r.IsObject() || !wanted[r.Get("type").Str] {
		return
	}
	acc.Recognised()
	data, ts := r.Get("data"), r.Get("timestamp").Str
	switch r.Get("type").Str {
	case "session.start", "session.resume":
		acc.Add(transcript.Observation{Kind: transcript.Cwd, Text: data.Get("context.cwd").Str})
		acc.Add(transcript.Observation{Kind: transcript.Usage, Model: data.Get("selectedModel").Str})
	case "user.message":
		acc.Add(transcript.Observation{Kind: transcript.Prompt, Time: ts, Text: data.Get("content").Str})
	case "assistant.message":
		acc.Add(transcript.Observation{Kind: transcript.Reply, Time: ts, Text: data.Get("content").Str})
	case "tool.execution_start":
		acc.Add(toolCall(data, ts))
	case "tool.execution_complete":
		acc.Add(toolResult(data, ts))
	case "session.compaction_complete":
		if s := handoff.CleanSummary(data.Get("summaryContent").Str); s != "" {
			acc.Add(transcript.Observation{Kind: transcript.Summary, Time: ts, Text: s})
		}
	case "session.usage_record":
		u := data.Get("usage")
		acc.Add(transcript.Observation{Kind: transcript.Usage, Tokens: int(u.Get("inputTokens").Int()), Model: u.Get("model").Str})
	}
}

// toolCall is a call: the command a bash call runs, the file a create or
// edit call writes, the file a view reads or a search searches.
func toolCall(data gjson.Result, ts string) transcript.Observation {
	o := transcript.Observation{Kind: transcript.Call, Time: ts, ID: data.Get("toolCallId").Str, Tool: data.Get("toolName").Str}
	args := data.Get("arguments")
	switch o.Tool {
	case "bash":
		o.Command = args.Get("command").Str
	case "create", "edit":
		if p := args.Get("path").Str; p != "" {
			o.Files = []string{p}
		}
	case "view", "read_file": // a file or a directory (CLI); VS Code's agent reads a file
		o.Reads = []string{transcript.NamesFile(args.Get("path").Str), args.Get("filePath").Str}
	case "rg", "grep", "grep_search":
		o.Reads = []string{transcript.NamesFile(args.Get("paths").Str), transcript.NamesFile(args.Get("path").Str)}
	}
	return o
}

// toolResult is a call's outcome: a failed tool, or a command's exit code.
func toolResult(data gjson.Result, ts string) transcript.Observation {
	o := transcript.Observation{Kind: transcript.Result, Time: ts, ID: data.Get("toolCallId").Str,
		Failed: !data.Get("success").Bool(), Text: resultText(data.Get("result"))}
	if code := data.Get("shellExecution.exitCode"); code.Exists() {
		o.Exit = transcript.Exit(int(code.Int()))
	}
	return o
}

// guidance opens what Copilot appends to a tool's result from postToolUse
// hooks: no output of the tool's.
const guidance = "\n\nTool \""

// shellTrailer is how Copilot ends a command's output:
// "<shellId: 0 completed with exit code 2>".
const shellTrailer = "\n<shellId:"

// resultText is a tool's own output: the detailed content when given,
// else the content, without the hooks' guidance or the shell's trailer.
func resultText(r gjson.Result) string {
	s := r.Get("detailedContent").Str
	if s == "" {
		s = r.Get("content").Str
		if i := strings.Index(s, guidance); i >= 0 {
			s = s[:i]
		}
	}
	if i := strings.LastIndex(s, shellTrailer); i >= 0 {
		s = s[:i]
	}
	return s
}
