// Package inject renders the context continuity gives the model when a
// session starts: the active ledger and the latest handoff, shaped by the
// session's source and cut by priority to stay under the host's size limit.
// It is the program's one renderer for injected context; its wording lives
// in wording.go.
package inject

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/hosts"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// DefaultBudget is the default size limit, a little under the hosts'
// 10,000 cliff (in characters or bytes, as each host counts): past it the
// host gives the model only a preview.
const DefaultBudget = 9000

// MaxBudget is the largest budget accepted (workspace.MaxBudget, where the
// setting is checked): anything at or over a host's 10,000 cliff would be
// cut off by the host.
const MaxBudget = workspace.MaxBudget

// Input is what an injection is made from.
type Input struct {
	Source        string         // startup, resume, clear, compact, fork ("" = startup)
	Name          string         // work stream name
	LedgerPath    string         // relative to the repository root
	Ledger        *ledger.Ledger // nil when missing or unparseable
	Notes         string         // the ledger's notes, LedgerNotes(Ledger): set with Ledger, or none are shown
	LedgerRaw     []byte         // the ledger's bytes when it could not be parsed
	LedgerProblem string         // why it could not be parsed
	Handoff       *handoff.Parsed
	HandoffPath   string // relative to the repository root
	// HandoffCommitAuthor is who git says last committed the handoff ("" when
	// it is not committed): named instead of the author its front matter
	// claims, when they differ.
	HandoffCommitAuthor string
	Now                 time.Time
	Budget              int           // in Unit; 0 = DefaultBudget
	Unit                agent.Unit    // what Budget counts: characters (UTF-16 code units, see Length) or bytes
	Policy              string        // full, short or none; "" = by source (resume and fork short)
	StaleAfter          time.Duration // a handoff older than this is marked stale; 0 = never
	Host                string        // the host reading it: a handoff another host wrote names its writer
	Refresh             bool          // the short refresh after a compaction (goal, now, next)
	Recovered           []Recovery    // earlier sessions that ended without a handoff, recovered at this start
	// HandoffFrom says where the handoff was written when another worktree
	// of the repository wrote it ("worktree ../proj-wt, branch feat/x").
	HandoffFrom string
	// LedgerFrom says where goal, now and next come from when another
	// worktree's ledger of the stream changed them later than this one's
	// (continuity's words: the caller passes each value in it through Word).
	LedgerFrom string
	// Others are other sessions at work on the stream or its files.
	Others []Other
	// Ended are the stream's other sessions that ended since it was last
	// given to a model (newest first): each gets its line.
	Ended []EndedSession
}

// Other is another agent session at work in the repository: on the same
// stream, or touching the same files.
type Other struct {
	Agent    string    // the host's name: claude, codex, …
	Worktree string    // where, for people: "this worktree" or a path relative to it ("../proj-wt"), through Word
	Branch   string    // "" on a detached HEAD
	Since    time.Time // its start
	Stream   bool      // it works on the same stream
	Files    []string  // files it touched that this stream's ledger names
}

// EndedSession is another session's handoff, told in one line.
type EndedSession struct {
	Meta    handoff.Meta
	Summary string // the handoff's summary (its first line is shown)
	Path    string // relative to the repository root
}

// Recovery is an earlier session of the worktree that ended without a
// handoff, whose handoff was written (or will be) from its transcript.
type Recovery struct {
	Session string // the agent session recovered
	Why     string // "its client process is gone", "quiet for a day (it may be early)"
	Path    string // the handoff written, relative to the root; "" while it waits
	Dir     string // where a handoff that waits will be written
	When    string // when it will be, e.g. "at this session's next turn end"
}

// Short reports whether the injection is a short refresh (goal, now, next).
func (in Input) Short() bool {
	if in.Refresh {
		return true
	}
	if in.Policy != "" {
		return in.Policy == "short"
	}
	return in.Source == "resume" || in.Source == "fork"
}

// Length counts characters as the host does (UTF-16 code units), so a
// budget in characters holds whatever the script.
func Length(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Size is s's size in unit u: bytes for host.Bytes, else Length.
func Size(s string, u agent.Unit) int {
	if u == agent.Bytes {
		return len(s)
	}
	return Length(s)
}

// NoLedger is the one-line hint injected when the project has no ledger.
func NoLedger() string { return sayNoLedger() }

// NoLedgerMessage is the line shown to the person when the project has no ledger.
func NoLedgerMessage() string { return sayNoLedgerMessage() }

// Message is the one line shown to the person beside the injection.
func Message(in Input) string {
	now, file := "", ""
	if in.Ledger != nil {
		now = cutRunes(oneLine(in.Ledger.Now), 80)
	}
	if in.HandoffPath != "" {
		file = in.HandoffPath[strings.LastIndexByte(in.HandoffPath, '/')+1:]
	}
	msg := sayMessage(in.Name, now, file, in.LedgerPath, in.LedgerProblem)
	if len(in.Recovered) > 0 {
		msg += "; " + RecoveredMessage(in.Recovered)
	}
	return msg
}

// RecoveredText is the lines that tell the model about earlier sessions
// recovered at this start, one a session.
func RecoveredText(rs []Recovery) string {
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = sayRecovered(r)
	}
	return strings.Join(lines, "\n")
}

