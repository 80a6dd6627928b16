package core

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// LogEntry is one handoff on the repository's timeline.
type LogEntry struct {
	Created time.Time `json:"created"`
	Stream  string    `json:"stream"`
	Author  string    `json:"author,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Event   string    `json:"event,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	// Task and Checks are the handoff's state: what was being worked on
	// and how the last test, build or lint runs ended.
	Task   string `json:"task,omitempty"`
	Checks string `json:"checks,omitempty"`
	// Summary is the first line of the handoff's summary, shown when the
	// handoff has no state to show.
	Summary string `json:"summary,omitempty"`
	Path    string `json:"path"`
	// Machine, for a handoff another machine recorded on its ref (sync:
	// ref) and a fetch brought, names that machine; Author is then git's
	// author of the ref's commit, and Path the ref's file.
	Machine string `json:"machine,omitempty"`
}

// LogQuery selects the handoffs of the timeline.
type LogQuery struct {
	Stream string    // only this work stream ("" for all)
	Author string    // only handoffs whose author has a word starting with each of these words
	Agent  string    // only handoffs this agent wrote (claude, codex, gemini, ...)
	Since  time.Time // only handoffs written since (zero for all)
}

// logHead bounds what log reads of a handoff: its front matter and the
// state and summary that open its body. The rest of a handoff (commands,
// errors, requests) is never read, so the timeline costs the same whatever
// the handoffs' size.
const logHead = 8 << 10

// Log returns the repository's handoffs that q selects, newest first.
// Only the head of each file is read (see logHead), a stream at a time by
// as many readers as the machine has cores.
func Log(p *workspace.Workspace, q LogQuery) []LogEntry {
	loose := hasLoose(p.HandoffDir)
	perStream := byStream(p, q.Stream, func() func(string) []LogEntry {
		buf := make([]byte, logHead)
		return func(name string) []LogEntry {
			var es []LogEntry
			if loose {
				// Handoffs outside any stream's folder are attributed
				// by reading them: the project knows how.
				for _, f := range p.HandoffFiles(name) {
					if e, ok := slowEntry(p, f); ok {
						es = append(es, e)
					}
				}
			} else if dir, err := p.StreamHandoffDir(name); err == nil {
				es = readStream(p, dir, buf)
			}
			for j := range es {
				es[j].Stream = name
			}
			return es
		}
	})
	var out []LogEntry
	for _, es := range perStream {
		for _, e := range es {
			if q.matches(e) {
				out = append(out, e)
			}
		}
	}
	for _, e := range machineEntries(p, q.Stream, out) {
		if q.matches(e) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Created.After(out[b].Created) })
	return out
}

// byStream returns what a reader makes of each work stream (of only, when
// it is not ""), in the streams' order. The streams are shared among as
// many readers as the machine has cores; newReader makes each reader, so
// that it can keep its own buffers.
func byStream[T any](p *workspace.Workspace, only string, newReader func() func(name string) T) []T {
	var names []string
	for _, name := range Names(p) {
		if only == "" || name == only {
			names = append(names, name)
		}
	}
	out := make([]T, len(names))
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			read := newReader()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(names) {
					return
				}
				out[i] = read(names[i])
			}
		}()
	}
	wg.Wait()
	return out
}

// eachHandoff calls fn for each handoff in a stream's folder, in name
// order, with the open folder d (which reads a regular file) and whether
// the entry is a symbolic link (which safefile follows, within the
// repository). Entries of any other kind are passed over.
func eachHandoff(dir string, fn func(d *heads, name, path string, link bool)) {
	d, err := openHeads(dir)
	if err != nil {
		return
	}
	defer d.close()
	slices.SortFunc(d.entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, ent := range d.entries {
		name := ent.Name()
		if !handoff.IsFile(name) {
			continue
		}
		switch t := ent.Type(); {
		case t.IsRegular():
			fn(d, name, filepath.Join(dir, name), false)
		case t&os.ModeSymlink != 0:
			fn(d, name, filepath.Join(dir, name), true)
		}
	}
}

// readStream reads the head of each handoff in a stream's folder.
func readStream(p *workspace.Workspace, dir string, buf []byte) []LogEntry {
	var es []LogEntry
	eachHandoff(dir, func(d *heads, name, path string, link bool) {
		var e LogEntry
		ok := false
		if link {
			e, ok = slowEntry(p, path)
		} else if head, read := d.head(name, buf); read {
			e, ok = headEntry(p, path, head)
		}
		if ok {
			es = append(es, e)
		}
	})
	return es
}

// matches reports whether q selects e.
func (q LogQuery) matches(e LogEntry) bool {
	switch {
	case q.Author != "" && !AuthorMatches(e.Author, q.Author):
		return false
	case q.Agent != "" && !strings.EqualFold(e.Agent, q.Agent):
		return false
	case !q.Since.IsZero() && e.Created.Before(q.Since):
		return false
	}
	return true
}

// hasLoose reports whether the handoff directory holds handoffs outside
// any stream's folder (Continuous-Claude's layout), which are attributed
// to a stream by reading them.
func hasLoose(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.Type().IsRegular() && handoff.IsFile(e.Name()) {
			return true
		}
	}
	return false
}

