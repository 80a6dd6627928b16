package claude

import (
	"bytes"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Bounds on what handoff.Facts keeps: the last entries of each list, and the
// longest text kept from one prompt or message.
const (
	maxFiles      = 200
	maxTasks      = 200
	maxCommands   = 50
	maxErrors     = 30
	maxPrompts    = 20
	maxPending    = 1000
	maxTextRunes  = 4000
	maxLineRunes  = 200
	maxPromptRune = 2000
)

// pendingUse is a tool call whose result has not been read yet: its effect
// (a file touched, a task changed) counts only if the call did not fail.
type pendingUse struct {
	id      string
	name    string
	path    string // file tools
	subject string // TaskCreate
	command string // Bash
	update  *taskUpdate
	todos   []handoff.Task // TodoWrite
}

type taskUpdate struct {
	id, status, subject string
}

// collector turns decoded transcript entries into handoff.Facts.
type collector struct {
	root    string
	red     func(string) string // redacts secrets; nil: none
	f       handoff.Facts
	pending []pendingUse
	files   map[string]bool
	// lastAssistant is the latest assistant text, cut wide: it is redacted
	// and cut to size once, at the end, not at every message.
	lastAssistant string
}

func newCollector(root string, red func(string) string) *collector {
	if root != "" {
		root = filepath.Clean(root)
	}
	return &collector{root: root, red: red, files: map[string]bool{}}
}

// redactMargin is how far past a cut a kept text is redacted: a secret that
// starts before the cut is matched whole (a private key block is a few KB),
// not as a fragment no rule recognises.
const redactMargin = 8 << 10

// redacted is s redacted, for a text that will be cut to at most n runes.
func (c *collector) redacted(s string, n int) string {
	if c.red == nil || s == "" {
		return s
	}
	return c.red(prefixRunes(s, n+redactMargin))
}

// keep is s, redacted, cut to at most n runes (see handoff.Cut).
func (c *collector) keep(s string, n int) string {
	return handoff.Cut(c.redacted(s, n), n)
}

// line decodes one transcript line. A line that is not valid JSON (a last
// line cut short mid-write, or one a crash left joined to the next) says
// nothing: gjson alone would read what it could of it.
func (c *collector) line(b []byte) {
	if !gjson.ValidBytes(b) {
		return
	}
	// One copy per decoded line: gjson results point into it, and the few
	// strings kept are cloned, so the line buffer can be reused.
	s := string(b)
	root := gjson.Parse(s)
	if !root.IsObject() {
		return
	}
	var typ string
	var msg gjson.Result
	var isMeta, isSummary, sidechain bool
	done := false
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v.Str
		case "isMeta":
			isMeta = v.Bool()
		case "isCompactSummary":
			isSummary = v.Bool()
		case "isSidechain":
			sidechain = v.Bool()
		case "message":
			msg = v
			// Tool traffic is decided by the message alone: stop before
			// the large copies the client keeps after it (toolUseResult).
			switch msg.Get("role").Str {
			case "assistant":
				c.assistant(msg, sidechain)
				done = true
				return false
			case "user":
				if content := msg.Get("content"); content.IsArray() && hasToolResult(content) {
					c.toolResults(content)
					done = true
					return false
				}
			}
		}
		return true
	})
	if done || !msg.Exists() {
		return
	}
	switch typ {
	case "user":
		c.user(msg, isMeta, isSummary, sidechain)
	case "assistant":
		c.assistant(msg, sidechain)
	}
}

func hasToolResult(content gjson.Result) bool {
	found := false
	content.ForEach(func(_, el gjson.Result) bool {
		if el.Get("type").Str == "tool_result" {
			found = true
			return false
		}
		return true
	})
	return found
}

// user handles a user entry that is not a tool result: a prompt, a
// compaction summary, or something the client injected.
func (c *collector) user(msg gjson.Result, isMeta, isSummary, sidechain bool) {
	text := contentText(msg.Get("content"))
	if isSummary {
		if s := cleanTranscriptSummary(text); s != "" {
			c.f.CompactSummary = c.keep(s, 4*maxTextRunes)
		}
		return
	}
	if isMeta || sidechain || !isTypedPrompt(text) {
		return
	}
	c.f.Prompts = appendLast(c.f.Prompts, maxPrompts, c.keep(strings.TrimSpace(text), maxPromptRune))
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

// clientWrappers start user entries the client writes itself: slash
// commands and their output, shell escapes, hook output, reminders.
var clientWrappers = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "<user-prompt-submit-hook>",
	"<system-reminder>", "<task-notification>", "Caveat: The messages below were generated",
	"[Request interrupted by user",
}

