package ledger

// Byte-level helpers over YAML source text: where a line starts and ends,
// where a scalar or flow collection written in the source ends, and how to
// write a new value so that it reads back as exactly the given string.

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// lineStartAt returns the offset of the start of the line holding off.
func lineStartAt(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEndAt returns the offset just past the line ending of the line holding
// off (or len(src) if the line has none).
func lineEndAt(src []byte, off int) int {
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

// textEnd returns the end of a line's text: before "\r\n" or "\n".
func textEnd(src []byte, lineStart, lineEnd int) int {
	e := lineEnd
	if e > lineStart && src[e-1] == '\n' {
		e--
		if e > lineStart && src[e-1] == '\r' {
			e--
		}
	}
	return e
}

// lineKind classifies a source line for extent scanning.
type lineKind int

const (
	lineBlank   lineKind = iota // empty or whitespace only
	lineComment                 // only a comment
	lineContent
)

// classify returns the kind of the line [start, end) and its indentation
// (leading spaces and tabs, in bytes).
func classify(src []byte, start, end int) (lineKind, int) {
	i := start
	for i < end && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	switch {
	case i >= end || src[i] == '\n' || src[i] == '\r':
		return lineBlank, i - start
	case src[i] == '#':
		return lineComment, i - start
	}
	return lineContent, i - start
}

// lastContentLineEnd scans the lines of [from, limit) and returns the offset
// just past the last line that holds content for a value whose own lines are
// indented more than parentIndent (or, with anyIndent, holds any non-comment
// content). Trailing blank and comment lines are not part of the value.
// It returns from when no line qualifies.
func lastContentLineEnd(src []byte, from, limit, parentIndent int, anyIndent bool) int {
	end := from
	for p := from; p < limit; {
		le := lineEndAt(src, p)
		if le > limit {
			le = limit
		}
		kind, ind := classify(src, p, le)
		if kind == lineContent {
			if !anyIndent && ind <= parentIndent {
				break
			}
			end = le
		}
		p = le
	}
	return end
}

// quotedEnd returns the offset just past the closing quote of the quoted
// scalar starting at start (src[start] is ' or "), or -1.
func quotedEnd(src []byte, start, limit int) int {
	q := src[start]
	for i := start + 1; i < limit; i++ {
		c := src[i]
		switch {
		case q == '"' && c == '\\':
			i++
		case c == q && q == '\'' && i+1 < limit && src[i+1] == '\'':
			i++
		case c == q:
			return i + 1
		}
	}
	return -1
}

// plainEnd returns the end of a plain scalar starting at start that stays on
// its line: before an inline comment, before trailing blanks and, in flow
// context, before a flow indicator. For a mapping key it also stops at ": ".
func plainEnd(src []byte, start, limit int, flow, key bool) int {
	end := start
	for i := start; i < limit; i++ {
		c := src[i]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '#' && i > start && (src[i-1] == ' ' || src[i-1] == '\t') {
			break
		}
		if flow && (c == ',' || c == ']' || c == '}' || c == '[' || c == '{') {
			break
		}
		if c == ':' && (key || flow) && (i+1 >= limit || isSpaceOrBreak(src[i+1]) || (flow && strings.IndexByte(",[]{}", src[i+1]) >= 0)) {
			break
		}
		if c != ' ' && c != '\t' {
			end = i + 1
		}
	}
	return end
}

func isSpaceOrBreak(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// flowEnd returns the offset just past the bracket closing the flow
// collection that opens at start, or -1.
func flowEnd(src []byte, start, limit int) int {
	depth := 0
	for i := start; i < limit; i++ {
		switch c := src[i]; c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"', '\'':
			// A quote only opens a scalar at the start of one.
			if i > start && !strings.ContainsRune(" \t\n[{,:", rune(src[i-1])) {
				continue
			}
			e := quotedEnd(src, i, limit)
			if e < 0 {
				return -1
			}
			i = e - 1
		case '#':
			if isSpaceOrBreak(src[i-1]) {
				i = lineEndAt(src, i) - 1
			}
		}
	}
	return -1
}

// scalarEnd returns the end of the scalar node n written at off, within
// [off, limit). flow tells whether it sits inside a flow collection;
// parentIndent is the indentation its continuation lines must exceed.
func scalarEnd(src []byte, n *yaml.Node, off, limit int, flow bool, parentIndent int) int {
	switch {
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		if e := quotedEnd(src, off, limit); e >= 0 {
			return e
		}
		return off
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		hdrEnd := lineEndAt(src, off)
		if hdrEnd > limit {
			hdrEnd = limit
		}
		end := lastContentLineEnd(src, hdrEnd, limit, parentIndent, false)
		if end == hdrEnd {
			return textEnd(src, off, hdrEnd)
		}
		return textEnd(src, lineStartAt(src, end-1), end)
	case n.Value == "" && n.Tag == "!!null":
		return off
	}
	end := plainEnd(src, off, limit, flow, false)
	if flow {
		// Inside [ ] or { } a plain scalar goes on past a line break, up to
		// the next indicator or comment: "[a, b\n  c]" holds "b c".
		for {
			p := end
			for p < limit && (src[p] == ' ' || src[p] == '\t') {
				p++
			}
			if p >= limit || (src[p] != '\n' && src[p] != '\r') {
				return end
			}
			for p < limit && (src[p] == ' ' || src[p] == '\t' || src[p] == '\n' || src[p] == '\r') {
				p++
			}
			if p >= limit || strings.IndexByte(",[]{}#:", src[p]) >= 0 {
				return end
			}
			next := plainEnd(src, p, limit, true, false)
			if next <= p {
				return end
			}
			end = next
		}
	}
	// Continuation lines of a multi-line plain scalar.
	for p := lineEndAt(src, off); p < limit; {
		le := lineEndAt(src, p)
		if le > limit {
			le = limit
		}
		kind, ind := classify(src, p, le)
		if kind == lineComment || (kind == lineContent && ind <= parentIndent) {
			break
		}
		if kind == lineContent {
			end = plainEnd(src, p+ind, le, false, false)
		}
		p = le
	}
	return end
}

// printable reports whether r may appear unescaped in a YAML stream.
func printable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0x20 && r <= 0x7e:
		return true
	case r == 0x85, r == 0x2028, r == 0x2029, r == 0xfeff:
		return false // read as line breaks or a byte order mark
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

// needsEscape reports whether s holds characters only a double-quoted
// scalar can carry.
func needsEscape(s string) bool {
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || !printable(r) {
			return true
		}
	}
	return false
}

var yaml11Words = map[string]bool{
	"~": true, "null": true, "true": true, "false": true, "yes": true, "no": true,
	"on": true, "off": true, "y": true, "n": true, ".inf": true, "-.inf": true, "+.inf": true, ".nan": true,
}

// plainOK reports whether s can be written as a plain scalar that every YAML
// reader takes as the string s (flow: inside a flow collection).
func plainOK(s string, flow bool) bool {
	if s == "" || needsEscape(s) || strings.TrimSpace(s) != s {
		return false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) {
		return false
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, " #") {
		return false
	}
	if flow && strings.ContainsAny(s, ",[]{}") {
		return false
	}
	if yaml11Words[strings.ToLower(s)] || looksNumeric(s) {
		return false
	}
	if s == "---" || s == "..." {
		return false
	}
	// The final word goes to the YAML reader itself, with the value where
	// it will be: after a key, or inside [ ] (where "0?" does not parse).
	doc := "k: " + s + "\n"
	if flow {
		doc = "k: [" + s + "]\n"
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		return false
	}
	if len(n.Content) != 1 || len(n.Content[0].Content) != 2 {
		return false
	}
	v := n.Content[0].Content[1]
	if flow {
		if v.Kind != yaml.SequenceNode || len(v.Content) != 1 {
			return false
		}
		v = v.Content[0]
	}
	return v.Kind == yaml.ScalarNode && v.Value == s && (v.Tag == "!!str" || v.Tag == "!!timestamp")
}

func looksNumeric(s string) bool {
	t := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseInt(t, 0, 64); err == nil {
		return true
	}
	return false
}

// doubleQuoted writes s as a double-quoted scalar, escaping what needs it.
func doubleQuoted(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if printable(r) {
				b.WriteRune(r)
			} else if r <= 0xff {
				b.WriteString(`\x` + hex2(int(r)))
			} else {
				b.WriteString(`\u` + hex2(int(r>>8)) + hex2(int(r&0xff)))
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex2(v int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>4&0xf], digits[v&0xf]})
}

