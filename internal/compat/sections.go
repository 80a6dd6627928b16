package compat

// Section-style ledgers: Continuous-Claude's CONTINUITY_CLAUDE-<name>.md
// (## Goal, ## State with Done/Now/Next, ## Key Decisions, ...), its v3
// form (front matter with only session and updated, then ## Progress with
// ### Done / ### In Progress / ### Blocked, ## Next Steps, ## File
// Operations), and Codex's CONTINUITY.md (a list of "- Goal (incl. success
// criteria): ..." labels). They are read with goldmark into the same model,
// as a person reads them: headings by what they mean, not their exact
// words; phases by their status; labelled items and paragraphs by their
// label. Every block taken into the model is remembered, so Import moves
// exactly what was understood out of the body and leaves the rest verbatim.

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/continuity-md/continuity/ledger"
	"github.com/yuin/goldmark/ast"
)

type secKind int

const (
	secOther secKind = iota
	secGoal
	secConstraints
	secDone
	secNow
	secNext
	secDecisions
	secQuestions
	secFiles
	secState   // Done/Now/Next labels, task boxes, phases
	secBlocked // blockers: open questions that stop the work
	secPhase   // "### Phase 3: ..." under a state, or at the top
)

// status is what a heading or its boxes say about a piece of work.
type status int

const (
	stNone status = iota
	stDone
	stNow
	stNext
)

// headingKinds maps a heading's or a label's name (lowercased, without
// emphasis, numbering, status or parenthesised notes) to a field.
var headingKinds = map[string]secKind{
	"goal": secGoal, "goals": secGoal, "objective": secGoal, "current goal": secGoal, "mission": secGoal,
	"success criteria": secGoal, "the goal": secGoal, "session goal": secGoal,
	"constraints": secConstraints, "discovered constraints": secConstraints, "preferences": secConstraints,
	"constraints/assumptions": secConstraints, "assumptions": secConstraints, "constraints and assumptions": secConstraints,
	"done": secDone, "completed": secDone, "completed work": secDone, "done this session": secDone,
	"accomplished": secDone, "what's done": secDone, "finished": secDone, "completed this session": secDone,
	"now": secNow, "current": secNow, "in progress": secNow, "current focus": secNow, "current task": secNow,
	"working on": secNow, "in-progress": secNow, "doing": secNow,
	"next": secNext, "next steps": secNext, "remaining": secNext, "remaining work": secNext, "todo": secNext,
	"to do": secNext, "action items": secNext, "pending": secNext, "plan": secNext, "up next": secNext,
	"next up": secNext, "what's next": secNext, "next actions": secNext, "not started": secNext,
	"blocked": secBlocked, "blockers": secBlocked, "blocked by": secBlocked,
	"decisions": secDecisions, "key decisions": secDecisions, "decision log": secDecisions,
	"design decisions": secDecisions, "decisions made": secDecisions,
	"open questions": secQuestions, "questions": secQuestions, "unknowns": secQuestions, "unresolved": secQuestions,
	"working set": secFiles, "files": secFiles, "key files": secFiles, "relevant files": secFiles,
	"file operations": secFiles, "files modified": secFiles, "modified files": secFiles, "read": secFiles,
	"modified": secFiles, "created": secFiles, "files touched": secFiles, "files changed": secFiles,
	"state": secState, "current state": secState, "progress": secState, "status": secState,
	"current status": secState,
}

var (
	numberingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+[.)]|[a-z][.)])\s+`) })
	phaseRE     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(phase|stage|step|milestone|wave|sprint|part|epic)\b\s*[\w.\-]*`)
	})
	boxRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[( |x|X|→|->|>|~|-)\]\s*`) })
	labelRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\*{0,2}([A-Za-z][^:*` + "`" + `\n]{0,59}?)\s*(?:\*{0,2}\s*:\s*\*{0,2}|:)(?:\s+|$)`)
	})
	// noteLabelRE is a bold label with a note or a mark between it and its
	// colon: "**Done** ✅:", "**Next** (optional future):".
	noteLabelRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\*\*([A-Za-z][^*:\n]{0,59})\*\*(?:\s*(?:\([^()\n]{0,40}\)|[^\p{L}\p{N}\s:*` + "`" + `()]+))+\s*:(?:\s+|$)`)
	})
	dateEndRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\s*[(\[]?(\d{4}-\d{2}-\d{2})[)\]]?\.?$`)
	})
	decisionNumRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^decision\s*\d*\s*:\s*`) })
	sessionRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^session:\s*(.+)$`) })
	codeListRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^`[^`]+`(\\s*[,;]\\s*`[^`]+`)*[.;]?$") })
	codeSpanRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
	decisionSep   = []string{" — ", " – ", " -- ", ": ", " - "}
)

// Status words, looked for in a heading's status part (after a dash or a
// colon, in parentheses) or, upper case, anywhere.
var (
	nextWords = []string{"not started", "pending", "planned", "todo", "to do", "queued", "up next"}
	nowWords  = []string{"in progress", "in-progress", "current", "active", "wip", "ongoing", "started", "now"}
	doneWords = []string{"complete", "completed", "done", "finished", "shipped", "merged", "verified"}
	doneMarks = []string{"✅", "✓", "✔", "☑", "[x]", "[X]"}
	nowMarks  = []string{"⏳", "🔄", "🚧", "▶", "[→]", "[->]", "[~]", "[>]"}
	nextMarks = []string{"⬜", "☐", "[ ]"}
)

// plainTitle drops emphasis, code marks, leading emoji and numbering.
func plainTitle(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(strings.TrimSpace(s))
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '['
	})
	return strings.TrimSpace(numberingRE().ReplaceAllString(s, ""))
}

// splitStatus cuts a heading into its name and the rest that may carry a
// status: "State — COMPLETE (2026-07-11)" gives "State" and "COMPLETE (2026-07-11)".
func splitStatus(title string) (name, rest string) {
	name = title
	cut := len(name)
	for _, sep := range []string{" — ", " – ", " - ", ": ", "("} {
		if i := strings.Index(name, sep); i > 0 && i < cut {
			cut = i
		}
	}
	if strings.HasSuffix(name, ":") && cut == len(name) {
		cut = len(name) - 1
	}
	return strings.TrimSpace(name[:cut]), strings.TrimSpace(name[cut:])
}

// statusOf reads a status from a heading: marks anywhere, words in its
// status part, upper-case words anywhere.
func statusOf(title, rest string) status {
	for _, m := range nextMarks {
		if strings.Contains(title, m) {
			return stNext
		}
	}
	for _, m := range nowMarks {
		if strings.Contains(title, m) {
			return stNow
		}
	}
	for _, m := range doneMarks {
		if strings.Contains(title, m) {
			return stDone
		}
	}
	low := strings.ToLower(rest)
	upper := upperWords(title)
	for _, set := range []struct {
		words []string
		st    status
	}{{nextWords, stNext}, {nowWords, stNow}, {doneWords, stDone}} {
		for _, w := range set.words {
			if hasWord(low, w) || hasWord(upper, w) {
				return set.st
			}
		}
	}
	return stNone
}

// upperWords returns the words of s written in capitals (COMPLETE, IN
// PROGRESS), lowercased, space-separated.
func upperWords(s string) string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if len(f) > 1 && strings.ToUpper(f) == f {
			out = append(out, strings.ToLower(f))
		}
	}
	return strings.Join(out, " ")
}

func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !unicode.IsLetter(rune(s[j-1]))
		after := j+len(w) == len(s) || !unicode.IsLetter(rune(s[j+len(w)]))
		if before && after {
			return true
		}
		i = j + 1
	}
}

// kindOfName maps a name to a field, trying "A & B", "A/B" and "A and B"
// part by part ("Constraints & Preferences", "Constraints/Assumptions").
func kindOfName(name string) secKind {
	n := strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), ":")))
	if k, ok := headingKinds[n]; ok {
		return k
	}
	for _, sep := range []string{" & ", "/", " and ", ", "} {
		if strings.Contains(n, sep) {
			for _, part := range strings.Split(n, sep) {
				if k, ok := headingKinds[strings.TrimSpace(part)]; ok {
					return k
				}
			}
		}
	}
	// "Key files modified", "Files touched this session".
	if hasWord(n, "files") && !hasWord(n, "no") {
		return secFiles
	}
	return secOther
}

// headingKind tells what a heading holds and the status it declares.
func headingKind(title string) (secKind, status) {
	t := plainTitle(title)
	name, rest := splitStatus(t)
	st := statusOf(title, rest)
	if k := kindOfName(name); k != secOther {
		return k, st
	}
	if phaseRE().MatchString(t) {
		return secPhase, st
	}
	return secOther, st
}

// labelOf splits "**Label:** rest" or "Label: rest" from an item or a line.
func labelOf(s string) (label, rest string, ok bool) {
	m := labelRE().FindStringSubmatchIndex(s)
	if m == nil {
		m = noteLabelRE().FindStringSubmatchIndex(s)
	}
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(s[m[2]:m[3]]), strings.TrimSpace(s[m[1]:]), true
}

// labelKind maps a label to a field ("Goal (incl. success criteria)",
// "Key files", "Remaining").
func labelKind(label string) secKind {
	name, _ := splitStatus(plainTitle(label))
	return kindOfName(name)
}

// section is one heading and the blocks under it.
type section struct {
	kind       secKind
	st         status
	title      string // the heading's text
	prefix     string // for items of a subheading that inherits its parent's field
	level      int
	start, end int // from the heading's line to the next heading's line
	all        bool
	blocks     []ast.Node
	parent     int
	dropped    bool
	decHeading bool // "### Decision 1: ..." under Key Decisions: the heading is the decision
}

// sectionParse is the result of reading a section-style ledger.
type sectionParse struct {
	l        ledger.Ledger
	src      []byte
	sections []section
	drop     [][2]int         // byte ranges Import leaves out: what was understood
	known    bool             // some block or heading named a field
	skip     map[secKind]bool // fields not to read (a front matter holds them)
	cur      string           // the title of the section being read
	kept     []keptItem       // items of known sections no field took: they stay in the notes
}

// keptItem is an item under a section that names a field that was not
// taken into the field (code in it, a shape no field carries): it stays in
// the notes, and import says so.
type keptItem struct{ section, text string }

// parseSections reads src as a section-style ledger; ok is false when it has
// none of the known sections.
func parseSections(path string, src []byte) (*ledger.Ledger, bool) {
	p := readSections(path, src)
	if p == nil {
		return nil, false
	}
	l := p.l
	return &l, true
}

func readSections(path string, src []byte) *sectionParse {
	return readSectionsExcept(path, src, nil)
}

// readSectionsExcept is readSections leaving the sections of the skipped
// fields unread (kept in the body).
func readSectionsExcept(path string, src []byte, skip map[secKind]bool) *sectionParse {
	doc := ledger.ParseMarkdown(src)
	p := &sectionParse{l: ledger.Ledger{Path: path, Format: ledger.Sections, Src: src, Body: src}, src: src, skip: skip}
	var title string
	cur := -1
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Lines().Len() > 0 {
			start, end := blockRange(src, h)
			if cur >= 0 {
				p.sections[cur].end = start
			}
			htext := linesText(src, h)
			if h.Level == 1 && title == "" && len(p.sections) == 0 {
				title = htext
				if m := sessionRE().FindStringSubmatch(title); m != nil {
					p.l.Stream = strings.TrimSpace(m[1])
					p.drop = append(p.drop, [2]int{start, end})
				}
				cur = -1
				continue
			}
			p.sections = append(p.sections, p.newSection(htext, h.Level, start))
			cur = len(p.sections) - 1
			continue
		}
		if label, ok := labelHeading(src, n); ok {
			// Codex's "Goal (incl. success criteria):" on a line of its
			// own, its items below: a heading in all but form.
			start, _ := blockRange(src, n)
			if cur >= 0 {
				p.sections[cur].end = start
			}
			p.sections = append(p.sections, p.newSection(label, 2, start))
			cur = len(p.sections) - 1
			continue
		}
		if cur < 0 {
			p.preamble(n)
			continue
		}
		p.sections[cur].blocks = append(p.sections[cur].blocks, n)
	}
	for i := range p.sections {
		p.finish(i)
	}
	p.dropContainers()
	if !p.known {
		return nil
	}
	if p.l.Stream == "" {
		p.l.Stream = ledger.SessionFromPath(path)
	}
	if p.l.Stream == "CONTINUITY" { // a root CONTINUITY.md (Codex): no name of its own
		p.l.Stream = ""
	}
	return p
}

// newSection classifies a heading, inheriting its parent's field when its
// own words name none ("### Backend" under "## Next Steps").
func (p *sectionParse) newSection(htext string, level, start int) section {
	s := section{title: htext, level: level, start: start, end: len(p.src), all: true, parent: -1}
	s.kind, s.st = headingKind(htext)
	for i := len(p.sections) - 1; i >= 0; i-- {
		if p.sections[i].level < level {
			s.parent = i
			break
		}
	}
	if s.parent >= 0 {
		par := p.sections[s.parent]
		switch {
		case s.kind == secPhase && par.kind != secState && par.kind != secOther && par.kind != secPhase:
			// "### Phase 1" under Key Decisions or Done groups its items.
			s.kind, s.prefix = par.kind, plainTitle(htext)
		case s.kind == secOther && par.kind == secDecisions:
			s.kind = secDecisions
			if decisionNumRE().MatchString(plainTitle(htext)) {
				s.decHeading = true
			} else {
				s.prefix = plainTitle(htext)
			}
		case s.kind == secOther && par.kind == secGoal:
			s.kind = secGoal
		case s.kind == secOther && (par.kind == secDone || par.kind == secNext || par.kind == secConstraints ||
			par.kind == secQuestions || par.kind == secFiles || par.kind == secBlocked):
			s.kind, s.prefix = par.kind, plainTitle(htext)
		case par.kind == secState && s.st == stNone && par.st != stNone && s.kind == secPhase:
			s.st = par.st
		}
	}
	if p.skip[s.kind] {
		s.kind, s.prefix = secOther, ""
	}
	if s.kind != secOther {
		p.known = true
	}
	return s
}

// labelHeading reports a paragraph that is one known label and nothing
// else ("Goal (incl. success criteria):", "Key decisions:"), which Codex
// writes where a heading would be, and returns the label.
func labelHeading(src []byte, n ast.Node) (string, bool) {
	b, ok := n.(*ast.Paragraph)
	if !ok || b.Lines().Len() != 1 {
		return "", false
	}
	line := strings.Trim(strings.TrimSpace(linesText(src, b)), "*_ ")
	label, rest, ok := labelOf(line)
	if !ok || rest != "" || !strings.HasSuffix(line, ":") || labelKind(label) == secOther {
		return "", false
	}
	return label, true
}

// dashLabels reports a paragraph whose lines are labels behind an em or
// en dash ("— Goal (incl. success criteria): …"): Codex's list written
// with dashes markdown does not take for list marks.
func dashLabels(src []byte, b *ast.Paragraph) bool {
	lines := b.Lines()
	labelled := 0
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSpace(string(seg.Value(src)))
		rest, ok := cutDash(line)
		if !ok {
			return false
		}
		if label, _, ok := labelOf(rest); ok && labelKind(label) != secOther {
			labelled++
		}
	}
	return labelled > 0
}

// cutDash is line without a leading em or en dash and the spaces after it.
func cutDash(line string) (string, bool) {
	for _, d := range []string{"—", "–"} {
		if rest, ok := strings.CutPrefix(line, d); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return line, false
}

// preamble reads a block before the first section: the Updated line,
// labelled lines (**Current Focus:** ...), and Codex's list of labels
// (with list marks, or em dashes).
func (p *sectionParse) preamble(n ast.Node) {
	switch b := n.(type) {
	case *ast.Paragraph:
		if dashLabels(p.src, b) {
			p.known = true
			p.labelLines(secState, b, true)
			return
		}
		p.labelLines(secOther, b, true)
	case *ast.List:
		if p.isLabelList(b) {
			p.known = true
			p.labelList(b)
		}
	}
}

// finish reads a section's blocks into the model once it is complete.
func (p *sectionParse) finish(i int) {
	s := &p.sections[i]
	switch {
	case s.kind == secPhase:
		s.all = p.phase(s)
	case s.decHeading:
		s.all = p.decisionHeading(s)
	default:
		base := s.prefix
		p.cur = plainTitle(s.title)
		for i := 0; i < len(s.blocks); i++ {
			n := s.blocks[i]
			if lead, ok := p.leadIn(s, n); ok {
				// "Resolved since the last revision:" before a list under Open
				// Questions: that list is not the section's field; any other
				// lead-in names a group of the items after it.
				if closedWords(lead) {
					s.all = false
					if i+1 < len(s.blocks) {
						if _, isList := s.blocks[i+1].(*ast.List); isList {
							i++
						}
					}
					continue
				}
				if s.kind != secFiles { // a path takes no prefix
					s.prefix = withPrefix(base, lead)
				}
				start, end := blockRange(p.src, n)
				p.drop = append(p.drop, [2]int{start, end})
				continue
			}
			if !p.block(s, n) {
				s.all = false
				if _, isList := n.(*ast.List); !isList && s.kind != secOther {
					p.keep(linesText(p.src, n))
				}
			}
		}
		s.prefix = base
	}
	if s.all && s.kind != secOther {
		s.dropped = true
		p.drop = append(p.drop, [2]int{s.start, s.end})
	}
}

// leadIn returns the text of a one-line paragraph ending in a colon that
// introduces the list after it, in a section holding a list field.
func (p *sectionParse) leadIn(s *section, n ast.Node) (string, bool) {
	switch s.kind {
	case secDone, secNext, secNow, secConstraints, secQuestions, secBlocked, secFiles:
	default:
		return "", false
	}
	b, ok := n.(*ast.Paragraph)
	if !ok || b.Lines().Len() != 1 {
		return "", false
	}
	next := n.NextSibling()
	if _, isList := next.(*ast.List); !isList {
		return "", false
	}
	t := strings.Trim(linesText(p.src, b), "*_ ")
	if !strings.HasSuffix(t, ":") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimSuffix(plainTitle(t), ":")), true
}

// closedWords reports a lead-in for items that are settled, not open.
func closedWords(s string) bool {
	low := strings.ToLower(s)
	for _, w := range []string{"resolved", "answered", "closed", "dropped", "rejected", "obsolete", "superseded", "won't", "not doing"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// dropContainers drops a heading left with nothing under it once every
// subsection it held was moved ("## Progress" over Done/In Progress/Blocked).
func (p *sectionParse) dropContainers() {
	for i := len(p.sections) - 1; i >= 0; i-- {
		s := &p.sections[i]
		if s.dropped || !s.all || len(s.blocks) > 0 {
			continue
		}
		children := 0
		all := true
		for j := i + 1; j < len(p.sections) && p.sections[j].level > s.level; j++ {
			children++
			if !p.sections[j].dropped {
				all = false
			}
		}
		if children > 0 && all {
			s.dropped = true
			p.drop = append(p.drop, [2]int{s.start, s.end})
		}
	}
}

// block reads one block under section s; it reports whether all of it was
// taken. Parts of a block taken alone (items, lines) are dropped here.
func (p *sectionParse) block(s *section, n ast.Node) bool {
	switch b := n.(type) {
	case *ast.ThematicBreak:
		return s.kind != secOther
	case *ast.Paragraph:
		return p.paragraph(s, b)
	case *ast.List:
		if s.kind == secOther {
			return false
		}
		if s.kind == secState && p.isLabelList(b) && !p.isStateList(b) {
			return p.labelList(b)
		}
		return p.list(s.kind, s.st, s.prefix, b)
	}
	return false
}

// paragraph reads a paragraph under s.
func (p *sectionParse) paragraph(s *section, b *ast.Paragraph) bool {
	t := linesText(p.src, b)
	if t == "" {
		return true
	}
	if s.kind == secDecisions && strings.HasPrefix(t, "|") {
		return p.decisionTable(b)
	}
	if isTableOrMarkup(t) {
		return false
	}
	switch s.kind {
	case secGoal:
		p.l.Goal = joinPara(p.l.Goal, t)
		return true
	case secNow:
		if isNone(t) {
			return true
		}
		p.addItem(secNow, stripBox(t), false)
		return true
	case secDone, secNext, secConstraints, secQuestions, secBlocked:
		if _, _, ok := labelOf(t); ok && b.Lines().Len() > 1 {
			return p.labelLines(s.kind, b, false)
		}
		if !isNone(t) {
			p.addItem(s.kind, withPrefix(s.prefix, stripBox(t)), false)
		}
		return true
	}
	return p.labelLines(s.kind, b, false)
}

// labelLines reads a paragraph line by line: "Now: ...", "**Current
// Focus:** ...", "Updated: ..." (before the first section). Lines it takes
// are dropped one by one; it reports whether it took them all.
func (p *sectionParse) labelLines(k secKind, b *ast.Paragraph, preamble bool) bool {
	lines := b.Lines()
	all := true
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSpace(string(seg.Value(p.src)))
		line, _ = cutDash(line)
		line = strings.Trim(line, "*_ ")
		if !p.labelLine(k, line, preamble) {
			all = false
			continue
		}
		start := lineStartAt(p.src, seg.Start)
		p.drop = append(p.drop, [2]int{start, lineEndAt(p.src, start)})
	}
	return all
}

// labelLine takes one labelled line: the Updated time before the first
// section, a focus ("**Current Focus:** ...") anywhere, and in a state (or
// a section of the label's own field) any label that names a field.
func (p *sectionParse) labelLine(k secKind, line string, preamble bool) bool {
	label, rest, ok := labelOf(line)
	if !ok {
		return false
	}
	rest = strings.Trim(rest, "*_ ")
	if rest == "" {
		return false
	}
	low := strings.ToLower(plainTitle(label))
	if preamble && (low == "updated" || low == "last updated") {
		v, ok := parseUpdated(rest)
		if !ok || p.l.Updated != "" {
			return false
		}
		p.l.Updated = v
		return true
	}
	lk := labelKind(label)
	if lk == secOther || lk == secState {
		return false
	}
	if low == "current focus" || low == "working on" || low == "current task" {
		if p.l.Now != "" || p.skip[secNow] {
			return false
		}
		p.known = true
		p.addItem(secNow, stripBox(rest), false)
		return true
	}
	if k != secState && k != lk {
		return false
	}
	p.known = true
	if !isNone(rest) {
		p.addLabelled(lk, rest)
	}
	return true
}

// addLabelled files a labelled value: goal and now as text, files split
// into paths, the rest as one item.
func (p *sectionParse) addLabelled(k secKind, rest string) {
	switch k {
	case secGoal:
		p.l.Goal = joinPara(p.l.Goal, rest)
	case secFiles:
		if paths, ok := pathList(rest); ok {
			for _, f := range paths {
				p.addItem(secFiles, f, false)
			}
			return
		}
		p.addItem(secFiles, rest, false)
	case secDecisions:
		p.l.Decisions = append(p.l.Decisions, decisionOfText(rest))
	default:
		p.addItem(k, stripBox(rest), false)
	}
}

// isLabelList reports a list that opens with a known label (Codex's
// "- Goal (incl. success criteria): ...", or "- Done:" in a state).
func (p *sectionParse) isLabelList(l *ast.List) bool {
	it := l.FirstChild()
	if it == nil {
		return false
	}
	t, _, _ := p.itemParts(it)
	label, _, ok := labelOf(stripBox(t))
	return ok && labelKind(label) != secOther
}

// isStateList reports a list whose labels are only Done/Now/Next kinds, as
// a ## State section holds them.
func (p *sectionParse) isStateList(l *ast.List) bool {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		t, _, _ := p.itemParts(it)
		if label, _, ok := labelOf(stripBox(t)); ok {
			switch labelKind(label) {
			case secDone, secNow, secNext, secBlocked, secOther:
			default:
				return false
			}
		}
	}
	return true
}

// labelList reads a list of labelled items, each label naming the field of
// its value, its nested items and the plain items after it (Codex writes
// "- Done:" followed by "- item" lines at the same level).
func (p *sectionParse) labelList(l *ast.List) bool {
	all := true
	cur := secOther
	var label ast.Node // the current empty label item, dropped if all its items were taken
	labelAll := true
	closeLabel := func() {
		if label != nil && labelAll {
			p.dropItem(label)
		}
		if label != nil && !labelAll {
			all = false
		}
		label, labelAll = nil, true
	}
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		t, nested, extra := p.itemParts(it)
		if lab, rest, ok := labelOf(stripBox(t)); ok && labelKind(lab) != secOther && !extra {
			closeLabel()
			cur = labelKind(lab)
			if rest == "" {
				label = it
				if nested != nil {
					labelAll = p.list(cur, stNone, "", nested)
				}
				continue
			}
			if nested != nil {
				if !p.list(cur, stNone, "", nested) {
					all = false
					continue
				}
			}
			if !p.labelValue(cur, rest) {
				all = false
				continue
			}
			p.dropItem(it)
			continue
		}
		if cur == secOther || cur == secState {
			all, labelAll = false, false
			continue
		}
		if p.item(cur, stNone, "", it) {
			p.dropItem(it)
		} else {
			labelAll = false
		}
	}
	closeLabel()
	return all
}

// labelValue takes the text after a label in a label list.
func (p *sectionParse) labelValue(k secKind, rest string) bool {
	if isNone(rest) {
		return true
	}
	switch k {
	case secState, secOther:
		return false
	}
	p.addLabelled(k, rest)
	return true
}

// list reads a list under a section of kind k; items taken are dropped one
// by one, and it reports whether all were.
func (p *sectionParse) list(k secKind, st status, prefix string, l *ast.List) bool {
	all := true
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if p.item(k, st, prefix, it) {
			p.dropItem(it)
		} else {
			all = false
			t, _, _ := p.itemParts(it)
			p.keep(t)
		}
	}
	return all
}

// keep notes an item of a known section that stays in the notes.
func (p *sectionParse) keep(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	p.kept = append(p.kept, keptItem{section: p.cur, text: text})
}

// itemParts returns an item's first text, its nested list, and whether it
// holds anything else (a second paragraph, code, a quote).
func (p *sectionParse) itemParts(it ast.Node) (t string, nested *ast.List, extra bool) {
	for c := it.FirstChild(); c != nil; c = c.NextSibling() {
		switch b := c.(type) {
		case *ast.TextBlock, *ast.Paragraph:
			if t == "" && nested == nil {
				t = linesText(p.src, b)
			} else {
				extra = true
			}
		case *ast.List:
			if nested == nil {
				nested = b
			} else {
				extra = true
			}
		default:
			extra = true
		}
	}
	return t, nested, extra
}

// item reads one list item under a section of kind k; it reports whether
// all of it was taken (nothing is added to the model otherwise, except
// nested items taken and dropped one by one).
func (p *sectionParse) item(k secKind, st status, prefix string, it ast.Node) bool {
	t, nested, extra := p.itemParts(it)
	if t == "" && nested == nil {
		return false
	}
	if extra {
		return p.wholeItem(k, st, prefix, it)
	}
	box, t := splitBox(t)
	if k == secState {
		return p.stateItem(st, box, t, nested)
	}
	if isNone(t) && nested == nil {
		return true
	}
	switch k {
	case secDecisions:
		return p.decisionItem(prefix, t, nested)
	case secFiles:
		return p.fileItem(t, nested)
	}
	if lab, rest, ok := labelOf(t); ok && nested != nil && rest == "" {
		if lk := labelKind(lab); lk != secOther && lk != secState && lk != k {
			return p.list(lk, stNone, "", nested)
		}
	}
	text := withPrefix(prefix, t)
	if nested != nil {
		parts, ok := p.flatten(nested)
		if !ok {
			return false
		}
		text = joinDetail(text, parts)
	}
	if k == secGoal {
		if p.l.Goal == "" && it.PreviousSibling() == nil && it.NextSibling() == nil {
			p.l.Goal = text
		} else {
			p.l.Goal = joinLine(p.l.Goal, "- "+text)
		}
		return true
	}
	p.addItem(k, text, box == "x" || box == "X")
	return true
}

// wholeItem reads an item holding more than a line and a list (further
// paragraphs, a quote, lists between paragraphs) as one item of the
// section's field, its text whole: the first line is the item, the rest
// its detail.
func (p *sectionParse) wholeItem(k secKind, st status, prefix string, it ast.Node) bool {
	head, details, ok := p.itemText(it)
	if !ok || head == "" {
		return false
	}
	box, head := splitBox(head)
	switch k {
	case secDecisions:
		dec := decisionOfText(head)
		if dec.Decision == "" {
			return false
		}
		dec.Why = joinDetail(dec.Why, details)
		if prefix != "" {
			dec.Decision = prefix + ": " + dec.Decision
		}
		p.l.Decisions = append(p.l.Decisions, dec)
		return true
	case secState:
		switch box {
		case "x", "X":
			k = secDone
		case "→", "->", ">", "~":
			k = secNow
		case " ":
			k = secNext
		default:
			k = map[status]secKind{stDone: secDone, stNow: secNow, stNext: secNext}[st]
		}
		if k == secOther {
			return false
		}
	case secGoal:
		p.l.Goal = joinLine(p.l.Goal, "- "+joinDetail(withPrefix(prefix, head), details))
		return true
	case secOther, secPhase:
		return false
	}
	if k == secFiles {
		prefix = ""
	}
	p.addItem(k, joinDetail(withPrefix(prefix, head), details), box == "x" || box == "X")
	return true
}

// stateItem reads an item of a state: "Done:" / "Now:" / "Next:" labels with
// their values and nested items, or a task whose box tells its field.
func (p *sectionParse) stateItem(st status, box, t string, nested *ast.List) bool {
	lab, rest, labelled := labelOf(t)
	if labelled {
		lk := labelKind(lab)
		switch lk {
		case secDone, secNow, secNext, secBlocked, secQuestions, secGoal, secConstraints, secFiles, secDecisions:
			if nested != nil && !p.list(lk, stNone, "", nested) {
				return false
			}
			if rest == "" || isNone(rest) {
				return true
			}
			b, rest := splitBox(rest)
			if lk == secDone || lk == secNow || lk == secNext {
				p.addItem(lk, rest, b == "x" || b == "X")
				return true
			}
			p.addLabelled(lk, rest)
			return true
		}
	}
	k := secOther
	switch box {
	case "x", "X":
		k = secDone
	case "→", "->", ">", "~":
		k = secNow
	case " ":
		k = secNext
	case "":
		switch st {
		case stDone:
			k = secDone
		case stNext:
			k = secNext
		}
	}
	if k == secOther || labelled && box == "" {
		return false
	}
	text := t
	if nested != nil {
		parts, ok := p.flatten(nested)
		if !ok {
			return false
		}
		text = joinDetail(text, parts)
	}
	p.addItem(k, text, false)
	return true
}

// decisionItem reads a decision: "**Decision:** X" with a nested
// "**Rationale:** Y", "**X**: why", "X — why", "X. 2026-09-14".
func (p *sectionParse) decisionItem(prefix, t string, nested *ast.List) bool {
	dec := decisionOfText(t)
	if nested != nil {
		var extra []string
		for c := nested.FirstChild(); c != nil; c = c.NextSibling() {
			nt, sub, ok := p.itemText(c)
			if !ok {
				return false
			}
			_, nt = splitBox(nt)
			lab, rest, ok := labelOf(nt)
			if !ok {
				extra = append(extra, joinDetail(nt, sub))
				continue
			}
			switch strings.ToLower(plainTitle(lab)) {
			case "rationale", "why", "reason", "because":
				dec.Why = joinSentence(dec.Why, joinDetail(rest, sub))
			case "decision", "choice", "chosen":
				dec.Decision = joinSentence(dec.Decision, rest)
				if len(sub) > 0 {
					extra = append(extra, sub...)
				}
			default:
				extra = append(extra, joinDetail(plainTitle(lab)+": "+rest, sub))
			}
		}
		if len(extra) > 0 {
			dec.Why = joinDetail(dec.Why, extra)
		}
	}
	if dec.Decision == "" {
		return false
	}
	if prefix != "" {
		dec.Decision = prefix + ": " + dec.Decision
	}
	p.l.Decisions = append(p.l.Decisions, dec)
	return true
}

// decisionTable reads a table of decisions ("| Decision | Rationale |
// Date |"), its columns found by their headers.
func (p *sectionParse) decisionTable(b *ast.Paragraph) bool {
	lines := b.Lines()
	var rows [][]string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSpace(string(seg.Value(p.src)))
		if !strings.HasPrefix(line, "|") {
			return false
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	if len(rows) < 3 || strings.Trim(strings.Join(rows[1], ""), "-: ") != "" {
		return false
	}
	col := map[string]int{"decision": -1, "choice": -1, "why": -1, "date": -1}
	for i, h := range rows[0] {
		switch strings.ToLower(plainTitle(h)) {
		case "decision", "what", "topic", "area", "question":
			col["decision"] = i
		case "choice", "chosen", "chose":
			col["choice"] = i
		case "rationale", "why", "reason", "because":
			col["why"] = i
		case "date", "when":
			col["date"] = i
		}
	}
	if col["decision"] < 0 {
		// "| Choice | Why |": the choice is the decision.
		col["decision"], col["choice"] = col["choice"], -1
	}
	if col["decision"] < 0 {
		return false
	}
	cell := func(r []string, k string) string {
		if i := col[k]; i >= 0 && i < len(r) {
			return r[i]
		}
		return ""
	}
	var decs []ledger.Decision
	for _, r := range rows[2:] {
		d := cell(r, "decision")
		if c := cell(r, "choice"); c != "" {
			// "| Vector store | pgvector over ChromaDB |": what was
			// decided and what was chosen, both kept.
			d = withPrefix(d, c)
		}
		if d != "" {
			decs = append(decs, ledger.Decision{Decision: d, Why: cell(r, "why"), Date: cell(r, "date")})
		}
	}
	p.l.Decisions = append(p.l.Decisions, decs...)
	return true
}

// decisionOfText splits one line into a decision, its why and its date.
func decisionOfText(t string) ledger.Decision {
	var dec ledger.Decision
	if m := dateEndRE().FindStringSubmatchIndex(t); m != nil && m[0] > 0 {
		dec.Date = t[m[2]:m[3]]
		t = strings.TrimSpace(t[:m[0]])
	}
	if lab, rest, ok := labelOf(t); ok {
		switch l := strings.ToLower(plainTitle(lab)); {
		case l == "decision" || decisionNumRE().MatchString(lab+":"):
			t = rest
		case strings.HasPrefix(t, "**") && rest != "":
			dec.Decision, dec.Why = plainTitle(lab), rest
			return dec
		}
	}
	if strings.HasPrefix(t, "**") {
		if end := strings.Index(t[2:], "**"); end > 0 {
			head := strings.TrimSpace(t[2 : 2+end])
			rest := strings.TrimSpace(t[4+end:])
			rest = strings.TrimLeft(rest, ":—–- ")
			if rest != "" {
				dec.Decision, dec.Why = strings.TrimSuffix(head, ":"), strings.TrimSpace(rest)
				return dec
			}
			t = head
		}
	}
	for _, sep := range decisionSep {
		if i := strings.Index(t, sep); i > 0 {
			dec.Decision, dec.Why = strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+len(sep):])
			return dec
		}
	}
	dec.Decision = t
	return dec
}

// decisionHeading reads "### Decision 2: Title" and its labelled lines.
func (p *sectionParse) decisionHeading(s *section) bool {
	dec := ledger.Decision{Decision: decisionNumRE().ReplaceAllString(plainTitle(s.title), "")}
	context := ""
	for _, n := range s.blocks {
		switch b := n.(type) {
		case *ast.ThematicBreak:
		case *ast.Paragraph:
			lines := b.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				line := strings.TrimSpace(string(seg.Value(p.src)))
				lab, rest, ok := labelOf(line)
				if !ok {
					return false
				}
				switch strings.ToLower(plainTitle(lab)) {
				case "rationale", "why", "reason":
					dec.Why = joinSentence(dec.Why, rest)
				case "choice", "decision", "chosen":
					dec.Decision = joinSentence(dec.Decision, rest)
				case "context":
					context = rest
				case "date":
					dec.Date = rest
				default:
					return false
				}
			}
		default:
			return false
		}
	}
	if dec.Decision == "" {
		return false
	}
	if context != "" {
		dec.Why = strings.TrimSpace(dec.Why + " (context: " + context + ")")
	}
	p.l.Decisions = append(p.l.Decisions, dec)
	return true
}

// phase reads "### Phase 3: Logout ✅" with the text under it as one item,
// filed by the heading's status or, without one, by its boxes.
func (p *sectionParse) phase(s *section) bool {
	var details []string
	boxes, checked, current := 0, 0, 0
	for _, n := range s.blocks {
		switch b := n.(type) {
		case *ast.ThematicBreak:
		case *ast.Paragraph:
			t := linesText(p.src, b)
			if isTableOrMarkup(t) {
				return false
			}
			details = append(details, t)
		case *ast.List:
			for it := b.FirstChild(); it != nil; it = it.NextSibling() {
				t, nested, extra := p.itemParts(it)
				if extra {
					return false
				}
				box, t := splitBox(t)
				switch box {
				case "x", "X":
					boxes++
					checked++
				case "→", "->", ">", "~":
					boxes++
					current++
				case " ", "-":
					boxes++
				}
				if nested != nil {
					parts, ok := p.flatten(nested)
					if !ok {
						return false
					}
					t = joinDetail(t, parts)
				}
				details = append(details, t)
			}
		default:
			return false
		}
	}
	st := s.st
	if st == stNone && boxes > 0 {
		switch {
		case checked == boxes:
			st = stDone
		case checked > 0 || current > 0:
			st = stNow
		default:
			st = stNext
		}
	}
	k := map[status]secKind{stDone: secDone, stNow: secNow, stNext: secNext}[st]
	if k == secOther {
		return false
	}
	p.known = true
	p.addItem(k, joinDetail(phaseTitle(s.title), details), false)
	return true
}

// phaseTitle is a phase heading without its status marks.
func phaseTitle(title string) string {
	t := plainTitle(title)
	for _, m := range append(append(append([]string{}, doneMarks...), nowMarks...), nextMarks...) {
		t = strings.ReplaceAll(t, m, "")
	}
	name, rest := splitStatus(t)
	if rest != "" && statusOf("", rest) != stNone && !strings.HasPrefix(rest, ":") {
		return strings.TrimSpace(name)
	}
	if strings.HasPrefix(rest, ":") {
		inner := strings.TrimSpace(rest[1:])
		n2, r2 := splitStatus(inner)
		if r2 != "" && statusOf("", r2) != stNone {
			inner = n2
		}
		return strings.TrimSpace(name + ": " + inner)
	}
	return strings.TrimSpace(t)
}

// fileItem reads a file of a working set: a path (with a note), a list of
// code-quoted paths, "Key files:" with paths inline or nested.
func (p *sectionParse) fileItem(t string, nested *ast.List) bool {
	if lab, rest, ok := labelOf(t); ok && !looksLikePath(lab) {
		if labelKind(lab) != secFiles {
			// "Branch: `main`", "Test cmd: `cargo test`": a working set
			// holds ids and commands as well as files.
			if nested != nil {
				parts, ok := p.flatten(nested)
				if !ok {
					return false
				}
				p.addItem(secFiles, joinDetail(plainTitle(lab)+": "+rest, parts), false)
				return true
			}
			p.addItem(secFiles, plainTitle(lab)+": "+rest, false)
			return true
		}
		if nested != nil && !p.list(secFiles, stNone, "", nested) {
			return false
		}
		if rest == "" || isNone(rest) {
			return true
		}
		paths, ok := pathList(rest)
		if !ok {
			return false
		}
		for _, f := range paths {
			p.addItem(secFiles, f, false)
		}
		return true
	}
	if nested != nil {
		parts, ok := p.flatten(nested)
		if !ok {
			return false
		}
		p.addItem(secFiles, joinDetail(unquoteLead(t), parts), false)
		return true
	}
	if paths, ok := pathList(t); ok {
		for _, f := range paths {
			p.addItem(secFiles, f, false)
		}
		return true
	}
	// A path with a note, or an id or a command the working set names.
	p.addItem(secFiles, unquoteLead(t), false)
	return true
}

// pathList reads "`a`, `b`" or "a, b; c" when every part is a path.
func pathList(s string) ([]string, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	if codeListRE().MatchString(s) {
		var out []string
		for _, m := range codeSpanRE().FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return out, true
	}
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.Trim(strings.TrimSpace(part), "`")
		if !looksLikePath(part) {
			return nil, false
		}
		out = append(out, part)
	}
	return out, len(out) > 0
}

