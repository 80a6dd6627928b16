package ledger

// Parsing a long front matter in pieces, on more than one core.
//
// A line that starts at column 1 with a key's first character ends every
// value of the block mapping above it: a block scalar's lines and a plain
// scalar's continuations are indented, and a quoted scalar or a flow
// collection still open there would leave the text before that line unable
// to parse on its own. So when the text before such a line and the text
// from it each parse on their own as a block mapping, the whole parses as
// their keys in order, with the same nodes (moved down by the lines
// before). An alias to an anchor in another piece, or anything else the
// pieces cannot show, makes a piece fail; then the whole is parsed as one,
// which also gives the error and its line.

import (
	"bytes"
	"runtime"
	"sync"

	"go.yaml.in/yaml/v3"
)

// splitParseMin is the size of front matter worth parsing in pieces.
const splitParseMin = 16 << 10

// parseYAML parses a front matter's YAML into its document node.
func parseYAML(yml []byte) (yaml.Node, error) {
	if n := min(runtime.GOMAXPROCS(0), 4); n > 1 && len(yml) >= splitParseMin {
		if root, ok := parseInPieces(yml, n); ok {
			return root, nil
		}
	}
	var root yaml.Node
	err := yaml.Unmarshal(yml, &root)
	return root, err
}

// A pieceCut is where a piece starts: a top-level key's line, or (item) the
// line of a block list's "-" at column col+1, the list being the value of
// the last key before it.
type pieceCut struct {
	at, col int
	item    bool
}

// listHead is what an item cut's piece starts with: a key whose value the
// piece's items become, so that they parse as they do after the list's own
// key. The key itself is dropped.
const listHead = "x:\n"

// parseInPieces parses yml as up to n pieces, cut at top-level key lines and
// list item lines, at the same time; ok is false when it could not (then
// parse it whole).
func parseInPieces(yml []byte, n int) (yaml.Node, bool) {
	// A parse of the whole reads only its first document, where pieces
	// would read on; and it breaks lines where pieces count none.
	if docMarker(yml) || oddBreak(yml) >= 0 {
		return yaml.Node{}, false
	}
	cuts := pieceCuts(yml, n)
	if len(cuts) < 3 {
		return yaml.Node{}, false
	}
	docs := make([]yaml.Node, len(cuts)-1)
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i := range docs {
		text := yml[cuts[i].at:cuts[i+1].at]
		if cuts[i].item {
			text = append([]byte(listHead), text...)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = yaml.Unmarshal(text, &docs[i])
		}()
	}
	wg.Wait()
	root := docs[0]
	if errs[0] != nil || len(root.Content) != 1 || !plainBlockMapping(root.Content[0]) {
		return yaml.Node{}, false
	}
	m := *root.Content[0]
	m.Content = append([]*yaml.Node(nil), m.Content...)
	line := 0
	for i := 1; i < len(docs); i++ {
		line += countLines(yml[cuts[i-1].at:cuts[i].at])
		d := docs[i]
		if errs[i] != nil || len(d.Content) != 1 || !plainBlockMapping(d.Content[0]) {
			return yaml.Node{}, false
		}
		pairs := d.Content[0].Content
		shift := line
		if cuts[i].item {
			// The piece's first value goes on the list before it: both
			// block lists at the cut's column, the piece's starting on
			// the cut's line, the one before still open at its end.
			shift--
			list, more := m.Content[len(m.Content)-1], pairs[1]
			if !blockList(list, cuts[i].col) || !blockList(more, cuts[i].col) || more.Line != 2 {
				return yaml.Node{}, false
			}
			for _, it := range more.Content {
				moveDown(it, shift)
			}
			list.Content = append(list.Content, more.Content...)
			pairs = pairs[2:]
		}
		for _, c := range pairs {
			moveDown(c, shift)
		}
		m.Content = append(m.Content, pairs...)
	}
	root.Content = []*yaml.Node{&m}
	return root, true
}

// pieceCuts returns where up to n pieces of about the same size start, and
// the end of yml.
func pieceCuts(yml []byte, n int) []pieceCut {
	cuts := []pieceCut{{}}
	for i := 1; i < n; i++ {
		c := cutNear(yml, len(yml)*i/n)
		if c.at <= cuts[len(cuts)-1].at || c.at >= len(yml) {
			continue
		}
		cuts = append(cuts, c)
	}
	return append(cuts, pieceCut{at: len(yml)})
}

// blockList reports whether n is a block list (with no anchor) whose "-"
// is at column col+1.
func blockList(n *yaml.Node, col int) bool {
	return n.Kind == yaml.SequenceNode && n.Style == 0 && n.Anchor == "" && n.Column == col+1 && len(n.Content) > 0
}

// plainBlockMapping reports whether a piece's top node is a block mapping
// at column 1 with nothing on it (a tag or anchor only one piece would
// carry).
func plainBlockMapping(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && n.Style == 0 && n.Anchor == "" && n.Column == 1 && len(n.Content) > 0
}

// cutNear returns the first cut at or after off: a line that begins, at
// column 1, with a character a plain or quoted key can start with (never a
// space, tab, "-", "#", or any other YAML indicator); or a line of spaces,
// "- " and a value, its "-" at the column of the first such line after the
// last key line before it (likely an item of that key's list, which the
// parse then checks). At the end of yml it returns len(yml).
func cutNear(yml []byte, off int) pieceCut {
	p := off
	if p > 0 && yml[p-1] != '\n' {
		p = lineEndAt(yml, p)
	}
	col := -1 // the column of the list's "-", once known
	for p < len(yml) {
		if keyStart(yml[p]) {
			return pieceCut{at: p}
		}
		if c, ok := itemLine(yml, p); ok {
			if col < 0 {
				col = listColumn(yml, p)
			}
			if c == col {
				return pieceCut{at: p, col: c, item: true}
			}
		}
		p = lineEndAt(yml, p)
	}
	return pieceCut{at: len(yml)}
}

// keyStart reports whether a line starting with c may start a top-level key.
func keyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '"' || c == '\''
}

// itemLine reports whether the line at p is spaces, "- " and a value, and
// the column (0-based) of its "-".
func itemLine(yml []byte, p int) (int, bool) {
	i := p
	for i < len(yml) && yml[i] == ' ' {
		i++
	}
	if i+2 < len(yml) && yml[i] == '-' && yml[i+1] == ' ' && !isSpaceOrBreak(yml[i+2]) {
		return i - p, true
	}
	return 0, false
}

// listColumn returns the column of the "-" of the first item line after the
// last key line before p, or -1.
func listColumn(yml []byte, p int) int {
	k := p
	for k > 0 {
		k = lineStartAt(yml, k-1)
		if keyStart(yml[k]) {
			break
		}
	}
	for q := lineEndAt(yml, k); q <= p && q < len(yml); q = lineEndAt(yml, q) {
		if c, ok := itemLine(yml, q); ok {
			return c
		}
	}
	return -1
}

// docMarker reports whether a line of yml starts a document ("---") or
// ends one ("...").
func docMarker(yml []byte) bool {
	for p := 0; p < len(yml); p = lineEndAt(yml, p) {
		if l := yml[p:]; (bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) && (len(l) == 3 || isSpaceOrBreak(l[3])) {
			return true
		}
	}
	return false
}

// countLines counts the lines of b (which ends with a line break).
func countLines(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// moveDown adds lines to the line of n and every node in it.
func moveDown(n *yaml.Node, lines int) {
	if n.Line > 0 {
		n.Line += lines
	}
	for _, c := range n.Content {
		moveDown(c, lines)
	}
}
