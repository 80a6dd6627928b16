package install

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Hook is what init registers in a hooks file of the shape Claude Code,
// Codex and Gemini CLI share ({"hooks": {EVENT: [{"matcher", "hooks": [...]}]}}):
// the command and, per event, a matcher and a timeout in the host's unit (0: none).
type Hook struct {
	Command  string            // e.g. "/usr/local/bin/continuity hook --agent claude"
	Events   []string          // the events to register, in order (the host's names)
	Matchers map[string]string // per event; "" when absent
	Timeouts map[string]int    // e.g. {"SessionEnd": 30}
}

// Add returns settings with continuity's hooks registered for every event:
// one matcher group {"matcher":"","hooks":[{"type":"command","command":…}]}
// appended to each event's list, indented like the surrounding file. An empty
// or nil settings gets a fresh document.
//
// It is idempotent: an event that already has a continuity hook (recognised
// by IsContinuityHook, whatever the path) is left alone, except that a
// different command string is replaced in place. When nothing needs doing it
// returns the input unchanged and changed == false. Malformed JSON, a hooks
// value that is not an object, or an event that is not an array is an *Error
// (with line and column) and nothing is returned.
func Add(settings []byte, h Hook) (out []byte, changed bool, err error) {
	if !IsContinuityHook(h.Command) {
		return nil, false, fmt.Errorf("hook command %q does not run \"continuity hook\"", h.Command)
	}
	if len(h.Events) == 0 {
		return nil, false, errors.New("install: the hook names no events")
	}
	if len(bytes.TrimSpace(settings)) == 0 {
		return fresh(h), true, nil
	}
	return edit(settings, h.Events, func(d *doc) (change, bool, error) { return d.planAdd(h) })
}

// Remove returns settings without the hooks Add put there: each continuity
// hook entry in events, and the matcher group, event key and hooks key that
// are left empty by its removal. Everything else is byte-identical, so
// Remove(Add(s)) == s whenever s had no continuity hook and no empty hooks
// object or empty event list to begin with (Add fills those, and Remove
// cannot tell them from ones it created).
//
// events names the events to look in (the host's).
func Remove(settings []byte, events ...string) (out []byte, changed bool, err error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settings, false, nil
	}
	return edit(settings, events, func(d *doc) (change, bool, error) { return d.planRemove() })
}

// Status reports, for every event in events, the continuity hook command
// registered there ("" when none).
// events names the events to report (the host's).
func Status(settings []byte, events ...string) (map[string]string, error) {
	st := make(map[string]string, len(events))
	for _, ev := range events {
		st[ev] = ""
	}
	if len(bytes.TrimSpace(settings)) == 0 {
		return st, nil
	}
	d, err := parse(settings)
	if err != nil {
		return nil, err
	}
	d.events = events
	for _, ev := range events {
		arr, err := d.event(ev)
		if err != nil {
			return nil, err
		}
		if found := d.continuityEntries(arr); len(found) > 0 {
			st[ev] = found[0].command
		}
	}
	return st, nil
}

// change replaces src[start:end] with text.
type change struct {
	start, end int
	text       string
}

// maxEdits bounds the edit loop; a settings file needs at most a few per event.
const maxEdits = 1000

// edit applies plan's changes one at a time, re-indexing the document after
// each, until plan has nothing left to do. The whole document is checked
// before the first change so an error leaves nothing half done.
func edit(src []byte, events []string, plan func(*doc) (change, bool, error)) ([]byte, bool, error) {
	d, err := parse(src)
	if err != nil {
		return nil, false, err
	}
	d.events = events
	if err := d.check(); err != nil {
		return nil, false, err
	}
	out := src
	for i := 0; ; i++ {
		c, ok, err := plan(d)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			break
		}
		if i == maxEdits {
			return nil, false, errors.New("install: edits do not converge")
		}
		next := make([]byte, 0, len(out)+len(c.text))
		next = append(next, out[:c.start]...)
		next = append(next, c.text...)
		next = append(next, out[c.end:]...)
		out = next
		if d, err = parse(out); err != nil {
			return nil, false, fmt.Errorf("install: edit produced invalid JSON: %w", err)
		}
		d.events = events
	}
	return out, !bytes.Equal(out, src), nil
}

