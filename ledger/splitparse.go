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

// parseInPieces parses yml as up to n pieces cut at top-level key lines,
// at the same time; ok is false when it could not (then parse it whole).
func parseInPieces(yml []byte, n int) (yaml.Node, bool) {
	// A parse of the whole reads only its first document, where pieces
	// would read on; and it breaks lines where pieces count none.
	if docMarker(yml) || oddBreak(yml) >= 0 {
		return yaml.Node{}, false
	}
	cuts := []int{0}
	for i := 1; i < n; i++ {
		c := keyLineNear(yml, len(yml)*i/n)
		if c <= cuts[len(cuts)-1] || c >= len(yml) {
			continue
		}
		cuts = append(cuts, c)
	}
	if len(cuts) < 2 {
		return yaml.Node{}, false
	}
	cuts = append(cuts, len(yml))
	docs := make([]yaml.Node, len(cuts)-1)
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = yaml.Unmarshal(yml[cuts[i]:cuts[i+1]], &docs[i])
		}()
	}
	wg.Wait()
	root := docs[0]
	if errs[0] != nil || len(root.Content) != 1 {
		return yaml.Node{}, false
	}
	m := *root.Content[0]
	if !plainBlockMapping(&m) {
		return yaml.Node{}, false
	}
	m.Content = append([]*yaml.Node(nil), m.Content...)
	line := 0
	for i := 1; i < len(docs); i++ {
		line += countLines(yml[cuts[i-1]:cuts[i]])
		d := docs[i]
		if errs[i] != nil || len(d.Content) != 1 || !plainBlockMapping(d.Content[0]) {
			return yaml.Node{}, false
		}
		for _, c := range d.Content[0].Content {
			moveDown(c, line)
		}
		m.Content = append(m.Content, d.Content[0].Content...)
	}
	root.Content = []*yaml.Node{&m}
	return root, true
}

// plainBlockMapping reports whether a piece's top node is a block mapping
// at column 1 with nothing on it (a tag or anchor only one piece would
// carry).
func plainBlockMapping(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && n.Style == 0 && n.Anchor == "" && n.Column == 1 && len(n.Content) > 0
}

// keyLineNear returns the start of the first line at or after off that
// begins, at column 1, with a character a plain or quoted key can start
// with (never a space, tab, "-", "#", or any other YAML indicator), or
// len(yml).
func keyLineNear(yml []byte, off int) int {
	p := off
	if p > 0 && yml[p-1] != '\n' {
		p = lineEndAt(yml, p)
	}
	for p < len(yml) {
		if c := yml[p]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '"' || c == '\'' {
			return p
		}
		p = lineEndAt(yml, p)
	}
	return len(yml)
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
func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

// moveDown adds lines to the line of n and every node in it.
func moveDown(n *yaml.Node, lines int) {
	if n.Line > 0 {
		n.Line += lines
	}
	for _, c := range n.Content {
		moveDown(c, lines)
	}
}