// headEntry reads a handoff's entry from its head. continuity's own front
// matter (one "key: value" line per key) is read line by line; anything
// else by the full parser.
func headEntry(p *workspace.Workspace, path string, head []byte) (LogEntry, bool) {
	e, st, body, fast := fastHead(head)
	if !fast {
		return slowEntry(p, path)
	}
	if e.Created.IsZero() {
		e.Created = handoff.Time(path)
	}
	if st == nil { // written before the front matter said its state
		s, _ := handoff.StateFromSections(map[string]string{handoff.HeadingState: section(body, handoff.HeadingState)})
		st = &s
	}
	e.Task, e.Checks = stateEntry(st)
	if e.Task == "" {
		e.Summary = firstText(section(body, handoff.HeadingSummary))
	}
	e.Path = p.Rel(path)
	return e, true
}

// slowEntry reads a handoff the fast reader does not (a hand-written or
// Continuous-Claude front matter) with the full parser.
func slowEntry(p *workspace.Workspace, path string) (LogEntry, bool) {
	src, err := safefile.Read(path, p.WriteOptions())
	if err != nil {
		return LogEntry{}, false
	}
	h, err := compat.ParseHandoff(src)
	if err != nil {
		return LogEntry{}, false
	}
	m := h.Meta
	e := LogEntry{Created: m.Created, Author: m.Author, Agent: m.Agent, Event: m.Event, Branch: m.Branch, Path: p.Rel(path)}
	if e.Created.IsZero() {
		e.Created = handoff.Time(path)
	}
	e.Task, e.Checks = stateEntry(&h.State)
	if e.Task == "" {
		e.Summary = firstText(h.Sections[handoff.HeadingSummary])
	}
	return e, true
}

// fastHead reads the front matter continuity writes: "---", then one
// "key: value" line per key (values double-quoted YAML scalars or plain
// words), then "---". ok is false for anything else, which the full
// parser then reads.
func fastHead(src []byte) (e LogEntry, st *handoff.State, body []byte, ok bool) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	rest, found := cutLine(src, "---")
	if !found {
		return e, nil, nil, false
	}
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return e, nil, nil, false // the front matter does not end within the head
		}
		line := bytes.TrimRight(rest[:nl], "\r")
		rest = rest[nl+1:]
		if string(line) == "---" {
			return e, st, rest, true
		}
		key, val, found := bytes.Cut(line, []byte(":"))
		if !found || len(key) == 0 || key[0] == ' ' || key[0] == '-' || key[0] == '#' {
			return e, nil, nil, false
		}
		switch string(key) {
		case "state": // one line of JSON, as continuity writes it
			st = new(handoff.State)
			if json.Unmarshal(val, st) != nil {
				return e, nil, nil, false
			}
			continue
		case "work":
			continue
		}
		v, ok := scalar(bytes.TrimSpace(val))
		if !ok {
			return e, nil, nil, false
		}
		switch string(key) {
		case "created":
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return e, nil, nil, false
			}
			e.Created = t.UTC()
		case "author":
			e.Author = v
		case "agent":
			e.Agent = v
		case "event":
			e.Event = v
		case "branch":
			e.Branch = v
		case "date", "session_name", "topic":
			return e, nil, nil, false // Continuous-Claude's: the full parser knows it
		}
	}
	return e, nil, nil, false
}

// cutLine returns what follows src's first line when that line is want.
func cutLine(src []byte, want string) ([]byte, bool) {
	nl := bytes.IndexByte(src, '\n')
	if nl < 0 || string(bytes.TrimRight(src[:nl], "\r")) != want {
		return nil, false
	}
	return src[nl+1:], true
}

// scalar reads a YAML value as continuity writes it: a double-quoted
// scalar, or a plain one (a number, a word) without a comment.
func scalar(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", true
	}
	switch v[0] {
	case '"':
		s, err := strconv.Unquote(string(v))
		return s, err == nil
	case '\'', '[', '{', '|', '>', '&', '*', '!':
		return "", false
	}
	if bytes.Contains(v, []byte(" #")) {
		return "", false
	}
	return string(v), true
}

// section returns the text of the body's "## name" section, from its
// heading to the next level-two heading (or the end of what was read).
// It looks at line starts only: the sections log reads are written by
// continuity and come before any fenced code. Lines may end in CRLF (a
// Windows checkout).
func section(body []byte, name string) string {
	heading := []byte("## " + name)
	at := -1
	for off := 0; off <= len(body); {
		i := bytes.Index(body[off:], heading)
		if i < 0 {
			return ""
		}
		start, end := off+i, off+i+len(heading)
		rest := body[end:]
		if (start == 0 || body[start-1] == '\n') && (bytes.HasPrefix(rest, []byte("\n")) || bytes.HasPrefix(rest, []byte("\r\n"))) {
			at = end + bytes.IndexByte(rest, '\n') + 1
			break
		}
		off = end
	}
	if at < 0 {
		return ""
	}
	rest := body[at:]
	if i := bytes.Index(rest, []byte("\n## ")); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(string(rest))
}

// stateEntry is what the timeline shows of a handoff's state: its task,
// and each check's command and outcome.
func stateEntry(st *handoff.State) (task, checks string) {
	lines := make([]string, len(st.Checks))
	for i, c := range st.Checks {
		lines[i] = c.Line()
	}
	return st.Task, strings.Join(lines, "; ")
}

// firstText is the first non-empty line of a section.
func firstText(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// LogDay is the local calendar day of t, as the timeline groups it.
func LogDay(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 Monday")
}
