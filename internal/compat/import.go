package compat

// Import converts a ledger whose fields live in markdown sections to the
// front matter form, moving what it understood out of the body; Notes is
// the body without those parts, for injection.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/continuity-md/continuity/ledger"
)

// ErrNothingToImport reports a front matter ledger whose body holds no
// section the front matter lacks: there is nothing to convert.
var ErrNothingToImport = errors.New("import: already a front matter ledger (nothing in its body to move)")

// updatedLayouts are the times people write after "Updated:".
var updatedLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04",
	"2006-01-02 15:04:05Z07:00", "2006-01-02",
}

// parseUpdated reads an "Updated:" value ("2026-01-16T00:00:00Z",
// "2026-01-16 14:05", "2026-01-16 (session 5)") as the ledger's updated
// form; ok is false when it is not a time.
func parseUpdated(s string) (string, bool) {
	s = strings.Trim(strings.TrimSpace(s), "*_`")
	for _, cut := range []string{" (", " — ", " - ", " by "} {
		if i := strings.Index(s, cut); i > 0 {
			s = s[:i]
		}
	}
	for _, layout := range updatedLayouts {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return ledger.FormatTime(t), true
		}
	}
	return "", false
}

// mayHaveSections is a cheap test before reading a body with goldmark: a
// body with no heading line has no sections to fill fields from.
func mayHaveSections(body []byte) bool {
	return bytes.HasPrefix(body, []byte("#")) || bytes.Contains(body, []byte("\n#"))
}

// fillFromBody fills the fields a front matter ledger does not carry (no
// key in present) from the sections of its body (Continuous-Claude v3
// ledgers keep only session and updated in front matter). A key present,
// even empty, is the ledger's word: an imported ledger's notes are not read
// again. Read-only: edits still write front matter.
func fillFromBody(l *ledger.Ledger, present map[string]bool) {
	if !mayHaveSections(l.Body) || ledger.IsTemplateBody(l.Body) {
		return
	}
	p := readSections(l.Path, l.Body)
	if p == nil {
		return
	}
	b := p.l
	if l.Goal == "" && !present[ledger.KeyGoal] {
		l.Goal = b.Goal
	}
	if l.Now == "" && !present[ledger.KeyNow] {
		l.Now = b.Now
	}
	for _, f := range []struct {
		key      string
		dst, src *[]string
	}{
		{ledger.KeyConstraints, &l.Constraints, &b.Constraints}, {ledger.KeyDone, &l.Done, &b.Done}, {ledger.KeyNext, &l.Next, &b.Next},
		{ledger.KeyQuestions, &l.Questions, &b.Questions}, {ledger.KeyFiles, &l.Files, &b.Files},
	} {
		if len(*f.dst) == 0 && !present[f.key] {
			*f.dst = *f.src
		}
	}
	if len(l.Decisions) == 0 && !present[ledger.KeyDecisions] {
		l.Decisions = b.Decisions
	}
	if l.Updated == "" && !present[ledger.KeyUpdated] {
		l.Updated = b.Updated
	}
}

// Notes returns the part of a ledger's body that its fields do not hold:
// the whole body of a front matter ledger, and of a ledger read from
// sections the sections and lines that were not taken into its fields.
func Notes(l *ledger.Ledger) []byte {
	if l.Format == ledger.Sections {
		if p := readSections(l.Path, l.Src); p != nil {
			return cut(l.Src, p.drop)
		}
		return l.Body
	}
	if !mayHaveSections(l.Body) || ledger.IsTemplateBody(l.Body) {
		return l.Body
	}
	fm, err := ledger.Parse(l.Path, l.Src)
	if err != nil {
		return l.Body
	}
	// The sections of fields the front matter holds were not read into
	// the model: they stay in the notes.
	skip := map[secKind]bool{
		secGoal: fm.Goal != "", secNow: fm.Now != "", secConstraints: len(fm.Constraints) > 0,
		secDone: len(fm.Done) > 0, secNext: len(fm.Next) > 0, secQuestions: len(fm.Questions) > 0,
		secBlocked: len(fm.Questions) > 0, secFiles: len(fm.Files) > 0, secDecisions: len(fm.Decisions) > 0,
	}
	if skip[secDone] || skip[secNow] || skip[secNext] {
		skip[secState], skip[secPhase] = true, true
	}
	if q := readSectionsExcept(l.Path, l.Body, skip); q != nil {
		return cut(l.Body, q.drop)
	}
	return l.Body
}

// conflicts names a field both the front matter and the body set
// differently: Import would have to choose, so it does not.
func conflicts(fm, body *ledger.Ledger) string {
	switch {
	case fm.Goal != "" && body.Goal != "" && fm.Goal != body.Goal:
		return ledger.KeyGoal
	case fm.Now != "" && body.Now != "" && fm.Now != body.Now:
		return ledger.KeyNow
	}
	return ""
}