// check validates the shapes Add and Remove rely on.
func (d *doc) check() error {
	if d.root.kind != '{' {
		return posError(d.src, d.root.start, "settings must be a JSON object")
	}
	for _, ev := range d.events {
		if _, err := d.event(ev); err != nil {
			return err
		}
	}
	return nil
}

// hooks returns the root's "hooks" object, or nil when there is none.
func (d *doc) hooks() (*node, error) {
	if d.root.kind != '{' {
		return nil, posError(d.src, d.root.start, "settings must be a JSON object")
	}
	i, err := d.member(d.root, "hooks")
	if err != nil || i < 0 {
		return nil, err
	}
	h := d.root.vals[i]
	if h.kind != '{' {
		return nil, posError(d.src, h.start, `"hooks" must be an object`)
	}
	return h, nil
}

// event returns the array of matcher groups for ev, or nil when there is none.
func (d *doc) event(ev string) (*node, error) {
	h, err := d.hooks()
	if err != nil || h == nil {
		return nil, err
	}
	i, err := d.member(h, ev)
	if err != nil || i < 0 {
		return nil, err
	}
	arr := h.vals[i]
	if arr.kind != '[' {
		return nil, posError(d.src, arr.start, fmt.Sprintf("hooks.%s must be an array", ev))
	}
	return arr, nil
}

// entry is one continuity hook found in an event's matcher groups.
type entry struct {
	group, index int   // arr.vals[group] is the group; its hooks array's vals[index] the entry
	list         *node // the group's "hooks" array
	cmd          *node // the command string
	command      string
}

// continuityEntries lists the continuity hooks in an event's array. Groups
// and entries of unexpected shape are skipped: they are the user's.
func (d *doc) continuityEntries(arr *node) []entry {
	if arr == nil {
		return nil
	}
	var found []entry
	for gi, g := range arr.vals {
		if g.kind != '{' {
			continue
		}
		li, err := d.member(g, "hooks")
		if err != nil || li < 0 || g.vals[li].kind != '[' {
			continue
		}
		list := g.vals[li]
		for ei, e := range list.vals {
			if e.kind != '{' {
				continue
			}
			ci, err := d.member(e, "command")
			if err != nil || ci < 0 {
				continue
			}
			if s, ok := d.str(e.vals[ci]); ok && IsContinuityHook(s) {
				found = append(found, entry{group: gi, index: ei, list: list, cmd: e.vals[ci], command: s})
			}
		}
	}
	return found
}

// planAdd returns the next change Add needs, if any.
func (d *doc) planAdd(h Hook) (change, bool, error) {
	hooks, err := d.hooks()
	if err != nil {
		return change{}, false, err
	}
	for _, ev := range d.events {
		group := matcherGroup(h, ev)
		if hooks == nil {
			return d.appendChild(d.root, "hooks", object{{ev, array{group}}}), true, nil
		}
		arr, err := d.event(ev)
		if err != nil {
			return change{}, false, err
		}
		if arr == nil {
			return d.appendChild(hooks, ev, array{group}), true, nil
		}
		found := d.continuityEntries(arr)
		if len(found) == 0 {
			return d.appendChild(arr, "", group), true, nil
		}
		for _, f := range found {
			if f.command != h.Command {
				return change{f.cmd.start, f.cmd.end, quote(h.Command)}, true, nil
			}
		}
	}
	return change{}, false, nil
}

// planRemove returns the change that removes the first continuity hook
// entry, together with any container its removal leaves empty.
func (d *doc) planRemove() (change, bool, error) {
	hooks, err := d.hooks()
	if err != nil || hooks == nil {
		return change{}, false, err
	}
	for _, ev := range d.events {
		arr, err := d.event(ev)
		if err != nil {
			return change{}, false, err
		}
		found := d.continuityEntries(arr)
		if len(found) == 0 {
			continue
		}
		f := found[0]
		switch {
		case len(f.list.vals) > 1:
			return d.removeChild(f.list, f.index), true, nil
		case len(arr.vals) > 1:
			return d.removeChild(arr, f.group), true, nil
		case len(hooks.vals) > 1:
			i, _ := d.member(hooks, ev)
			return d.removeChild(hooks, i), true, nil
		default:
			i, _ := d.member(d.root, "hooks")
			return d.removeChild(d.root, i), true, nil
		}
	}
	return change{}, false, nil
}

// removeChild deletes child i of container c with the separator that joins
// it to its neighbour, so appending a child and removing it is an identity.
func (d *doc) removeChild(c *node, i int) change {
	switch {
	case len(c.vals) == 1:
		return change{c.start + 1, c.end - 1, ""}
	case i > 0:
		return change{c.vals[i-1].end, c.vals[i].end, ""}
	default:
		return change{c.childStart(0), c.childStart(1), ""}
	}
}

// appendChild adds a member (key != "") or element after container c's
// last child, on its own line at the same indentation when the last child
// starts a line, else inline after the same separator the container uses.
// An empty container is expanded over several lines in a pretty-printed file.
func (d *doc) appendChild(c *node, key string, v any) change {
	f := d.format()
	render := func(indent string, pretty bool) string {
		var b strings.Builder
		if key != "" {
			b.WriteString(quote(key))
			b.WriteString(f.colon(pretty))
		}
		f.emit(&b, v, indent, pretty)
		return b.String()
	}
	n := len(c.vals)
	if n == 0 {
		if !f.pretty {
			return change{c.start + 1, c.end - 1, render("", false)}
		}
		base := lineIndent(d.src, c.start)
		child := base + f.unit
		return change{c.start + 1, c.end - 1, f.nl + child + render(child, true) + f.nl + base}
	}
	lastStart := c.childStart(n - 1)
	if startsLine(d.src, lastStart) {
		indent := lineIndent(d.src, lastStart)
		return change{c.vals[n-1].end, c.vals[n-1].end, "," + f.nl + indent + render(indent, true)}
	}
	sep := ","
	if n >= 2 {
		sep = string(d.src[c.vals[n-2].end:lastStart])
	} else if f.spaced {
		sep = ", "
	}
	return change{c.vals[n-1].end, c.vals[n-1].end, sep + render("", false)}
}

// startsLine reports whether only spaces and tabs precede pos on its line.
func startsLine(src []byte, pos int) bool {
	for i := pos - 1; i >= 0; i-- {
		switch src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return false
}

// lineIndent returns the leading spaces and tabs of the line holding pos.
func lineIndent(src []byte, pos int) string {
	start := bytes.LastIndexByte(src[:pos], '\n') + 1
	end := start
	for end < pos && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// IsContinuityHook reports whether a hook command runs continuity's hook
// entry point: after any leading NAME=value assignments, a program whose base
// name is continuity (or continuity.exe) and whose first argument is hook.
// Quoted words are understood, so a path with spaces is recognised.
func IsContinuityHook(command string) bool {
	words := shellWords(command)
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) < 2 || words[1] != "hook" {
		return false
	}
	prog := words[0]
	prog = prog[strings.LastIndexAny(prog, `/\`)+1:]
	prog = strings.TrimSuffix(strings.ToLower(prog), ".exe")
	return prog == "continuity"
}

// isAssignment matches a shell variable assignment word, NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shellWords splits a command line into words the way a POSIX shell would
// for plain words, single and double quotes and backslashes; it does not
// expand anything. A backslash escapes only a blank, a quote or a backslash,
// so a Windows path such as C:\Tools\continuity.exe keeps its separators.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	escaped := false
	rs := []rune(s)
	for i, c := range rs {
		switch {
		case c == '\\' && quote != '\'' && !escaped && (i+1 == len(rs) || !strings.ContainsRune(" \t\n'\"\\", rs[i+1])):
			w.WriteRune(c)
			inWord = true
		case escaped:
			w.WriteRune(c)
			escaped = false
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				w.WriteRune(c)
			}
		case c == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				w.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