func isTypedPrompt(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	for _, w := range clientWrappers {
		if strings.HasPrefix(t, w) {
			return false
		}
	}
	return true
}

func (c *collector) assistant(msg gjson.Result, sidechain bool) {
	if msg.Get("model").Str == "<synthetic>" {
		return // the client's own stand-in for a failed request
	}
	var texts []string
	msg.Get("content").ForEach(func(_, el gjson.Result) bool {
		switch el.Get("type").Str {
		case "text":
			if t := strings.TrimSpace(el.Get("text").Str); t != "" {
				texts = append(texts, t)
			}
		case "tool_use":
			c.toolUse(el)
		}
		return true
	})
	if len(texts) > 0 && !sidechain {
		c.lastAssistant = strings.Clone(prefixRunes(strings.Join(texts, "\n\n"), maxTextRunes+redactMargin))
	}
}

func (c *collector) toolUse(el gjson.Result) {
	in := el.Get("input")
	u := pendingUse{id: el.Get("id").Str, name: el.Get("name").Str}
	switch u.name {
	case "Write", "Edit", "MultiEdit":
		u.path = in.Get("file_path").Str
	case "NotebookEdit":
		u.path = in.Get("notebook_path").Str
	case "Bash":
		u.command = c.redacted(in.Get("command").Str, 4*maxLineRunes)
		if cmd := commandLine(u.command); cmd != "" && !trivialCommand(u.command) {
			c.f.Commands = appendLastUnique(c.f.Commands, cmd, maxCommands)
		}
	case "TaskCreate":
		u.subject = c.redacted(in.Get("subject").Str, maxLineRunes)
	case "TaskUpdate":
		u.update = &taskUpdate{id: scalarString(in.Get("taskId")), status: in.Get("status").Str, subject: c.redacted(in.Get("subject").Str, maxLineRunes)}
	case "TodoWrite":
		u.todos = []handoff.Task{}
		in.Get("todos").ForEach(func(_, t gjson.Result) bool {
			u.todos = append(u.todos, handoff.Task{ID: scalarString(t.Get("id")), Subject: c.keep(t.Get("content").Str, maxLineRunes), Status: t.Get("status").Str})
			return true
		})
	}
	if len(c.pending) >= maxPending {
		// Results that never came: the oldest call is taken as done.
		c.apply(c.pending[0], "")
		c.pending = c.pending[1:]
	}
	c.pending = append(c.pending, clonePending(u))
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

func (c *collector) toolResults(content gjson.Result) {
	content.ForEach(func(_, el gjson.Result) bool {
		if el.Get("type").Str != "tool_result" {
			return true
		}
		id := el.Get("tool_use_id").Str
		isErr := el.Get("is_error").Bool()
		var u pendingUse
		found := false
		for i := len(c.pending) - 1; i >= 0; i-- {
			if c.pending[i].id == id {
				u, found = c.pending[i], true
				c.pending = append(c.pending[:i], c.pending[i+1:]...)
				break
			}
		}
		if isErr {
			c.f.Errors = appendLast(c.f.Errors, maxErrors, errorLine(u, c.redacted(contentText(el.Get("content")), 50*maxLineRunes)))
			return true
		}
		if found {
			result := ""
			if u.name == "TaskCreate" {
				result = contentText(el.Get("content"))
			}
			c.apply(u, result)
		}
		return true
	})
}

var taskCreated = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Task #(\S+?) created`) })

// apply records the effect of a tool call that did not fail.
func (c *collector) apply(u pendingUse, result string) {
	switch {
	case u.path != "":
		c.addFile(u.path)
	case u.name == "TaskCreate" && u.subject != "":
		t := handoff.Task{Subject: u.subject, Status: "pending"}
		if m := taskCreated().FindStringSubmatch(strings.TrimSpace(result)); m != nil {
			t.ID = m[1]
		}
		c.f.Tasks = appendLast(c.f.Tasks, maxTasks, t)
	case u.update != nil:
		for i := len(c.f.Tasks) - 1; i >= 0; i-- { // the latest task of that id
			if c.f.Tasks[i].ID == u.update.id && u.update.id != "" {
				if u.update.status != "" {
					c.f.Tasks[i].Status = u.update.status
				}
				if u.update.subject != "" {
					c.f.Tasks[i].Subject = u.update.subject
				}
				break
			}
		}
	case u.todos != nil:
		c.f.Tasks = appendLast(nil, maxTasks, u.todos...)
	}
}

func (c *collector) addFile(p string) {
	p = c.rel(p)
	if p == "" || c.files[p] {
		return
	}
	c.files[p] = true
	c.f.Files = append(c.f.Files, p)
	if len(c.f.Files) > maxFiles {
		delete(c.files, c.f.Files[0])
		c.f.Files = c.f.Files[1:]
	}
}

// rel makes p relative to the root when it lies inside it, with forward
// slashes; a path outside the root stays as it is (cleaned).
func (c *collector) rel(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if c.root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(c.root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && r != "." {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(p)
}

// finish settles the calls still waiting for a result (the session may
// have stopped mid-call: the tool may well have run) and returns the facts.
func (c *collector) finish() *handoff.Facts {
	for _, u := range c.pending {
		c.apply(u, "")
	}
	c.pending = nil
	if c.lastAssistant != "" {
		c.f.LastAssistant = c.keep(c.lastAssistant, maxTextRunes)
	}
	f := c.f
	return &f
}

// errorLine is the one line reported for a failed tool call: the tool,
// for a shell command the command, and the first informative line.
func errorLine(u pendingUse, text string) string {
	text = strings.ReplaceAll(text, "<tool_use_error>", "")
	text = strings.ReplaceAll(text, "</tool_use_error>", "")
	var lines []string
	for _, l := range strings.SplitN(text, "\n", 50) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg := "(no message)"
	if len(lines) > 0 {
		msg = lines[0]
		// "Exit code 1" alone says little: add the first line after it
		// that is not a "# package" header.
		if strings.HasPrefix(msg, "Exit code ") {
			for _, l := range lines[1:] {
				if !strings.HasPrefix(l, "#") {
					msg += ": " + l
					break
				}
			}
		}
	}
	prefix := u.name
	if u.name == "Bash" && u.command != "" {
		prefix = "Bash `" + handoff.Cut(commandLine(u.command), 80) + "`"
	} else if u.path != "" {
		prefix += " " + filepath.Base(u.path)
	}
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	return handoff.Cut(msg, maxLineRunes)
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

// trivialCommands only look around; a command made of nothing else (and
// writing no file) is not worth a line in a handoff.
var trivialCommands = map[string]bool{
	"ls": true, "cat": true, "pwd": true, "echo": true, "head": true, "tail": true, "wc": true,
	"which": true, "whoami": true, "date": true, "tree": true, "file": true, "stat": true, "du": true,
	"df": true, "type": true, "env": true, "printenv": true, "true": true, "cd": true, "less": true,
	"grep": true, "rg": true, "find": true, "sleep": true, "clear": true,
}

var harmlessRedirects = strings.NewReplacer("2>&1", " ", "2>/dev/null", " ", ">/dev/null", " ", "> /dev/null", " ")

func trivialCommand(cmd string) bool {
	cmd = harmlessRedirects.Replace(cmd)
	if strings.Contains(cmd, ">") {
		return false // writes a file
	}
	segments := strings.FieldsFunc(cmd, func(r rune) bool { return r == '|' || r == '&' || r == ';' || r == '\n' })
	if len(segments) == 0 {
		return true
	}
	for _, seg := range segments {
		fields := strings.Fields(seg)
		if len(fields) > 0 && !trivialCommands[fields[0]] {
			return false
		}
	}
	return true
}

// cleanTranscriptSummary extracts the summary text from the user entry the
// client writes after compaction: its fixed preamble, reminders and
// closing instructions are dropped, as are <analysis> and <summary> tags.
func cleanTranscriptSummary(text string) string {
	s := stripBlocks(text, "<system-reminder>", "</system-reminder>")
	s = stripBlocks(s, "<analysis>", "</analysis>")
	if strings.HasPrefix(strings.TrimSpace(s), "This session is being continued") {
		if _, after, ok := strings.Cut(s, "Summary:"); ok {
			s = after
		}
		for _, tail := range []string{
			"\nIf you need specific details from before compaction",
			"\nPlease continue the conversation from where we left",
			"\nContinue the conversation from where it left off",
		} {
			if i := strings.Index(s, tail); i >= 0 {
				s = s[:i]
			}
		}
	}
	return handoff.CleanSummary(s)
}

// stripBlocks removes every open…close block from s.
func stripBlocks(s, open, close string) string {
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], close)
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+len(close):]
	}
}