// looksLikePath tells a file or directory path from words.
func looksLikePath(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t") || strings.Contains(s, "://") {
		return false
	}
	if strings.Contains(s, "/") {
		return true
	}
	if i := strings.LastIndexByte(s, '.'); i > 0 && i < len(s)-1 {
		ext := s[i+1:]
		if j := strings.IndexByte(ext, ':'); j > 0 {
			ext = ext[:j]
		}
		return len(ext) <= 6 && strings.IndexFunc(ext, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0
	}
	return false
}

// unquoteLead drops the code marks around a leading path: "`a/b.go` - x"
// gives "a/b.go - x".
func unquoteLead(t string) string {
	if strings.HasPrefix(t, "`") {
		if end := strings.Index(t[1:], "`"); end > 0 {
			return t[1:1+end] + t[2+end:]
		}
	}
	return t
}

// flatten returns the texts of a nested list (and of lists nested in it).
func (p *sectionParse) flatten(l *ast.List) ([]string, bool) {
	return p.blockTexts(l)
}

// itemText returns an item's first text and, as details, the text of all
// it holds after it (further paragraphs, quotes, nested lists at any
// depth), each kept whole; ok is false when it holds what a field cannot
// carry as text (code, a table, HTML), which then stays in the notes.
func (p *sectionParse) itemText(it ast.Node) (head string, details []string, ok bool) {
	first := true
	for c := it.FirstChild(); c != nil; c = c.NextSibling() {
		parts, ok := p.blockTexts(c)
		if !ok {
			return "", nil, false
		}
		if first && len(parts) > 0 {
			first = false
			if c.Kind() == ast.KindParagraph || c.Kind() == ast.KindTextBlock {
				head, parts = parts[0], parts[1:]
			}
		}
		details = append(details, parts...)
	}
	return head, details, true
}

