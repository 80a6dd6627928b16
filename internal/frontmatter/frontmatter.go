// Package frontmatter finds the YAML front matter at the top of a markdown
// file, the one way ledgers and handoffs are split. It returns offsets into
// the source, never copies, so a caller can edit the YAML in place and leave
// every other byte as it was.
package frontmatter

import (
	"bytes"
	"errors"

	adrg "github.com/adrg/frontmatter"
)

// ErrNotClosed reports a file that opens front matter and never closes it.
var ErrNotClosed = errors.New("front matter is not closed (no closing --- line)")

// Block locates front matter in its source.
type Block struct {
	Open  int  // start of the opening "---" line
	Start int  // first byte of the YAML: the line after Open
	End   int  // start of the closing line, one past the YAML
	Body  int  // first byte after the closing line: where the markdown starts
	Dots  bool // closed by "...", YAML's end of document, rather than "---"
}

// bom is the UTF-8 byte order mark some editors put first.
const bom = "\ufeff"

// Split finds the front matter at the top of src: after an optional byte
// order mark and blank lines, a "---" line, then the YAML, then a closing
// "---" or "..." line (spaces around a delimiter are ignored, so
// "--- # a comment" is YAML, not a delimiter). found is false when src does
// not open with a "---" line; then it is all body. An opening line that is
// never closed gives ErrNotClosed with Open set.
//
// The delimiters are found by adrg/frontmatter, once for each closing
// form; the YAML it hands back is located in src to give offsets.
func Split(src []byte) (b Block, found bool, err error) {
	off := 0
	if bytes.HasPrefix(src, []byte(bom)) {
		off = len(bom)
	}
	text := src[off:]
	for _, end := range []string{"---", "..."} {
		if end == "..." && !bytes.Contains(text, []byte("...")) {
			continue // no line can close it so: spare a second read of the whole text
		}
		var data []byte
		called := false
		format := &adrg.Format{Start: "---", End: end, Unmarshal: func(d []byte, _ any) error {
			data, called = d, true
			return nil
		}}
		rest, perr := adrg.Parse(bytes.NewReader(text), nil, format)
		if perr != nil || !called {
			continue
		}
		body := len(src) - len(rest)
		closing := lineStart(src, body-1)
		start := closing - len(data)
		if start <= off || !bytes.Equal(src[start:closing], data) {
			continue
		}
		c := Block{Open: lineStart(src, start-1), Start: start, End: closing, Body: body, Dots: end == "..."}
		if !found || c.Body < b.Body {
			b, found = c, true
		}
	}
	if found {
		return b, true, nil
	}
	p := off
	for p < len(src) && isBlank(line(src, p)) {
		p = lineEnd(src, p)
	}
	if p >= len(src) || !bytes.Equal(bytes.TrimSpace(line(src, p)), []byte("---")) {
		return Block{}, false, nil
	}
	return Block{Open: p, Start: lineEnd(src, p)}, false, ErrNotClosed
}

// lineStart returns the start of the line that holds offset i.
func lineStart(src []byte, i int) int {
	if i < 0 {
		return 0
	}
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// YAML returns the front matter's YAML bytes.
func (b Block) YAML(src []byte) []byte { return src[b.Start:b.End] }

// line returns the line starting at p, with its line break.
func line(src []byte, p int) []byte { return src[p:lineEnd(src, p)] }

// lineEnd returns the offset just past the newline that ends the line
// holding p (or len(src)).
func lineEnd(src []byte, p int) int {
	if i := bytes.IndexByte(src[p:], '\n'); i >= 0 {
		return p + i + 1
	}
	return len(src)
}

func isBlank(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }
