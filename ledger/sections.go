package ledger

// Section-style ledgers (Continuous-Claude's CONTINUITY_CLAUDE-<name>.md):
// no front matter, the fields are markdown sections (## Goal, ## Done, ...),
// read with goldmark into the same model, and converted by Import.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
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
	secState
)

var headingKinds = map[string]secKind{
	"goal": secGoal, "goals": secGoal,
	"constraints": secConstraints,
	"done":        secDone, "completed": secDone,
	"now": secNow, "current": secNow, "in progress": secNow,
	"next": secNext, "remaining": secNext, "todo": secNext, "to do": secNext,
	"decisions": secDecisions, "key decisions": secDecisions,
	"open questions": secQuestions, "questions": secQuestions,
	"working set": secFiles, "files": secFiles,
	"state": secState,
}

var parenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\(.*\)\s*$`) })

func headingKind(title string) secKind {
	t := strings.ToLower(strings.TrimSpace(title))
	t = strings.TrimSuffix(parenRE().ReplaceAllString(t, ""), ":")
	return headingKinds[strings.TrimSpace(t)]
}

// section is one heading and the blocks under it.
type section struct {
	kind       secKind
	start, end int  // from the heading's line to the next heading's line
	consumed   bool // every block was taken into the model
}

// sectionParse is the result of reading a section-style ledger.
type sectionParse struct {
	l        Ledger
	sections []section
	drop     [][2]int // title and Updated: lines that Import leaves out
}

var (
	boxRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([ xX→>~-])\]\s*`) })
	stateRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\**(done|now|next|remaining|current)\**\s*:\s*\**\s*`)
	})
	labelRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\**(decision|rationale|why|reason)\**\s*:\s*\**\s*`)
	})
	updatedRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(last )?updated:\s*(.+)$`) })
	sessionRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^session:\s*(.+)$`) })
	filesRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\**(key )?files?\**\s*:\s*\**\s*`) })
	otherLabel  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\**[A-Za-z][A-Za-z ]{0,20}\**:\s`) })
	codeListRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^`[^`]+`(\\s*,\\s*`[^`]+`)*$") })
	codeSpanRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
	decisionSep = []string{": ", " — ", " -- ", " - "}
)

// parseSections reads src as a section-style ledger; ok is false when it has
// none of the known sections.
func parseSections(path string, src []byte) (*Ledger, bool) {
	p := readSections(path, src)
	if p == nil {
		return nil, false
	}
	l := p.l
	return &l, true
}

func readSections(path string, src []byte) *sectionParse {
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	p := &sectionParse{l: Ledger{Path: path, Format: Sections, Src: src, Body: src}}
	var title string
	cur := -1
	known := false
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
					p.l.Session = strings.TrimSpace(m[1])
					p.drop = append(p.drop, [2]int{start, end})
				}
				cur = -1
				continue
			}
			k := headingKind(htext)
			known = known || k != secOther
			p.sections = append(p.sections, section{kind: k, start: start, end: len(src), consumed: true})
			cur = len(p.sections) - 1
			continue
		}
		if cur < 0 {
			// Before the first section: an "Updated: ..." line.
			if para, ok := n.(*ast.Paragraph); ok {
				if m := updatedRE().FindStringSubmatch(linesText(src, para)); m != nil {
					p.l.Updated = strings.TrimSpace(m[2])
					start, end := blockRange(src, para)
					p.drop = append(p.drop, [2]int{start, end})
				}
			}
			continue
		}
		s := &p.sections[cur]
		if s.kind == secOther {
			continue
		}
		if !p.take(s.kind, n) {
			s.consumed = false
		}
	}
	if !known {
		return nil
	}
	if p.l.Session == "" {
		p.l.Session = sessionFromPath(path)
	}
	if p.l.Session == "" {
		p.l.Session = title
	}
	return p
}

// take reads one block under a section of kind k into the model and
// reports whether all of it was used.
func (p *sectionParse) take(k secKind, n ast.Node) bool {
	src := p.l.Src
	switch b := n.(type) {
	case *ast.ThematicBreak:
		return true
	case *ast.Paragraph:
		t := linesText(src, b)
		switch k {
		case secGoal:
			p.l.Goal = joinPara(p.l.Goal, t)
			return true
		case secNow:
			p.l.Now = joinPara(p.l.Now, stripBox(t))
			return true
		}
		return false
	case *ast.List:
		all := true
		for it := b.FirstChild(); it != nil; it = it.NextSibling() {
			if !p.takeItem(k, it) {
				all = false
			}
		}
		return all
	}
	return false
}

// takeItem reads one list item under a section of kind k.
func (p *sectionParse) takeItem(k secKind, it ast.Node) bool {
	src := p.l.Src
	t := ""
	var nested *ast.List
	all := true
	for c := it.FirstChild(); c != nil; c = c.NextSibling() {
		switch b := c.(type) {
		case *ast.TextBlock, *ast.Paragraph:
			if t == "" {
				t = linesText(src, b)
			} else {
				all = false
			}
		case *ast.List:
			nested = b
		default:
			all = false
		}
	}
	box := ""
	if m := boxRE().FindStringSubmatch(t); m != nil {
		box = m[1]
		t = strings.TrimSpace(t[len(m[0]):])
	}
	checked := box == "x" || box == "X"
	switch k {
	case secState:
		m := stateRE().FindStringSubmatch(t)
		if m == nil {
			return false
		}
		sub := map[string]secKind{"done": secDone, "now": secNow, "current": secNow, "next": secNext, "remaining": secNext}[strings.ToLower(m[1])]
		if rest := strings.TrimSpace(t[len(m[0]):]); rest != "" {
			box := boxRE().FindStringSubmatch(rest)
			p.addItem(sub, stripBox(rest), box != nil && (box[1] == "x" || box[1] == "X"))
		}
		if nested != nil {
			for c := nested.FirstChild(); c != nil; c = c.NextSibling() {
				all = p.takeItem(sub, c) && all
			}
		}
		return all
	case secDecisions:
		t = labelRE().ReplaceAllString(t, "")
		dec := Decision{Decision: t}
		if nested != nil {
			for c := nested.FirstChild(); c != nil; c = c.NextSibling() {
				nt := linesText(src, c.FirstChild())
				if m := labelRE().FindStringSubmatch(nt); m != nil && strings.ToLower(m[1]) != "decision" && dec.Why == "" {
					dec.Why = strings.TrimSpace(nt[len(m[0]):])
				} else {
					all = false
				}
			}
		}
		if dec.Why == "" {
			for _, sep := range decisionSep {
				if i := strings.Index(t, sep); i > 0 {
					dec = Decision{Decision: strings.TrimSpace(t[:i]), Why: strings.TrimSpace(t[i+len(sep):])}
					break
				}
			}
		}
		if dec.Decision != "" {
			p.l.Decisions = append(p.l.Decisions, dec)
		}
		return all
	case secFiles:
		if nested != nil {
			return false
		}
		if m := filesRE().FindString(t); m != "" {
			t = strings.TrimSpace(t[len(m):])
		} else if otherLabel().MatchString(t) {
			return false
		}
		if codeListRE().MatchString(t) {
			for _, m := range codeSpanRE().FindAllStringSubmatch(t, -1) {
				p.addItem(secFiles, m[1], false)
			}
			return all
		}
		p.addItem(secFiles, t, false)
		return all
	}
	if nested != nil {
		for c := nested.FirstChild(); c != nil; c = c.NextSibling() {
			all = p.takeItem(k, c) && all
		}
	}
	if k == secGoal {
		return false
	}
	p.addItem(k, t, checked)
	return all
}

// addItem files an item under the field of kind k; a checked task under
// Now or Next is done.
func (p *sectionParse) addItem(k secKind, t string, checked bool) {
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
	case secFiles:
		l.Files = append(l.Files, t)
	case secGoal:
		l.Goal = joinPara(l.Goal, t)
	}
}

func stripBox(t string) string {
	if m := boxRE().FindStringSubmatch(t); m != nil {
		return strings.TrimSpace(t[len(m[0]):])
	}
	return t
}

func joinPara(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
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

// Import converts a section-style ledger to the front matter form. The
// sections it took in full become front matter; every other section, note
// and line stays in the body verbatim.
func Import(path string, src []byte, now time.Time) ([]byte, error) {
	if hasFrontMatterStart(src) {
		if _, err := Parse(path, src); err != nil {
			return nil, err
		}
		return nil, errors.New("import: already a front matter ledger")
	}
	if _, err := Parse(path, src); err != nil {
		return nil, err
	}
	p := readSections(path, src)
	eol := detectEOL(src)
	drop := append([][2]int(nil), p.drop...)
	for _, s := range p.sections {
		if s.kind != secOther && s.consumed {
			drop = append(drop, [2]int{s.start, s.end})
		}
	}
	var body []byte
	at := 0
	for _, r := range sortRanges(drop) {
		if r[0] > at {
			body = append(body, src[at:r[0]]...)
		}
		if r[1] > at {
			at = r[1]
		}
	}
	body = append(body, src[at:]...)
	body = trimBlankLines(body)

	l := p.l
	l.Updated = FormatTime(now)
	var b strings.Builder
	b.WriteString("---" + eol)
	b.WriteString(frontMatterText(&l, eol))
	b.WriteString("---" + eol)
	if len(body) > 0 {
		b.WriteString(eol)
		b.Write(body)
	}
	out := []byte(b.String())
	got, err := Parse(path, out)
	if err != nil {
		return nil, fmt.Errorf("import %s: the converted ledger does not parse: %w", path, err)
	}
	want := l
	for _, x := range []*Ledger{got, &want} {
		x.Src, x.Body, x.Format = nil, nil, FrontMatter
	}
	if !reflect.DeepEqual(got, &want) {
		return nil, fmt.Errorf("import %s: the converted ledger reads back differently", path)
	}
	return out, nil
}

// frontMatterText writes a ledger's fields as front matter lines.
func frontMatterText(l *Ledger, eol string) string {
	var b strings.Builder
	scalar := func(k, v string) {
		b.WriteString(k + ": " + formatScalar(v, styleAuto, false, "  ", eol) + eol)
	}
	list := func(k string, items []string) {
		if len(items) == 0 {
			b.WriteString(k + ": []" + eol)
			return
		}
		b.WriteString(k + ":" + eol)
		for _, it := range items {
			b.WriteString("  - " + formatScalar(it, styleAuto, false, "", eol) + eol)
		}
	}
	scalar(KeySession, l.Session)
	scalar(KeyGoal, l.Goal)
	list(KeyConstraints, l.Constraints)
	list(KeyDone, l.Done)
	scalar(KeyNow, l.Now)
	list(KeyNext, l.Next)
	if len(l.Decisions) == 0 {
		b.WriteString(KeyDecisions + ": []" + eol)
	} else {
		b.WriteString(KeyDecisions + ":" + eol)
		for _, d := range l.Decisions {
			b.WriteString("  - decision: " + formatScalar(d.Decision, styleAuto, false, "", eol) + eol)
			if d.Why != "" {
				b.WriteString("    why: " + formatScalar(d.Why, styleAuto, false, "", eol) + eol)
			}
			if d.Date != "" {
				b.WriteString("    date: " + formatScalar(d.Date, styleAuto, false, "", eol) + eol)
			}
		}
	}
	list(KeyQuestions, l.Questions)
	list(KeyFiles, l.Files)
	scalar(KeyUpdated, l.Updated)
	return b.String()
}

func sortRanges(rs [][2]int) [][2]int {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j][0] < rs[j-1][0]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	return rs
}

// trimBlankLines drops blank lines at the start and leaves one line ending
// at the end (none if the source had none).
func trimBlankLines(b []byte) []byte {
	for len(b) > 0 {
		le := bytes.IndexByte(b, '\n')
		if le < 0 || len(bytes.TrimSpace(b[:le])) > 0 {
			break
		}
		b = b[le+1:]
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	end := len(b)
	for end > 0 && (b[end-1] == '\n' || b[end-1] == '\r' || b[end-1] == ' ' || b[end-1] == '\t') {
		end--
	}
	// Keep the first line ending after the text, if there was one.
	if end < len(b) {
		if b[end] == '\r' && end+1 < len(b) && b[end+1] == '\n' {
			return b[:end+2]
		}
		for i := end; i < len(b); i++ {
			if b[i] == '\n' {
				return b[:i+1]
			}
		}
	}
	return b[:end]
}
