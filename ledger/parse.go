package ledger

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Keys of the ledger's front matter, in the order a new ledger writes them.
const (
	KeySession     = "session"
	KeyGoal        = "goal"
	KeyConstraints = "constraints"
	KeyDone        = "done"
	KeyNow         = "now"
	KeyNext        = "next"
	KeyDecisions   = "decisions"
	KeyQuestions   = "questions"
	KeyFiles       = "files"
	KeyUpdated     = "updated"
)

// scalarKeys and listKeys tell the shape each known key must have.
var (
	scalarKeys = map[string]bool{KeySession: true, KeyGoal: true, KeyNow: true, KeyUpdated: true}
	listKeys   = map[string]bool{KeyConstraints: true, KeyDone: true, KeyNext: true, KeyDecisions: true, KeyQuestions: true, KeyFiles: true}
)

// entry is one top-level key of the front matter with the offsets edits need.
type entry struct {
	key, val  *yaml.Node
	lineStart int  // start of the key's line
	keyOff    int  // first byte of the key
	colonEnd  int  // just past the ':' that follows the key
	valOff    int  // first byte of the value (== colonEnd for an empty value)
	limit     int  // start of the next key's line, or the end of the front matter
	decorated bool // the value has a YAML tag, anchor or alias: not editable
}

// frontDoc is a front matter ledger split into its parts, with the YAML as
// nodes and every position needed to edit it in place.
type frontDoc struct {
	path    string
	src     []byte
	fmStart int // first byte of the YAML text
	fmEnd   int // start of the closing delimiter line
	body    int // first byte after the closing delimiter line
	lineOff int // file line of YAML line 1, minus one
	lines   []int
	entries []entry
	eol     string
}

// splitFrontMatter finds the front matter (internal/frontmatter). found is
// false when the file does not start with a "---" line; open is the offset of
// that line when it starts one but never closes it.
func splitFrontMatter(src []byte) (fmStart, fmEnd, body int, found bool, open int) {
	b, found, err := SplitFront(src)
	if err != nil {
		return 0, 0, 0, false, b.Open
	}
	if !found {
		return 0, 0, 0, false, -1
	}
	return b.Start, b.End, b.Body, true, -1
}

// hasFrontMatterStart reports whether the file opens with a "---" line.
func hasFrontMatterStart(src []byte) bool {
	_, found, err := SplitFront(src)
	return found || err != nil
}

// checkConflict refuses a ledger holding git's conflict markers, saying so
// rather than what the YAML parser makes of them.
func checkConflict(path string, src []byte) error {
	if line := conflictMarker(src); line > 0 {
		return Problems{{Path: path, Line: line, Msg: "unresolved merge conflict (a <<<<<<< line): keep the lines you want, delete the markers, then commit"}}
	}
	return nil
}

// conflictMarker returns the 1-based line of the first merge-conflict
// marker git leaves ("<<<<<<< ours"), or 0.
func conflictMarker(src []byte) int {
	for p := 0; p < len(src); p = lineEndAt(src, p) {
		if l := src[p:]; bytes.HasPrefix(l, []byte("<<<<<<<")) && (len(l) == 7 || isSpaceOrBreak(l[7])) {
			return lineOf(src, p)
		}
	}
	return 0
}

// markdownStart returns the file line of the first line in src[from:to]
// that reads as markdown rather than YAML: a heading ("# Notes") or a
// paragraph line that is not "key: value", at the start of a line after a
// blank one. It returns 0 when there is none.
func markdownStart(src []byte, from, to int) int {
	blank := false
	for p := from; p < to; p = lineEndAt(src, p) {
		l := bytes.TrimRight(src[p:lineEndAt(src, p)], "\r\n")
		switch {
		case len(bytes.TrimSpace(l)) == 0:
			blank = true
			continue
		case blank && l[0] == '#' && (len(l) == 1 || l[1] == '#' || l[1] == ' '),
			blank && l[0] != ' ' && l[0] != '\t' && l[0] != '-' && l[0] != '#' && !looksLikeKey(l):
			return lineOf(src, p)
		}
		blank = false
	}
	return 0
}

// looksLikeKey reports whether a line starts "key:" as a YAML mapping entry.
func looksLikeKey(l []byte) bool {
	i := bytes.IndexByte(l, ':')
	return i > 0 && !bytes.ContainsAny(l[:i], " \t") && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t')
}

// lineOf returns the 1-based file line of offset off.
func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte{'\n'}) + 1 }

// detectEOL returns the file's line ending: that of its first line.
func detectEOL(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// Parse reads a ledger of either format. A ledger that cannot be used returns
// Problems (each "path:line: problem"); a ledger is never half-parsed.
func Parse(path string, src []byte) (*Ledger, error) {
	if err := checkConflict(path, src); err != nil {
		return nil, err
	}
	if !hasFrontMatterStart(src) {
		return nil, Problems{{Path: path, Line: 1, Msg: "no front matter"}}
	}
	d, err := parseFront(path, src)
	if err != nil {
		return nil, err
	}
	l, err := d.model()
	if err != nil {
		return nil, err
	}
	var extra strings.Builder
	for _, e := range d.entries {
		l.Present = append(l.Present, e.key.Value)
		if !scalarKeys[e.key.Value] && !listKeys[e.key.Value] {
			extra.Write(src[e.lineStart:e.limit])
		}
	}
	l.Extra = extra.String()
	return l, nil
}

// parseFront splits and decodes a front matter ledger, checking the YAML's
// syntax and shape.
func parseFront(path string, src []byte) (*frontDoc, error) {
	b, found, err := SplitFront(src)
	if err != nil {
		return nil, Problems{{Path: path, Line: lineOf(src, b.Open), Msg: "front matter is not closed (no closing --- line)"}}
	}
	if !found {
		return nil, Problems{{Path: path, Line: 1, Msg: "no front matter"}}
	}
	if b.Dots {
		// YAML's end-of-document line: what follows would be a second
		// document, which edits would write into.
		return nil, Problems{{Path: path, Line: lineOf(src, b.End), Msg: "front matter must be one YAML document (no --- or ... lines inside)"}}
	}
	fmStart, fmEnd, body := b.Start, b.End, b.Body
	d := &frontDoc{path: path, src: src, fmStart: fmStart, fmEnd: fmEnd, body: body, eol: detectEOL(src)}
	d.lineOff = lineOf(src, fmStart) - 1
	yml := src[fmStart:fmEnd]
	if i := invalidUTF8(yml); i >= 0 {
		return nil, Problems{{Path: path, Line: lineOf(src, fmStart+i), Msg: "front matter is not valid UTF-8"}}
	}
	// YAML also breaks lines at a bare CR, NEL, LS and PS; positions would
	// disagree with the file's LF lines.
	if i := oddBreak(yml); i >= 0 {
		return nil, Problems{{Path: path, Line: lineOf(src, fmStart+i), Msg: "front matter has a line break other than LF or CRLF (a bare CR, NEL, LS or PS)"}}
	}
	// A byte order mark inside: yaml.v3 reads one at a line's start as part
	// of the key or skips it, by where it falls in its 512-byte reads, so
	// the same line could parse one way before an edit and another after.
	if i := bytes.Index(yml, bom); i >= 0 {
		return nil, Problems{{Path: path, Line: lineOf(src, fmStart+i), Msg: "front matter holds a byte order mark (U+FEFF)"}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(yml, &root); err != nil {
		p := d.yamlProblem(err)
		if md := markdownStart(src, fmStart, fmEnd); md > 0 && p.Line >= md {
			// The closing --- is missing and a later one (a thematic
			// break) made the markdown notes part of the YAML.
			p.Line, p.Msg = md, "front matter is not closed: no --- line between the fields and the markdown here"
		}
		return nil, Problems{p}
	}
	// A "---" or "..." line inside would start a second YAML document,
	// which Unmarshal ignores and edits would write into; so would a "%"
	// line (a directive), which ends the first.
	for p := fmStart; p < fmEnd; p = lineEndAt(src, p) {
		if l := src[p:]; (bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) && (len(l) == 3 || isSpaceOrBreak(l[3])) {
			return nil, Problems{{Path: path, Line: lineOf(src, p), Msg: "front matter must be one YAML document (no --- or ... lines inside)"}}
		}
		if src[p] == '%' {
			return nil, Problems{{Path: path, Line: lineOf(src, p), Msg: "front matter must be one YAML document (no % directive lines inside)"}}
		}
	}
	d.lines = make([]int, 1, bytes.Count(yml, []byte{'\n'})+1)
	d.lines[0] = fmStart
	for i, c := range yml {
		if c == '\n' && fmStart+i+1 < fmEnd {
			d.lines = append(d.lines, fmStart+i+1)
		}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return d, nil // empty front matter: an empty ledger
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
		return nil, Problems{{Path: path, Line: d.fileLine(m), Msg: "front matter must be a block of key: value lines"}}
	}
	var probs Problems
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			probs = append(probs, Problem{path, d.fileLine(k), "keys must be plain strings"})
			continue
		}
		if first, dup := seen[k.Value]; dup {
			probs = append(probs, Problem{path, d.fileLine(k), fmt.Sprintf("duplicate key %s (first on line %d)", k.Value, first)})
			continue
		}
		seen[k.Value] = d.fileLine(k)
		e, err := d.locate(k, v)
		if err != nil {
			probs = append(probs, Problem{path, d.fileLine(k), err.Error()})
			continue
		}
		d.entries = append(d.entries, e)
	}
	for i := range d.entries {
		d.entries[i].limit = fmEnd
		if i+1 < len(d.entries) {
			d.entries[i].limit = d.entries[i+1].lineStart
		}
	}
	if len(probs) > 0 {
		return nil, capProblems(probs)
	}
	return d, nil
}

// locate finds the byte offsets of a top-level key and its value.
func (d *frontDoc) locate(k, v *yaml.Node) (entry, error) {
	e := entry{key: k, val: v}
	if k.Column != 1 {
		return e, fmt.Errorf("top-level key %s must start at column 1", k.Value)
	}
	e.keyOff = d.offset(k.Line, k.Column)
	e.lineStart = lineStartAt(d.src, e.keyOff)
	var kend int
	if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		kend = quotedEnd(d.src, e.keyOff, d.fmEnd)
	} else {
		kend = plainEnd(d.src, e.keyOff, d.fmEnd, false, true)
	}
	i := kend
	for i >= 0 && i < d.fmEnd && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	if i < 0 || i >= d.fmEnd || d.src[i] != ':' {
		return e, fmt.Errorf("cannot find the ':' after key %s", k.Value)
	}
	e.colonEnd = i + 1
	e.valOff = e.colonEnd
	if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "") && v.Line > 0 {
		e.valOff = d.offset(v.Line, v.Column)
	}
	e.decorated = v.Anchor != "" || v.Kind == yaml.AliasNode || v.Style&yaml.TaggedStyle != 0
	if pos := d.offset(v.Line, v.Column); v.Line > 0 && pos < d.fmEnd && strings.IndexByte("!&*", d.src[pos]) >= 0 {
		e.decorated = true // a tag yaml.v3 does not report, like a bare "!"
	}
	if e.decorated {
		// Edits would misplace bytes around a tag or anchor.
		if listKeys[k.Value] || scalarKeys[k.Value] {
			return e, fmt.Errorf("%s must not use anchors, aliases or tags", k.Value)
		}
	}
	return e, nil
}

// offset turns a YAML line and column (characters, 1-based) into a byte offset.
func (d *frontDoc) offset(line, col int) int {
	if line < 1 || line > len(d.lines) {
		return d.fmEnd
	}
	return runeOffset(d.src, d.lines[line-1], col)
}

func (d *frontDoc) fileLine(n *yaml.Node) int { return n.Line + d.lineOff }

// parserProblems are yaml.v3's parser (not scanner) errors: it reports
// their line 0-based.
var parserProblems = []string{
	"did not find expected", "found duplicate %", "found incompatible YAML document", "found undefined tag handle",
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlProblem maps a yaml.v3 syntax error to the file's line.
func (d *frontDoc) yamlProblem(err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		for _, p := range parserProblems {
			if strings.HasPrefix(msg, p) && !strings.HasPrefix(msg, "did not find expected comment") &&
				!strings.HasPrefix(msg, "did not find expected whitespace") && !strings.HasPrefix(msg, "did not find expected hex") &&
				!strings.HasPrefix(msg, "did not find expected alphabetic") && !strings.HasPrefix(msg, "did not find expected tag") {
				line++
				break
			}
		}
	} else if strings.Contains(msg, "control characters") {
		yml := d.src[d.fmStart:d.fmEnd]
		for i, r := range string(yml) {
			if !printable(r) {
				line = bytes.Count(yml[:i], []byte{'\n'}) + 1
				break
			}
		}
	}
	nlines := bytes.Count(d.src[d.fmStart:d.fmEnd], []byte{'\n'})
	if line > nlines && nlines > 0 {
		line = nlines
	}
	return Problem{Path: d.path, Line: line + d.lineOff, Msg: "invalid YAML: " + msg}
}

// bom is U+FEFF, the byte order mark, in UTF-8.
var bom = []byte("\ufeff")

// oddBreak returns the offset of the first line break in yml other than LF
// and CRLF (a bare CR, NEL, LS or PS), or -1.
func oddBreak(yml []byte) int {
	first := len(yml)
	// Each kind's first byte is searched for on its own: in a file with
	// none, each search is one fast scan.
	for _, lead := range []byte{'\r', 0xC2, 0xE2} {
		for off := 0; off < first; {
			i := bytes.IndexByte(yml[off:first], lead)
			if i < 0 {
				break
			}
			i += off
			var bad bool
			switch lead {
			case '\r':
				bad = i+1 == len(yml) || yml[i+1] != '\n'
			case 0xC2: // NEL is C2 85
				bad = i+1 < len(yml) && yml[i+1] == 0x85
			case 0xE2: // LS and PS are E2 80 A8 and E2 80 A9
				bad = i+2 < len(yml) && yml[i+1] == 0x80 && (yml[i+2] == 0xA8 || yml[i+2] == 0xA9)
			}
			if bad {
				first = i
				break
			}
			off = i + 1
		}
	}
	if first == len(yml) {
		return -1
	}
	return first
}

