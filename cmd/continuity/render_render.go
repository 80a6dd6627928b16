package main

// The terminal view of continuity's files for a person: a ledger's fields
// aligned, its lists marked, its markdown body styled by its structure
// (goldmark), the text kept as written.

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/continuity-md/continuity/ledger"
)

const (
	bold  = "\x1b[1m"
	dim   = "\x1b[2m"
	cyan  = "\x1b[36m"
	green = "\x1b[32m"
	reset = "\x1b[0m"
)

// styles are the escape sequences the renderer writes, the only ones a
// command's output may carry to a terminal.
var styles = []string{bold, dim, cyan, green, reset}

// Ledger writes a ledger for a person at a terminal: fields aligned,
// lists marked, the markdown body styled by its structure.
func Ledger(w io.Writer, l *ledger.Ledger) {
	fmt.Fprintf(w, "%s%s%s  %s%s%s\n", bold, l.Stream, reset, dim, l.Path, reset)
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%s%-10s%s %s\n", cyan, name, reset, value)
		}
	}
	list := func(name, mark string, items []string) {
		for i, it := range items {
			label := ""
			if i == 0 {
				label = name
			}
			fmt.Fprintf(w, "%s%-10s%s %s %s\n", cyan, label, reset, mark, it)
		}
	}
	field("goal", l.Goal)
	field("now", l.Now)
	list("next", "•", l.Next)
	list("done", green+"✓"+reset, l.Done)
	list("rules", "•", l.Constraints)
	for i, d := range l.Decisions {
		label := ""
		if i == 0 {
			label = "decisions"
		}
		s := d.Decision
		if d.Why != "" {
			s += dim + " — " + d.Why + reset
		}
		if d.Date != "" {
			s += dim + " (" + d.Date + ")" + reset
		}
		fmt.Fprintf(w, "%s%-10s%s • %s\n", cyan, label, reset, s)
	}
	list("questions", "?", l.Questions)
	list("files", "·", l.Files)
	field("updated", l.Updated)
	if body := bytes.TrimSpace(l.Body); len(body) > 0 {
		fmt.Fprintln(w)
		markdown(w, body)
	}
}

// HandoffLine writes the ledger's latest handoff under it, with how
// full the agent's context was ("" when the handoff does not say).
func HandoffLine(w io.Writer, path, size string) {
	if size != "" {
		size = dim + " (" + size + ")" + reset
	}
	fmt.Fprintf(w, "\n%s%-10s%s %s%s\n", cyan, "handoff", reset, path, size)
}

// markdown styles markdown by its block structure: headings bold,
// code dimmed, list items bulleted; text is kept as written.
func markdown(w io.Writer, src []byte) {
	doc := ledger.ParseMarkdown(src)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		raw := blockText(n, src)
		switch n.Kind() {
		case ast.KindHeading:
			fmt.Fprintf(w, "%s%s%s\n\n", bold, strings.TrimLeft(raw, "# "), reset)
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			fmt.Fprintf(w, "%s%s%s\n\n", dim, raw, reset)
		default:
			fmt.Fprintf(w, "%s\n\n", raw)
		}
	}
}

// blockText returns a block's source lines (for a fenced block, with its fences).
func blockText(n ast.Node, src []byte) string {
	lines := n.Lines()
	if lines == nil || lines.Len() == 0 {
		if n.HasChildren() {
			var parts []string
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				parts = append(parts, blockText(c, src))
			}
			if n.Kind() == ast.KindListItem {
				return "• " + strings.Join(parts, "\n  ")
			}
			return strings.Join(parts, "\n")
		}
		return ""
	}
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	s := strings.TrimRight(b.String(), "\n")
	return s
}
