package ledger

// SplitFront finds the YAML front matter at the top of a markdown file: the
// one way ledgers and handoffs are split. It returns offsets into the
// source, never copies, so a caller can edit the YAML in place and leave
// every other byte as it was.

import (
	"bytes"
	"errors"
)

// ErrFrontNotClosed reports a file that opens front matter and never closes it.
var ErrFrontNotClosed = errors.New("front matter is not closed (no closing --- line)")

// FrontBlock locates front matter in its source.
type FrontBlock struct {
	Open  int  // start of the opening "---" line
	Start int  // first byte of the YAML: the line after Open
	End   int  // start of the closing line, one past the YAML
	Body  int  // first byte after the closing line: where the markdown starts
	Dots  bool // closed by "...", YAML's end of document, rather than "---"
}

// frontBOM is the UTF-8 byte order mark some editors put first.
const frontBOM = "\ufeff"

// SplitFront finds the front matter at the top of src: after an optional byte
// order mark and blank lines, a "---" line, then the YAML, then a closing
// "---" or "..." line (spaces around a delimiter are ignored, so
// "--- # a comment" is YAML, not a delimiter). found is false when src does
// not open with a "---" line; then it is all body. An opening line that is
// never closed gives ErrNotClosed with Open set.
//
// The delimiters are found as adrg/frontmatter finds them (a test holds
// the two to the same answers): lines trimmed of white space, blank lines
// skipped before the opening one, a last line without its line break never
// an opening one. It reads src once, in place: the library's reader copied
// the whole file, for each closing form, for every ledger and handoff a
// hook reads.
func SplitFront(src []byte) (b FrontBlock, found bool, err error) {
	off := 0
	if bytes.HasPrefix(src, []byte(frontBOM)) {
		off = len(frontBOM)
	}
	if b, ok := scan(src, off); ok {
		return b, true, nil
	}
	p := off
	for p < len(src) && isBlank(line(src, p)) {
		p = lineEnd(src, p)
	}
	if p >= len(src) || !bytes.Equal(bytes.TrimSpace(line(src, p)), []byte("---")) {
		return FrontBlock{}, false, nil
	}
	return FrontBlock{Open: p, Start: lineEnd(src, p)}, false, ErrFrontNotClosed
}

// scan finds the front matter of src[off:]: the first non-blank line must
// be "---"; the first line after it that is "---" or "..." closes it.
func scan(src []byte, off int) (FrontBlock, bool) {
	p := off
	for {
		l, next, last := nextLine(src, p)
		if last {
			return FrontBlock{}, false
		}
		p = next
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		if string(t) != "---" {
			return FrontBlock{}, false
		}
		start := p
		// Only a line holding "---" or "..." can close: go from one to
		// the next (where each comes next is kept, so that many of one
		// never make the other be searched for again and again).
		dashes, dots := -1, -1
		for {
			if dashes < p {
				dashes = indexFrom(src, p, "---")
			}
			if dots < p {
				dots = indexFrom(src, p, "...")
			}
			c := min(dashes, dots)
			if c == len(src) {
				return FrontBlock{}, false
			}
			p = bytes.LastIndexByte(src[:c], '\n') + 1
			l, next, last := nextLine(src, p)
			closing := p
			p = next
			if t := string(bytes.TrimSpace(l)); t == "---" || t == "..." {
				// Open is where the opening line starts, a byte order
				// mark included.
				open := bytes.LastIndexByte(src[:start-1], '\n') + 1
				return FrontBlock{Open: open, Start: start, End: closing, Body: p, Dots: t == "..."}, true
			}
			if last {
				return FrontBlock{}, false
			}
		}
	}
}

// indexFrom returns the offset of the first s in src at or after p, or
// len(src).
func indexFrom(src []byte, p int, s string) int {
	if i := bytes.Index(src[p:], []byte(s)); i >= 0 {
		return p + i
	}
	return len(src)
}

// nextLine returns the line at p with its line break, where the next one
// starts, and whether it is the last (no line break: what a reader's
// ReadBytes returns with io.EOF, which may be empty).
func nextLine(src []byte, p int) (line []byte, next int, last bool) {
	if i := bytes.IndexByte(src[p:], '\n'); i >= 0 {
		return src[p : p+i+1], p + i + 1, false
	}
	return src[p:], len(src), true
}

// YAML returns the front matter's YAML bytes.
func (b FrontBlock) YAML(src []byte) []byte { return src[b.Start:b.End] }

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
