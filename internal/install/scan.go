package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error reports a settings file continuity will not edit: JSON that Claude
// Code would reject, or hooks of the wrong shape. Line and Column (in
// characters) are 1-based. Error() reads "LINE:COLUMN: MESSAGE", so a caller
// can prefix the file name: fmt.Errorf("%s:%w", path, err).
type Error struct {
	Line, Column int
	Msg          string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// node is one JSON value, kept as offsets into the source.
type node struct {
	kind       byte // '{', '[', '"', or 0 for numbers and literals
	start, end int  // the value's bytes are src[start:end]
	keys       []*node
	vals       []*node // object member values or array elements
}

// childStart is where child i begins: its key for an object member.
func (n *node) childStart(i int) int {
	if n.kind == '{' {
		return n.keys[i].start
	}
	return n.vals[i].start
}

// doc is a parsed settings file.
type doc struct {
	src    []byte
	root   *node
	events []string // the hook events an edit or a status looks at
}

// parse validates src as strict JSON (as Claude Code reads it) and indexes it.
func parse(src []byte) (*doc, error) {
	var v any
	if err := json.Unmarshal(src, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, syntaxError(src, se)
		}
		return nil, &Error{Line: 1, Column: 1, Msg: err.Error()}
	}
	p := scanner{src: src}
	p.space()
	root := p.value()
	return &doc{src: src, root: root}, nil
}

// syntaxError turns encoding/json's error (with the count of bytes read when
// it was found) into a positioned error naming the usual culprits.
func syntaxError(src []byte, se *json.SyntaxError) *Error {
	at := min(max(int(se.Offset)-1, 0), len(src))
	if int(se.Offset) >= len(src) && strings.Contains(se.Error(), "unexpected end") {
		at = len(src) // point just past the last character
	}
	e := posError(src, at, se.Error())
	const strict = " (Claude Code reads settings as strict JSON)"
	switch {
	case at < len(src) && src[at] == '/':
		e.Msg = "comments are not allowed" + strict
	case at < len(src) && (src[at] == '}' || src[at] == ']') && lastNonSpace(src[:at]) == ',':
		e.Msg = "trailing comma before " + string(src[at]) + strict
	case at < 3 && bytes.HasPrefix(src, []byte("\xEF\xBB\xBF")):
		e = posError(src, 0, "byte order mark at the start"+strict)
	}
	e.Msg = "invalid JSON: " + e.Msg
	return e
}

func lastNonSpace(b []byte) byte {
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}

// posError builds an Error at byte offset at, counting columns in characters.
func posError(src []byte, at int, msg string) *Error {
	line, col := 1, 1
	for i := 0; i < at && i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return &Error{Line: line, Column: col, Msg: msg}
}

// scanner indexes JSON already checked by encoding/json.
type scanner struct {
	src []byte
	pos int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *scanner) space() {
	for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		p.pos++
	}
}

func (p *scanner) value() *node {
	n := &node{start: p.pos}
	if p.pos >= len(p.src) {
		n.end = p.pos
		return n
	}
	switch c := p.src[p.pos]; c {
	case '{', '[':
		n.kind = c
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		p.pos++
		p.space()
		for p.pos < len(p.src) && p.src[p.pos] != closing {
			if c == '{' {
				n.keys = append(n.keys, p.value())
				p.space()
				p.pos++ // ':'
				p.space()
			}
			n.vals = append(n.vals, p.value())
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				p.space()
			}
		}
		p.pos++
	case '"':
		n.kind = '"'
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] != '"' {
			if p.src[p.pos] == '\\' {
				p.pos++
			}
			p.pos++
		}
		p.pos++
	default:
		for p.pos < len(p.src) && !isSpace(p.src[p.pos]) && !bytes.ContainsAny(p.src[p.pos:p.pos+1], ",]}") {
			p.pos++
		}
	}
	n.end = min(p.pos, len(p.src))
	return n
}

// str decodes a string node; ok is false for other kinds.
func (d *doc) str(n *node) (s string, ok bool) {
	if n == nil || n.kind != '"' {
		return "", false
	}
	if err := json.Unmarshal(d.src[n.start:n.end], &s); err != nil {
		return "", false
	}
	return s, true
}

// member returns the index of key in object n, or -1; a key given twice
// is an error, since which one Claude Code honours is not ours to guess.
func (d *doc) member(n *node, key string) (int, error) {
	idx := -1
	for i, k := range n.keys {
		if s, _ := d.str(k); s == key {
			if idx >= 0 {
				return -1, posError(d.src, k.start, fmt.Sprintf("duplicate key %q", key))
			}
			idx = i
		}
	}
	return idx, nil
}