// RecoveredMessage is the same for the person, on one line.
func RecoveredMessage(rs []Recovery) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = sayRecoveredMessage(r)
	}
	return strings.Join(parts, "; ")
}

// cutRunes cuts s to n runes, the last one "…" when cut.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

type block struct {
	title string                           // "" for a one-line field
	text  string                           // prose (goal, now, summary, notes)
	items []string                         // list entries
	keep  int                              // +1: keep the first items when cutting; -1: keep the last
	more  string                           // where the rest is, for the cut line
	fit   func(room int, m measure) string // makes the text to fit room (the ledger's notes)
	most  int                              // the most room it may take (0: all there is)
}

// Render returns the text to inject, at most in.Budget long in in.Unit.
func Render(in Input) string {
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if budget > MaxBudget {
		budget = MaxBudget
	}
	m := measure(in.Unit)
	source := in.Source
	if source == "" {
		source = "startup"
	}
	updated := ""
	if in.Ledger != nil {
		updated = in.Ledger.Updated
	}
	header := sayHeader(in.Name, in.LedgerPath, source, in.Refresh, updated)
	footer := []string{sayCLI(), sayFiles(in.LedgerPath, in.HandoffPath)}
	if len(in.Recovered) > 0 {
		header += "\n" + RecoveredText(in.Recovered)
	}
	if in.LedgerFrom != "" && in.Ledger != nil {
		header += "\n" + sayLedgerFrom(in.LedgerFrom)
	}
	if len(in.Others) > 0 {
		header += "\n" + othersText(in.Others, in.Now)
	}

	var blocks []block
	var decisions *block // what a long next may not crowd out
	short := in.Short()
	switch {
	case in.Ledger != nil:
		l := in.Ledger
		blocks = append(blocks,
			block{title: "Goal", text: l.Goal},
			block{title: "Now", text: l.Now},
			block{title: "Next", items: l.Next, keep: 1, more: "the ledger"},
		)
		if !short {
			blocks = append(blocks, block{title: "Constraints", items: l.Constraints, keep: 1, more: "the ledger"})
			blocks = append(blocks, handoffBlock(in), endedBlock(in))
			var ds []string
			for _, d := range l.Decisions {
				s := d.Decision
				if d.Why != "" {
					s += " (why: " + d.Why + ")"
				}
				if d.Date != "" {
					s += " [" + d.Date + "]"
				}
				ds = append(ds, s)
			}
			blocks = append(blocks,
				block{title: "Decisions", items: ds, keep: -1, more: "the ledger"},
				block{title: "Open questions", items: l.Questions, keep: 1, more: "the ledger"},
				block{title: "Files", items: l.Files, keep: -1, more: "the ledger"},
				readBlock(in),
				block{title: "Done", items: l.Done, keep: -1, more: "the ledger"},
				block{title: "Notes", fit: func(room int, m measure) string { return notes(in.Notes, room, in.LedgerPath, m) }},
			)
		}
	default:
		blocks = append(blocks, block{title: "Problem", text: sayProblem(in.LedgerProblem)},
			block{title: "Ledger text", text: strings.TrimSpace(string(in.LedgerRaw))})
		if !short {
			blocks = append(blocks, handoffBlock(in), endedBlock(in), readBlock(in))
		}
	}

	// The fence is always given; the line that explains it when it fits
	// after the blocks (at the smallest budgets the goal comes first).
	intro, open, end := sayQuoted(nonce(""))
	fixed := m.size(header) + 4 + m.size(open) + m.size(end) + 2
	for _, f := range footer {
		fixed += m.size(f) + 1
	}
	if in.Ledger != nil && !short && len(in.Ledger.Decisions) > 0 {
		// A long tail of next items does not crowd out the decisions:
		// next takes at most the room the decisions (up to half of it)
		// leave, and never less than a quarter; its cut line says how
		// many more are in the ledger.
		room := budget - fixed
		for i := range blocks {
			if blocks[i].title == "Decisions" {
				decisions = &blocks[i]
			}
		}
		if decisions != nil {
			want := 0
			if s, ok := decisions.render(room, m); ok {
				want = min(m.size(s)+1, room/2)
			}
			first := 0 // the first next item, always kept
			if len(in.Ledger.Next) > 0 {
				first = m.size(m.truncate(quoteLine(in.Ledger.Next[0]), itemCap)) + 60
			}
			for i := range blocks {
				if blocks[i].title == "Next" {
					blocks[i].most = max(room/4, first, room-want-m.size(in.Ledger.Goal)-m.size(in.Ledger.Now)-leftOutRoom)
				}
			}
		}
	}
	parts, leftOut := fit(blocks, budget-fixed, m)
	left := budget - fixed
	var leftLine string // continuity's own: after the fence
	if len(leftOut) > 0 {
		// Again, with room for the line that says what was left out.
		reserve := min(leftOutRoom, budget/8)
		parts, leftOut = fit(blocks, budget-fixed-reserve, m)
		leftLine = m.truncate(sayLeftOut(leftOut), reserve)
		left -= m.size(leftLine) + 1
	}
	for _, p := range parts {
		left -= m.size(p) + 1
	}
	var body string
	if len(parts) > 0 {
		quoted := strings.Join(parts, "\n")
		fits := left >= m.size(intro)+1
		intro, open, end := sayQuoted(nonce(quoted))
		if fits {
			body += intro + "\n"
		}
		body += open + "\n" + quoted + "\n" + end + "\n"
	}
	if leftLine != "" {
		body += leftLine + "\n"
	}
	out := header + "\n\n"
	if body != "" {
		out += body + "\n"
	}
	return out + strings.Join(footer, "\n")
}

// fit renders the blocks that fit in room, in order, and names those left
// out (with how much they held).
func fit(blocks []block, room int, m measure) (parts, leftOut []string) {
	for _, b := range blocks {
		r := room
		if b.most > 0 && r > b.most {
			r = b.most
		}
		s, ok := b.render(r, m)
		if !ok {
			if n := b.count(); n.positive() && b.title != "" {
				leftOut = append(leftOut, b.name()+" ("+n.String()+")")
			}
			continue
		}
		parts = append(parts, s)
		room -= m.size(s) + 1
	}
	return parts, leftOut
}

// leftOutRoom is kept (at most an eighth of the budget) for the line that
// names the blocks left out for room: no block is dropped without a word.
const leftOutRoom = 200

// amount is how much a block holds: items, or runes of text.
type amount struct{ items, runes int }

func (a amount) String() string {
	if a.items > 0 {
		return fmt.Sprintf("%d %s", a.items, plural(a.items, "item"))
	}
	return fmt.Sprintf("%d characters", a.runes)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// count is how much b holds; zero when nothing.
func (b block) count() amount {
	n := 0
	for _, it := range b.items {
		if strings.TrimSpace(it) != "" {
			n++
		}
	}
	if n > 0 {
		return amount{items: n}
	}
	return amount{runes: utf8.RuneCountInString(strings.TrimSpace(b.text))}
}

func (a amount) positive() bool { return a.items > 0 || a.runes > 0 }

// name is how the left-out line names b: its title up to a parenthesis.
func (b block) name() string {
	t, _, _ := strings.Cut(b.title, " (")
	return t
}

func handoffBlock(in Input) block {
	h := in.Handoff
	if h == nil {
		return block{}
	}
	m := h.Meta
	if m.Agent == in.Host {
		m.Agent = "" // named only when another agent wrote it
	}
	m.Event, m.Branch, m.Author = quoteLine(m.Event), quoteLine(m.Branch), quoteLine(m.Author)
	if by := quoteLine(in.HandoffCommitAuthor); by != "" && by != m.Author {
		m.Author = by + sayClaimedAuthor(m.Author)
	}
	tokens := ""
	if m.Tokens > 0 {
		tokens = Tokens(m.Tokens)
	}
	stale := in.StaleAfter > 0 && !m.Created.IsZero() && in.Now.Sub(m.Created) > in.StaleAfter
	title := sayHandoffTitle(stale, Byline(m, in.Now), tokens)
	if in.HandoffFrom != "" {
		title += ", " + sayFrom(quoteLine(in.HandoffFrom))
	}
	summary := strings.TrimSpace(clean(h.Sections[handoff.HeadingSummary]))
	if summary == "" {
		summary = "(no summary)"
	}
	state := strings.TrimSpace(clean(h.State.Markdown()))
	open := openErrors(h.Work)
	if state == "" && len(open) == 0 {
		return block{title: title, text: summary}
	}
	var b strings.Builder
	if state != "" {
		b.WriteString(state + "\n")
	}
	b.WriteString("- Summary: " + summary)
	if len(open) > 0 {
		b.WriteString("\n- Open errors:\n  " + strings.Join(open, "\n  "))
	}
	return block{title: title, text: b.String()}
}

// openErrors are a handoff's errors that were not resolved later (the
// latest handoff.MaxOpen of them), with a line counting the earlier ones.
func openErrors(w handoff.Work) []string {
	var open []string
	if w.OpenBefore > 0 {
		open = append(open, fmt.Sprintf("- … %d earlier in the handoff", w.OpenBefore))
	}
	for _, e := range w.Open {
		open = append(open, "- "+strings.Join(strings.Fields(clean(e)), " "))
	}
	return open
}

// readBlock is the handoff's working set: the files the session read and
// did not change, the most used first (the first kept when cut).
func readBlock(in Input) block {
	if in.Handoff == nil {
		return block{}
	}
	var items []string
	for _, p := range in.Handoff.State.Read {
		if p = strings.TrimSpace(clean(p)); p != "" {
			items = append(items, p)
		}
	}
	return block{title: sayReadTitle(), items: items, keep: 1, more: "the handoff"}
}

// endedBlock gives each other session that ended since the stream was
// last given to a model its line: who, when, what its summary opens with.
func endedBlock(in Input) block {
	var items []string
	for _, o := range in.Ended {
		m := o.Meta
		if m.Agent == in.Host {
			m.Agent = ""
		}
		first, _, _ := strings.Cut(strings.TrimSpace(o.Summary), "\n")
		line := Byline(m, in.Now)
		if first != "" {
			line += ": " + first
		}
		items = append(items, line+" ("+o.Path+")")
	}
	return block{title: sayEndedTitle(), items: items, keep: 1, more: "the handoffs directory"}
}

// Tokens renders a count of tokens the way people say it: "812", "153k".
func Tokens(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}

// Byline says who wrote a handoff, when and where: "pre-compact from Codex
// by Kim, 3 h ago on feature/auth" (the agent's title when m.Agent is set).
func Byline(m handoff.Meta, now time.Time) string {
	when := ""
	if !m.Created.IsZero() && !now.IsZero() {
		if d := now.Sub(m.Created); d < -time.Minute {
			// A clock ahead (another machine's) or a hand-edited date:
			// say so rather than call it recent.
			when = "dated " + m.Created.UTC().Format("2006-01-02 15:04") + " UTC, in the future"
		} else {
			when = Age(d) + " ago"
		}
	}
	agentTitle := ""
	if m.Agent != "" {
		agentTitle = hosts.TitleOf(m.Agent)
	}
	return strings.TrimSpace(sayByline(m.Event, agentTitle, m.Author, when, m.Branch))
}

// Age renders a duration the way a person says it: "5 min", "3 h", "2 days".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	default:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
}

const itemCap = 400

// measure sizes text in a host's unit.
type measure agent.Unit

func (m measure) size(s string) int { return Size(s, agent.Unit(m)) }

// truncate cuts s to at most n (in m's unit), ending in "…" when cut.
func (m measure) truncate(s string, n int) string {
	if m.size(s) <= n {
		return s
	}
	room := n - m.size("…")
	c := 0
	for i, r := range s {
		w := 1
		switch {
		case agent.Unit(m) == agent.Bytes:
			w = utf8.RuneLen(r)
		case r >= 0x10000:
			w = 2
		}
		if c+w > room {
			return s[:i] + "…"
		}
		c += w
	}
	return s
}

// render returns the block's text if any of it fits in room, cutting
// lists by items and prose at a character boundary.
func (b block) render(room int, m measure) (string, bool) {
	if b.title == "" || room <= len(b.title)+8 {
		return "", false
	}
	if b.fit != nil {
		b.text = b.fit(room-m.size(b.title)-2, m)
	}
	if b.items == nil {
		text := quoteProse(b.text)
		if text == "" {
			return "", false
		}
		sep := ": "
		if strings.Contains(text, "\n") {
			sep = ":\n"
		}
		head := b.title + sep
		if m.size(head)+m.size(text) <= room {
			return head + text, true
		}
		const cut = " … (cut here)"
		n := room - m.size(head) - m.size(cut)
		if n < 40 {
			return "", false
		}
		return head + m.truncate(text, n) + cut, true
	}
	var items []string
	for _, it := range b.items {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, "- "+m.truncate(quoteLine(it), itemCap))
		}
	}
	if len(items) == 0 {
		return "", false
	}
	head := b.title + ":"
	full := head + "\n" + strings.Join(items, "\n")
	if m.size(full) <= room {
		return full, true
	}
	// Keep as many items as fit, plus a line counting the rest.
	var kept []string
	used := m.size(head) + 40
	order := items
	if b.keep < 0 {
		order = reverse(items)
	}
	for _, it := range order {
		if used+m.size(it)+1 > room {
			break
		}
		kept = append(kept, it)
		used += m.size(it) + 1
	}
	if len(kept) == 0 {
		return "", false
	}
	rest := fmt.Sprintf("- … %d more in %s", len(items)-len(kept), b.more)
	if b.keep < 0 {
		kept = append([]string{rest}, reverse(kept)...)
	} else {
		kept = append(kept, rest)
	}
	return head + "\n" + strings.Join(kept, "\n"), true
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
