package ledger

// ParseMarkdown parses the block structure of markdown (headings, lists,
// quotes, code), the one way ledgers, handoffs and the terminal renderer
// read markdown. It never parses inline markup (emphasis, links, HTML):
// nothing here needs it, and goldmark's inline parsers take memory for
// every delimiter. Nesting is bounded before goldmark sees the text: a
// committed file (a teammate's handoff, a crafted ledger) may nest a
// hundred thousand levels in a few hundred kilobytes.

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// blocks parses block structure only: goldmark's block parsers and
// paragraph transformers, no inline parsers.
var blocks = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// ParseMarkdown returns src's block tree. Its segments index src itself: the
// bounded copy goldmark reads has the same length.
func ParseMarkdown(src []byte) ast.Node {
	return blocks.Parse(text.NewReader(boundMarkdown(src)))
}

// Max is the deepest nesting a parser is given; no ledger or handoff a
// person or continuity writes comes near it.
const Max = 64

// boundMarkdown returns src, or a copy of the same length in which every
// container marker (a block quote's '>', a list item's bullet or number)
// nested deeper than Max, on one line or by indentation, is replaced by a
// backslash: the rest of its line is then plain text at depth Max. A '['
// opened past Max unclosed ones in a paragraph (link text nested in link
// text) becomes a space. Block parsing keeps track of brackets for link
// reference definitions.
func boundMarkdown(src []byte) []byte {
	out := src
	own := func() {
		if len(out) > 0 && &out[0] == &src[0] {
			out = bytes.Clone(src)
		}
	}
	open := 0 // '[' not yet closed in the paragraph
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n') + start + 1
		if end <= start {
			end = len(src)
		}
		if at := tooDeep(src[start:end]); at >= 0 {
			own()
			out[start+at] = '\\'
		}
		if len(bytes.TrimSpace(src[start:end])) == 0 {
			open = 0
		}
		for i := start; i < end; i++ {
			switch src[i] {
			case '\\':
				i++
			case '[':
				if open++; open > Max {
					own()
					out[i] = ' '
				}
			case ']':
				open = max(open-1, 0)
			}
		}
		start = end
	}
	return out
}

// tooDeep returns the offset in line of the first container marker past
// Max levels or at column 2*Max or past it (a level of a list is two
// columns), or -1.
func tooDeep(line []byte) int {
	depth, col := 0, 0
	for i := 0; i < len(line); {
		switch line[i] {
		case ' ':
			col++
			i++
			continue
		case '\t':
			col += 4
			i++
			continue
		}
		n := marker(line[i:])
		if n == 0 {
			return -1
		}
		if depth++; depth > Max || col >= 2*Max {
			return i
		}
		i += n
		col += n
	}
	return -1
}

// marker returns the length of the container marker s starts with, or 0:
// '>', a bullet ('-', '*', '+') or an ordered item's number ("12." or
// "12)") followed by a space, a tab or the line's end.
func marker(s []byte) int {
	n := 0
	switch {
	case s[0] == '>':
		return 1
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		n = 1
	default:
		for n < len(s) && n < 9 && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || s[n] != '.' && s[n] != ')' {
			return 0
		}
		n++
	}
	if n == len(s) || s[n] == ' ' || s[n] == '\t' || s[n] == '\n' || s[n] == '\r' {
		return n
	}
	return 0
}