// find returns the entry for key, or nil.
func (d *frontDoc) find(key string) *entry {
	for i := range d.entries {
		if d.entries[i].key.Value == key {
			return &d.entries[i]
		}
	}
	return nil
}

// model checks each known key's shape and builds the Ledger.
func (d *frontDoc) model() (*Ledger, error) {
	l := &Ledger{Path: d.path, Format: FrontMatter, Src: d.src, Body: d.src[d.body:]}
	var probs Problems
	bad := func(n *yaml.Node, msg string) { probs = append(probs, Problem{d.path, d.fileLine(n), msg}) }
	for _, e := range d.entries {
		k, v := e.key.Value, e.val
		switch {
		case scalarKeys[k]:
			if v.Kind != yaml.ScalarNode {
				bad(e.key, k+" must be a string")
				continue
			}
			*l.Scalar(k) = scalarText(v)
		case k == KeyDecisions:
			if isEmptyValue(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				bad(e.key, "decisions must be a list of {decision, why, date} items")
				continue
			}
			for _, it := range v.Content {
				dec, ok := decisionOf(it)
				if !ok {
					bad(it, "decisions must be a list of {decision, why, date} items")
					continue
				}
				l.Decisions = append(l.Decisions, dec)
			}
		case listKeys[k]:
			if isEmptyValue(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				bad(e.key, k+" must be a list of strings")
				continue
			}
			items := make([]string, 0, len(v.Content))
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode || (it.Tag == "!!null" && it.Value == "") {
					bad(it, k+" must be a list of strings")
					continue
				}
				items = append(items, it.Value)
			}
			*l.List(k) = items
		}
	}
	if len(probs) > 0 {
		return nil, capProblems(probs)
	}
	if l.Stream == "" {
		l.Stream = sessionFromPath(d.path)
	}
	return l, nil
}

// scalarText is a scalar's text; null reads as empty.
func scalarText(v *yaml.Node) string {
	if v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

// isEmptyValue reports a list written as nothing, ~, null, "" or [].
func isEmptyValue(v *yaml.Node) bool {
	switch v.Kind {
	case yaml.ScalarNode:
		return v.Tag == "!!null" || v.Value == ""
	case yaml.SequenceNode:
		return len(v.Content) == 0
	}
	return false
}

// decisionOf reads one decisions item: a {decision, why, date} mapping, or a
// plain string taken as the decision alone.
func decisionOf(it *yaml.Node) (Decision, bool) {
	switch it.Kind {
	case yaml.ScalarNode:
		if it.Tag == "!!null" {
			return Decision{}, false
		}
		return Decision{Decision: it.Value}, true
	case yaml.MappingNode:
		var dec Decision
		has := false
		for i := 0; i+1 < len(it.Content); i += 2 {
			k, v := it.Content[i], it.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return Decision{}, false
			}
			switch k.Value {
			case "decision", "why", "date":
				if v.Kind != yaml.ScalarNode {
					return Decision{}, false
				}
			}
			switch k.Value {
			case "decision":
				dec.Decision, has = scalarText(v), true
			case "why":
				dec.Why = scalarText(v)
			case "date":
				dec.Date = scalarText(v)
			}
		}
		return dec, has
	}
	return Decision{}, false
}

// sessionFromPath names a session from its ledger file name:
// CONTINUITY_CLAUDE-<name>.md and CONTINUITY_<name>.md give <name>.
func sessionFromPath(path string) string {
	if path == "" {
		return ""
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	base = strings.TrimPrefix(base, "CONTINUITY_")
	return strings.TrimPrefix(base, "CLAUDE-")
}

// maxProblems bounds the problems reported for one ledger.
const maxProblems = 10

func capProblems(ps Problems) Problems {
	if len(ps) <= maxProblems {
		return ps
	}
	more := len(ps) - maxProblems
	ps = append(ps[:maxProblems:maxProblems], Problem{Path: ps[0].Path, Msg: fmt.Sprintf("and %d more problems", more)})
	return ps
}

// invalidUTF8 returns the offset of the first byte that is not UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w <= 1 {
			return i
		}
		i += w
	}
	return -1
}
