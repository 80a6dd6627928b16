package handoff

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/continuity-md/continuity/ledger"
	"github.com/continuity-md/continuity/templates"
)

// DefaultMaxBytes bounds a rendered handoff: past it, the longest lists
// are cut first (with a "… N more" line), then the longest text.
const DefaultMaxBytes = 24 << 10

// itemRunes bounds one list item; list items are always one line.
const itemRunes = 500

// Render renders h with the given template text (the embedded default when tmpl is "").
// The output is at most DefaultMaxBytes long unless the template's fixed
// text alone is longer, and the same input always renders the same bytes.
func Render(h *Handoff, tmpl string) ([]byte, error) {
	return renderLimit(h, tmpl, DefaultMaxBytes)
}

// renderLimit is Render with a size limit in bytes (0 = DefaultMaxBytes).
func renderLimit(h *Handoff, tmpl string, limit int) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if tmpl == "" {
		tmpl = templates.Read("handoff.md.tmpl")
	}
	t, err := template.New("handoff").Funcs(template.FuncMap{"yaml": yamlQuote, "code": codeSpan}).Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("handoff template: %w", err)
	}
	v := newView(h)
	for {
		out, err := v.render(t)
		if err != nil {
			return nil, err
		}
		excess := len(out) - limit
		if excess <= 0 || !v.shrink(excess) {
			return out, nil
		}
	}
}

// list is a list section as the template sees it: the items shown, and how
// many were cut to fit before them (earlier entries) or after them.
type list struct {
	Items         []string
	Before, After int
	// keepFirst: cut from the end (Next: the first items come first);
	// otherwise cut from the start (the latest entries matter most).
	keepFirst bool
}

type decisions struct {
	Items  []decision
	Before int
}

// decision is one decision as the template sees it; New marks one the
// previous handoff of the work stream did not list.
type decision struct {
	Decision, Why, Date string
	New                 bool
}

// NewMark ends the line of a decision new since the previous handoff.
const NewMark = " (new)"

// DecisionLine is the line the default template writes for d, without
// NewMark: how a later handoff tells whether d was listed.
func DecisionLine(d ledger.Decision) string {
	s := "- " + itemText(d.Decision)
	if why := itemText(d.Why); why != "" {
		s += " (why: " + why + ")"
	}
	if date := itemText(d.Date); date != "" {
		s += ", " + date
	}
	return s
}

// view is the data the template renders: h with every text made safe for
// its place (one-line items, no stray section headings).
type view struct {
	// state is h's State made clean, and work what its lists hold: the
	// front matter records both; State is the template's view of state.
	state                                                 State
	work                                                  Work
	State                                                 *stateView
	Stream, Created, Event, Trigger, Reason, AgentSession string
	Agent, Model                                          string
	Branch, Commit, Author, Version                       string
	Dirty, Tokens                                         int
	Summary, Goal, Now                                    string
	Done, Next, Files, Read, Outside, Commands, Errors    *list
	Prompts                                               *list
	Decisions                                             *decisions
	LedgerPath                                            string
}

func newView(h *Handoff) *view {
	v := &view{
		Stream: h.Stream, Created: h.Created.UTC().Format(CreatedLayout), Event: h.Event,
		Trigger: h.Trigger, Reason: h.Reason, AgentSession: h.AgentSession, Agent: h.Agent, Model: h.Model,
		Tokens: h.Tokens, Branch: h.Branch,
		Commit: h.Commit, Author: h.Author, Version: h.Version, Dirty: h.Dirty,
		Summary: prose(h.Summary), Goal: prose(h.Goal), Now: prose(h.Now),
		Done: newList(h.Done, false), Next: newList(h.Next, true), Files: newList(h.Files, false),
		Outside: newList(h.Outside, false), Read: newList(h.Read, true),
		Commands: commandList(h.Commands), Errors: newList(h.Errors, false), Prompts: newList(h.Prompts, false),
		LedgerPath: h.LedgerPath, state: cleanState(h.State), work: workOf(h),
	}
	v.State = newStateView(v.state)
	for _, c := range []struct {
		l *list
		n int
	}{{v.Files, h.Omitted.Files}, {v.Commands, h.Omitted.Commands}, {v.Errors, h.Omitted.Errors}} {
		if c.l != nil {
			c.l.Before = c.n
		}
	}
	var ds []decision
	for _, d := range h.Decisions {
		isNew := slices.Contains(h.NewDecisions, d.Decision)
		d.Decision = itemText(d.Decision)
		d.Why = itemText(d.Why)
		d.Date = itemText(d.Date)
		if d.Decision != "" {
			ds = append(ds, decision{Decision: d.Decision, Why: d.Why, Date: d.Date, New: isNew})
		}
	}
	if len(ds) > 0 {
		v.Decisions = &decisions{Items: ds}
	}
	return v
}

// newList returns nil for an empty list, so the template's `with` omits
// the section.
func newList(items []string, keepFirst bool) *list {
	var out []string
	for _, it := range items {
		if it = itemText(it); it != "" {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &list{Items: out, keepFirst: keepFirst}
}

// commandList is newList for commands: each shown as it ran, on one line,
// runs of spaces kept (they can matter to the command).
func commandList(items []string) *list {
	var out []string
	for _, it := range items {
		if it = commandText(it); it != "" {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &list{Items: out}
}

// render renders the handoff: the front matter, written here from the
// view's fields (whatever the template), then the template's body. A
// front matter the template prints itself (a project's template written
// before continuity wrote it) gives way to this one; the keys it adds of
// its own are kept after continuity's.
func (v *view) render(t *template.Template) ([]byte, error) {
	buf := capped{max: maxTemplateOut}
	if err := t.Execute(&buf, v.forTemplate()); err != nil {
		return nil, fmt.Errorf("render handoff: %w", err)
	}
	body := buf.b
	var extra []byte
	if fm, rest, err := SplitFrontMatter(body); err == nil && fm != nil {
		body, extra = rest, extraKeys(fm)
	}
	body = bytes.TrimRight(bytes.TrimLeft(body, "\r\n"), " \t\r\n")
	out := v.frontMatter(extra)
	if len(body) > 0 {
		out = append(append(append(out, '\n'), body...), '\n')
	}
	return out, nil
}

// frontMatter is the handoff's front matter: its Meta, its State and its
// Work, one key a line (State and Work as one-line JSON, which is YAML),
// then extra.
func (v *view) frontMatter(extra []byte) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	key := func(k, val string, always bool) {
		if val != "" || always {
			fmt.Fprintf(&b, "%s: %s\n", k, yamlQuote(val))
		}
	}
	key("stream", v.Stream, true)
	key("created", v.Created, true)
	key("event", v.Event, true)
	key("trigger", v.Trigger, false)
	key("reason", v.Reason, false)
	key("agent_session", v.AgentSession, false)
	key("agent", v.Agent, false)
	key("model", v.Model, false)
	if v.Tokens > 0 {
		fmt.Fprintf(&b, "tokens: %d\n", v.Tokens)
	}
	key("branch", v.Branch, false)
	key("commit", v.Commit, false)
	fmt.Fprintf(&b, "dirty: %d\n", v.Dirty)
	key("author", v.Author, false)
	key("version", v.Version, true)
	if !v.state.Empty() {
		b.WriteString("state: " + oneLineJSON(v.state) + "\n")
	}
	if v.work.Any() {
		b.WriteString("work: " + oneLineJSON(v.work) + "\n")
	}
	b.Write(extra)
	b.WriteString("---\n")
	return b.Bytes()
}

// forTemplate returns the view as a map so that absent lists are untyped
// nil (a nil *list in an interface is not empty to `with`).
func (v *view) forTemplate() map[string]any {
	m := map[string]any{
		"Stream": v.Stream, "Session": v.Stream, "Created": v.Created, "Event": v.Event, "Trigger": v.Trigger,
		"Reason": v.Reason, "AgentSession": v.AgentSession, "Agent": v.Agent, "Model": v.Model, "Tokens": v.Tokens,
		"Branch": v.Branch, "Commit": v.Commit,
		"Author": v.Author, "Version": v.Version, "Dirty": v.Dirty, "Summary": v.Summary,
		"Goal": v.Goal, "Now": v.Now, "LedgerPath": v.LedgerPath,
	}
	if v.State != nil {
		m["State"] = v.State
	} else {
		m["State"] = nil
	}
	for name, l := range map[string]*list{"Done": v.Done, "Next": v.Next, "Files": v.Files, "Read": v.Read, "Outside": v.Outside,
		"Commands": v.Commands, "Errors": v.Errors, "Prompts": v.Prompts} {
		if l != nil {
			m[name] = l
		} else {
			m[name] = nil
		}
	}
	if v.Decisions != nil {
		m["Decisions"] = v.Decisions
	} else {
		m["Decisions"] = nil
	}
	return m
}

// shrink cuts the view by at least excess bytes if it can: the list with
// the most text loses items from its less important end (one item stays),
// then the longest text is cut. It reports whether anything was cut.
func (v *view) shrink(excess int) bool {
	var best *list
	bestSize := 0
	for _, l := range []*list{v.Done, v.Next, v.Files, v.Read, v.Outside, v.Commands, v.Errors, v.Prompts} {
		if l == nil || len(l.Items) < 2 {
			continue
		}
		if s := l.size(); s > bestSize {
			best, bestSize = l, s
		}
	}
	if d := v.Decisions; d != nil && len(d.Items) > 1 {
		size := 0
		for _, it := range d.Items {
			size += len(it.Decision) + len(it.Why) + len(it.Date) + 16
		}
		if size > bestSize {
			removed := 0
			for len(d.Items) > 1 && removed < excess {
				it := d.Items[0]
				removed += len(it.Decision) + len(it.Why) + len(it.Date) + 16
				d.Items = d.Items[1:]
				d.Before++
			}
			return true
		}
	}
	if best != nil {
		removed := 0
		for len(best.Items) > 1 && removed < excess {
			var it string
			if best.keepFirst {
				it = best.Items[len(best.Items)-1]
				best.Items = best.Items[:len(best.Items)-1]
				best.After++
			} else {
				it = best.Items[0]
				best.Items = best.Items[1:]
				best.Before++
			}
			removed += len(it) + 8
		}
		return true
	}
	texts := []*string{&v.Summary, &v.Goal, &v.Now}
	longest := texts[0]
	for _, t := range texts[1:] {
		if len(*t) > len(*longest) {
			longest = t
		}
	}
	const marker = "\n\n… (cut to fit)"
	keep := len(*longest) - excess - len(marker)
	if len(*longest) <= len(marker) || keep < 0 && len(*longest) < 200 {
		return false
	}
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart((*longest)[keep]) {
		keep--
	}
	*longest = strings.TrimRight((*longest)[:keep], " \t\r\n") + marker
	return true
}

// stateView is h's State as the template sees it (each text one line) and
// as the front matter records it; the template sees Uncommitted as one
// line.
type stateView struct {
	State
	Uncommitted string // the paths on one line, "… N more" past maxUncommitted
}

// maxUncommitted bounds the uncommitted paths a handoff names.
const maxUncommitted = 20

// cleanState is s with each text on one line and cut to size, the
// uncommitted paths bounded, the empty items left out. A field it does not
// name (a count) is kept as it is.
func cleanState(s State) State {
	out := s.Clone()
	out.Task = itemText(s.Task)
	out.Plan, out.Checks, out.Commits = nil, nil, nil
	for _, t := range s.Plan {
		if t.Subject = itemText(t.Subject); t.Subject != "" {
			t.ID, t.Status = itemText(t.ID), itemText(t.Status)
			out.Plan = append(out.Plan, t)
		}
	}
	for _, c := range s.Checks {
		c.Command, c.Outcome = commandText(c.Command), itemText(c.Outcome)
		var failing []string
		for _, n := range c.Failing {
			if n = itemText(n); n != "" {
				failing = append(failing, n)
			}
		}
		c.Failing = failing
		if c.Command != "" {
			out.Checks = append(out.Checks, c)
		}
	}
	for _, c := range s.Commits {
		if hash := itemText(c.Hash); hash != "" {
			out.Commits = append(out.Commits, Commit{Hash: hash, Subject: itemText(c.Subject)})
		}
	}
	out.Uncommitted = oneLines(s.Uncommitted)
	if n := len(out.Uncommitted); n > maxUncommitted {
		out.Uncommitted, out.MoreUncommitted = out.Uncommitted[:maxUncommitted], s.MoreUncommitted+n-maxUncommitted
	}
	out.InFlight = oneLines(s.InFlight)
	out.Read = oneLines(s.Read)
	return out
}

// oneLines is items, each on one line and cut to size, the empty ones
// left out; nil when none is left.
func oneLines(items []string) []string {
	var out []string
	for _, it := range items {
		if it = itemText(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// newStateView is the template's view of a clean state, nil when it says
// nothing its State section shows (the files read have a section of
// their own).
func newStateView(s State) *stateView {
	if shown := (State{Task: s.Task, Plan: s.Plan, Checks: s.Checks, Commits: s.Commits, Uncommitted: s.Uncommitted, InFlight: s.InFlight}); shown.Empty() {
		return nil
	}
	return &stateView{State: s, Uncommitted: s.uncommittedLine()}
}

// commandText is a command on one line, as it ran.
func commandText(s string) string {
	return Cut(strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), itemRunes)
}

func (l *list) size() int {
	n := 0
	for _, it := range l.Items {
		n += len(it) + 8
	}
	return n
}

// itemText makes a list item: one line, at most itemRunes long.
func itemText(s string) string { return Cut(oneLine(s), itemRunes) }

var headingLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^ {0,3}(#{1,2})([ \t]|$)`) })

// prose keeps multi-line text as it is, except that a heading of level one
// or two inside it is demoted to level three: it must not start a section
// of its own.
func prose(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	return headingLine().ReplaceAllString(s, "###$2")
}

// yamlQuote renders s as a double-quoted YAML scalar.
func yamlQuote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// codeSpan renders s as an inline code span, with a backtick fence longer
// than any run of backticks inside s (CommonMark).
func codeSpan(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	// A space on each side is stripped by readers: add one where the text
	// would otherwise touch the fence or lose its own spaces.
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