// blockTexts returns the texts of a block inside an item: a paragraph's
// lines joined, a list's items (each with its own details), a quote's.
func (p *sectionParse) blockTexts(n ast.Node) ([]string, bool) {
	switch b := n.(type) {
	case *ast.TextBlock, *ast.Paragraph:
		t := linesText(p.src, b)
		if isTableOrMarkup(t) {
			return nil, false
		}
		if t == "" {
			return nil, true
		}
		return []string{t}, true
	case *ast.List:
		var out []string
		for it := b.FirstChild(); it != nil; it = it.NextSibling() {
			head, details, ok := p.itemText(it)
			if !ok {
				return nil, false
			}
			_, head = splitBox(head)
			if t := joinDetail(head, details); t != "" {
				out = append(out, t)
			}
		}
		return out, true
	case *ast.Blockquote:
		var out []string
		for c := b.FirstChild(); c != nil; c = c.NextSibling() {
			parts, ok := p.blockTexts(c)
			if !ok {
				return nil, false
			}
			out = append(out, parts...)
		}
		return out, true
	case *ast.ThematicBreak:
		return nil, true
	}
	return nil, false
}

// dropItem drops a list item's lines.
func (p *sectionParse) dropItem(it ast.Node) {
	start, end, ok := p.spanOf(it)
	if !ok {
		return
	}
	start = lineStartAt(p.src, start)
	if next := it.NextSibling(); next != nil {
		if ns, _, ok := p.spanOf(next); ok {
			end = lineStartAt(p.src, ns)
		}
	} else {
		end = lineEndAt(p.src, max(start, end-1))
	}
	p.drop = append(p.drop, [2]int{start, end})
}