// singleQuoted writes s single-quoted, or reports false when it cannot.
func singleQuoted(s string) (string, bool) {
	if needsEscape(s) {
		return "", false
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'", true
}

// blockLiteral writes s as a literal block scalar whose lines are indented by
// indent, or reports false when a literal cannot carry s exactly.
func blockLiteral(s, indent, eol string) (string, bool) {
	if !strings.Contains(strings.TrimSuffix(s, "\n"), "\n") || strings.HasSuffix(s, "\n\n") {
		return "", false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !printable(r) || r == '\r' {
			return "", false
		}
	}
	chomp := "-"
	body := s
	if strings.HasSuffix(s, "\n") {
		chomp = ""
		body = strings.TrimSuffix(s, "\n")
	}
	lines := strings.Split(body, "\n")
	header := "|"
	first := true
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "---" || t == "..." {
			return "", false // would read as a front matter or document delimiter
		}
		if l != "" && strings.Trim(l, " ") == "" {
			return "", false
		}
		if first && l != "" {
			first = false
			if l[0] == ' ' || l[0] == '\t' {
				if len(indent) > 9 {
					return "", false
				}
				header += strconv.Itoa(len(indent))
			}
		}
	}
	var b strings.Builder
	b.WriteString(header + chomp)
	for _, l := range lines {
		b.WriteString(eol)
		if l != "" {
			b.WriteString(indent + l)
		}
	}
	return b.String(), true
}

// scalarStyle is how a new scalar should be written.
type scalarStyle int

const (
	styleAuto scalarStyle = iota // plain when possible, else quoted
	styleDouble
	styleSingle
	styleBlock
)

// formatScalar writes value as a YAML scalar. flow is for items inside a
// flow collection; blockIndent and eol serve multi-line block literals,
// which are only used when blockIndent is not empty.
func formatScalar(value string, style scalarStyle, flow bool, blockIndent, eol string) string {
	if (style == styleBlock || (style == styleAuto && strings.Contains(value, "\n"))) && !flow && blockIndent != "" {
		if s, ok := blockLiteral(value, blockIndent, eol); ok {
			return s
		}
	}
	switch style {
	case styleDouble:
		return doubleQuoted(value)
	case styleSingle:
		if s, ok := singleQuoted(value); ok {
			return s
		}
		return doubleQuoted(value)
	}
	if plainOK(value, flow) {
		return value
	}
	return doubleQuoted(value)
}

// styleOf returns the style a new value should take to keep n's.
func styleOf(n *yaml.Node) scalarStyle {
	switch {
	case n == nil:
		return styleAuto
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return styleDouble
	case n.Style&yaml.SingleQuotedStyle != 0:
		return styleSingle
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return styleBlock
	}
	return styleAuto
}

// runeOffset returns the byte offset of the col-th character (1-based) of
// the line starting at lineStart.
func runeOffset(src []byte, lineStart, col int) int {
	off := lineStart
	for c := 1; c < col && off < len(src); c++ {
		if src[off] == '\n' {
			break
		}
		_, w := utf8.DecodeRune(src[off:])
		off += w
	}
	return off
}