// prefixRunes is s cut to at most n runes (no mark; may share s's memory).
func prefixRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

func clonePending(u pendingUse) pendingUse {
	u.id = strings.Clone(u.id)
	u.name = strings.Clone(u.name)
	u.path = strings.Clone(u.path)
	u.subject = handoff.Cut(u.subject, maxLineRunes)
	u.command = handoff.Cut(u.command, 4*maxLineRunes)
	if u.update != nil {
		u.update = &taskUpdate{id: strings.Clone(u.update.id), status: strings.Clone(u.update.status), subject: handoff.Cut(u.update.subject, maxLineRunes)}
	}
	for i := range u.todos {
		u.todos[i].ID = strings.Clone(u.todos[i].ID)
		u.todos[i].Status = strings.Clone(u.todos[i].Status)
	}
	return u
}

// appendLast appends items to list and keeps only the last max entries.
func appendLast[T any](list []T, max int, items ...T) []T {
	list = append(list, items...)
	if n := len(list); n > max {
		copy(list, list[n-max:])
		clear(list[max:])
		list = list[:max]
	}
	return list
}

// appendLastUnique appends s, moving an earlier equal entry to the end,
// and keeps the last max entries.
func appendLastUnique(list []string, s string, max int) []string {
	for i, x := range list {
		if x == s {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	return appendLast(list, max, s)
}

// Wants decides from the start of a line whether it can hold a fact:
// only user and assistant entries can. It reads the top-level keys in
// order and stops at the first that tells: "type" names the entry (the
// client writes it first for most entries), "attachment" marks an
// attachment, "message" means a conversation entry. When the head does
// not tell, the line is kept, to be decided by decoding it.
func (c *collector) Wants(head []byte) bool {
	const window = 1024
	if len(head) > window {
		head = head[:window]
	}
	s := head
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return i >= len(s) && len(s) == window // all blanks: nothing here
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return true
		}
		if s[i] != '"' {
			return true // malformed or cut: let the decoder judge
		}
		end := stringEnd(s, i)
		if end < 0 {
			return true
		}
		key := s[i+1 : end]
		i = skipSpace(s, end+1)
		if i >= len(s) || s[i] != ':' {
			return true
		}
		i = skipSpace(s, i+1)
		switch string(key) {
		case "type":
			if i >= len(s) || s[i] != '"' {
				return true
			}
			e := stringEnd(s, i)
			if e < 0 {
				return true
			}
			t := string(s[i+1 : e])
			return t == "user" || t == "assistant"
		case "attachment":
			return false
		case "message":
			return true
		}
		i = skipValue(s, i)
		if i < 0 {
			return true
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ',' {
			return true
		}
		i++
	}
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string that starts
// at s[i], or -1 when it does not close within s.
func stringEnd(s []byte, i int) int {
	for j := i + 1; j < len(s); {
		k := bytes.IndexAny(s[j:], `"\`)
		if k < 0 {
			return -1
		}
		j += k
		if s[j] == '"' {
			return j
		}
		j += 2
	}
	return -1
}

// skipValue returns the index just past the JSON value at s[i], or -1
// when it does not end within s.
func skipValue(s []byte, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		e := stringEnd(s, i)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				e := stringEnd(s, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		for j := i; j < len(s); j++ {
			switch s[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j
			}
		}
		return -1
	}
}

// Record decodes one transcript record.
func (c *collector) Record(rec []byte) { c.line(rec) }

// Facts is what the records so far say. Calls still awaiting their result
// count as done. It leaves the collector as it was, so reading can go on.
func (c *collector) Facts() *handoff.Facts {
	cp := *c
	cp.f.Files = slices.Clone(c.f.Files)
	cp.f.Tasks = slices.Clone(c.f.Tasks)
	cp.f.Commands = slices.Clone(c.f.Commands)
	cp.f.Errors = slices.Clone(c.f.Errors)
	cp.f.Prompts = slices.Clone(c.f.Prompts)
	cp.files = maps.Clone(c.files)
	cp.pending = slices.Clone(c.pending)
	return cp.finish()
}

// ReadTranscript reads a Claude Code transcript from r; root makes file
// paths relative; red, when not nil, redacts every text kept (prompts,
// commands, errors, tasks, the last reply, the compaction summary) before
// it is cut to size.
func ReadTranscript(r io.Reader, root string, red func(string) string) (*handoff.Facts, error) {
	return transcript.Read(r, newCollector(root, red))
}

// ReadTranscriptFile reads the Claude Code transcript at path (a regular file only).
func ReadTranscriptFile(path, root string, red func(string) string) (*handoff.Facts, error) {
	return transcript.ReadFile(path, newCollector(root, red))
}