// spanOf returns the first and last source bytes of a node's blocks.
func (p *sectionParse) spanOf(n ast.Node) (start, end int, ok bool) {
	start, end = -1, -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		lines := c.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			if start < 0 || seg.Start < start {
				start = seg.Start
			}
			if seg.Stop > end {
				end = seg.Stop
			}
		}
		return ast.WalkContinue, nil
	})
	return start, end, start >= 0
}

// addItem files an item under the field of kind k; a checked task under
// Now or Next is done; a second "now" is next.
func (p *sectionParse) addItem(k secKind, t string, checked bool) {
	t = strings.TrimSpace(t)
	if t == "" {
		return
	}
	if checked && (k == secNext || k == secNow) {
		k = secDone
	}
	l := &p.l
	switch k {
	case secConstraints:
		l.Constraints = append(l.Constraints, t)
	case secDone:
		l.Done = append(l.Done, t)
	case secNow:
		if l.Now == "" {
			l.Now = t
		} else {
			l.Next = append(l.Next, t)
		}
	case secNext:
		l.Next = append(l.Next, t)
	case secQuestions:
		l.Questions = append(l.Questions, t)
	case secBlocked:
		l.Questions = append(l.Questions, "Blocked: "+t)
	case secFiles:
		for _, f := range l.Files {
			if f == t {
				return
			}
		}
		l.Files = append(l.Files, t)
	case secGoal:
		l.Goal = joinPara(l.Goal, t)
	}
}