// union appends the items of b that a lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// Import converts a ledger that keeps its fields in markdown sections
// (Continuous-Claude's v2 section-style, its v3 form with a front matter of
// only session and updated, Codex's CONTINUITY.md) to the front matter
// form. What it understood moves to the front matter and out of the body;
// every other section, note and line stays in the body verbatim. The
// ledger's own Updated time is kept (now is used when it has none). A
// section-style ledger without a name of its own (a root CONTINUITY.md)
// is named after path.
func Import(path string, src []byte, now time.Time) ([]byte, error) {
	if ledger.HasFrontMatter(src) {
		return importFront(path, src, now)
	}
	if _, err := ParseLedger(path, src); err != nil {
		return nil, err
	}
	p := readSections(path, src)
	l := p.l
	if l.Stream == "" {
		l.Stream = ledger.SessionFromPath(path)
	}
	if l.Updated == "" {
		l.Updated = ledger.FormatTime(now)
	}
	return ledger.Compose(path, ledger.EOL(src), &l, "", cut(src, p.drop))
}

// Kept returns, for a ledger Import converts, the items under sections that
// name a field which no field took (an item holding code, a table, a line
// that is a heading in all but form): they stay in the body, where import
// says they are. sections names where they are, in order, once each.
func Kept(path string, src []byte) (items int, sections []string) {
	body := src
	if ledger.HasFrontMatter(src) {
		fm, err := ledger.Parse(path, src)
		if err != nil {
			return 0, nil
		}
		body = fm.Body
	}
	if !mayHaveSections(body) || ledger.IsTemplateBody(body) {
		return 0, nil
	}
	p := readSections(path, body)
	if p == nil {
		return 0, nil
	}
	seen := map[string]bool{}
	for _, k := range p.kept {
		items++
		if !seen[k.section] {
			seen[k.section] = true
			sections = append(sections, k.section)
		}
	}
	return items, sections
}

// importFront converts a front matter ledger whose body holds the fields.
func importFront(path string, src []byte, now time.Time) ([]byte, error) {
	fm, err := ledger.Parse(path, src)
	if err != nil {
		return nil, err
	}
	var p *sectionParse
	if mayHaveSections(fm.Body) && !ledger.IsTemplateBody(fm.Body) {
		p = readSections(path, fm.Body)
	}
	if p == nil || len(p.drop) == 0 {
		return nil, ErrNothingToImport
	}
	if k := conflicts(fm, &p.l); k != "" {
		return nil, fmt.Errorf("import %s: %s is set both in the front matter and in the body, differently; keep one and import again", path, k)
	}
	l := *fm
	b := p.l
	if l.Goal == "" {
		l.Goal = b.Goal
	}
	if l.Now == "" {
		l.Now = b.Now
	}
	l.Constraints = union(l.Constraints, b.Constraints)
	l.Done = union(l.Done, b.Done)
	l.Next = union(l.Next, b.Next)
	l.Questions = union(l.Questions, b.Questions)
	l.Files = union(l.Files, b.Files)
	for _, dec := range b.Decisions {
		if !containsDecision(l.Decisions, dec) {
			l.Decisions = append(l.Decisions, dec)
		}
	}
	if l.Updated == "" {
		l.Updated = b.Updated
	}
	if l.Updated == "" {
		l.Updated = ledger.FormatTime(now)
	}
	// Keys the ledger does not know stay as they were written.
	return ledger.Compose(path, ledger.EOL(src), &l, fm.Extra, cut(fm.Body, p.drop))
}

func containsDecision(ds []ledger.Decision, d ledger.Decision) bool {
	for _, x := range ds {
		if x.Decision == d.Decision {
			return true
		}
	}
	return false
}

// cut returns src without the byte ranges in drop, with no run of blank
// lines where a range was cut out, trimmed of blank lines at both ends.
func cut(src []byte, drop [][2]int) []byte {
	var body []byte
	at := 0
	for _, r := range sortRanges(append([][2]int(nil), drop...)) {
		if r[0] > at {
			body = appendJoined(body, src[at:r[0]])
		}
		if r[1] > at {
			at = r[1]
		}
	}
	if at < len(src) {
		body = appendJoined(body, src[at:])
	}
	return trimBlankLines(body)
}

// appendJoined appends piece to body, without the piece's leading blank
// lines when body already ends with a blank line.
func appendJoined(body, piece []byte) []byte {
	if endsBlank(body) {
		for len(piece) > 0 {
			le := bytes.IndexByte(piece, '\n')
			if le < 0 || len(bytes.TrimSpace(piece[:le])) > 0 {
				break
			}
			piece = piece[le+1:]
		}
	}
	return append(body, piece...)
}

// endsBlank reports text that ends with an empty line (or is empty).
func endsBlank(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	t := bytes.TrimRight(b, " \t\r")
	if !bytes.HasSuffix(t, []byte("\n")) {
		return false
	}
	t = bytes.TrimRight(t[:len(t)-1], " \t\r")
	return len(t) == 0 || bytes.HasSuffix(t, []byte("\n"))
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