// isNone tells a placeholder that says there is nothing: "None.",
// "(none)", "N/A", "none - Phase 7 complete".
func isNone(t string) bool {
	s := strings.ToLower(strings.Trim(strings.TrimSpace(t), "*_().[]` "))
	for _, w := range []string{"none", "n/a", "na", "nothing", "none yet", "nothing yet", "-", "—", "tbd"} {
		if s == w {
			return true
		}
	}
	return len(s) <= 40 && (strings.HasPrefix(s, "none ") || strings.HasPrefix(s, "none-") || strings.HasPrefix(s, "none,"))
}

// isTableOrMarkup reports text that is a table or HTML, not prose.
func isTableOrMarkup(t string) bool {
	return strings.HasPrefix(t, "|") || strings.HasPrefix(t, "<")
}

func splitBox(t string) (box, rest string) {
	if m := boxRE().FindStringSubmatch(t); m != nil {
		return m[1], strings.TrimSpace(t[len(m[0]):])
	}
	return "", t
}

func stripBox(t string) string {
	_, rest := splitBox(t)
	return rest
}

func withPrefix(prefix, t string) string {
	if prefix == "" {
		return t
	}
	return prefix + ": " + t
}

// joinDetail appends details to an item: "Phase 2: Refresh — a; b".
func joinDetail(head string, parts []string) string {
	if len(parts) == 0 {
		return head
	}
	d := strings.Join(parts, "; ")
	if head == "" {
		return d
	}
	if strings.HasSuffix(head, ":") {
		return head + " " + d
	}
	return head + " — " + d
}

func joinSentence(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + " " + b
}

func joinPara(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

func joinLine(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// linesText joins a block's source lines with spaces.
func linesText(src []byte, n ast.Node) string {
	if n == nil || n.Type() != ast.TypeBlock {
		return ""
	}
	lines := n.Lines()
	parts := make([]string, 0, lines.Len())
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if s := strings.TrimSpace(string(seg.Value(src))); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// blockRange returns the whole lines a block's text spans.
func blockRange(src []byte, n ast.Node) (int, int) {
	lines := n.Lines()
	first, last := lines.At(0), lines.At(lines.Len()-1)
	end := last.Stop
	if end > 0 && end <= len(src) && src[end-1] == '\n' {
		end--
	}
	return lineStartAt(src, first.Start), lineEndAt(src, end)
}

// lineStartAt is the offset of the start of the line holding off.
func lineStartAt(src []byte, off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }

// lineEndAt is the offset just past the line ending of the line holding
// off (len(src) when the line has none).
func lineEndAt(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}
