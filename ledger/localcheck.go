package ledger

// Checking an edit's result without parsing the whole ledger again.
//
// An edit changes a few ranges of a ledger that parsed; every other byte is
// the same. The result is cut into chunks at lines where the parser's state
// is known from the first parse and depends on nothing before: the start of
// a top-level key's line (the root mapping expects a key), and the start of
// a block list item's line (the list expects its next "-"). Each chunk that
// holds a change runs from such a cut to the start of a top-level key's line
// (or the end of the front matter), where a key at column 1 ends whatever
// the chunk opened. Such a chunk is parsed on its own, behind its key for an
// item cut; the bytes between chunks are the first parse's, so they parse as
// they did. The result's model is then the first parse's with the chunks'
// entries in place of the ones they cover. Anything this reasoning does not
// cover (anchors and aliases, which reach across chunks; a cut whose first
// line changed; a front matter whose delimiters moved) is left to a full
// parse.

import (
	"bytes"
	"slices"

	"go.yaml.in/yaml/v3"
)

// A change is one splice of a ledger: src[start:end] became text.
type change struct {
	start, end int
	text       []byte
}

// diffChange is the one change that turns base into x: what lies between
// their common prefix and their common suffix.
func diffChange(base, x []byte) change {
	p := commonPrefix(base, x)
	s := commonSuffix(base[p:], x[p:])
	return change{start: p, end: len(base) - s, text: x[p : len(x)-s]}
}

// A chunk is a run of lines of d.src holding changes, from a cut to the
// start of a top-level key's line or the end of the front matter.
type chunk struct {
	start, end int
	entry      int // item cut: the list's entry; -1 for a cut at a key's line or the front matter's start
	item       int // item cut: the first item the chunk holds
	changes    []change
}

// checkLocal reports whether out, which is d.src with changes made (in
// order, not overlapping), parses as a valid ledger, and returns it parsed
// (its entries, for reading: their offsets and lines are not out's),
// parsing only the chunks that hold the changes. false means "not shown
// here", never "broken": the caller parses out whole then.
func (d *frontDoc) checkLocal(out []byte, changes []change) (*frontDoc, bool) {
	var real []change
	for _, c := range changes {
		if c.start != c.end || len(c.text) > 0 {
			real = append(real, c)
		}
	}
	slices.SortFunc(real, func(a, b change) int { return a.start - b.start })
	if !d.spliced(out, real) {
		return nil, false
	}
	// The delimiters must be where they were, moved by what changed.
	b, found, err := SplitFront(out)
	if err != nil || !found || b.Dots || b.Start != d.fmStart || b.End != d.fmEnd+len(out)-len(d.src) {
		return nil, false
	}
	chunks, ok := d.chunks(real)
	if !ok {
		return nil, false
	}
	parts := make([]*frontDoc, len(chunks))
	shift := 0
	for i, ch := range chunks {
		// The chunk's bytes in out: the changes before it moved them.
		from := ch.start + shift
		for _, c := range ch.changes {
			shift += len(c.text) - (c.end - c.start)
		}
		if parts[i], ok = d.parseChunk(out[from:ch.end+shift], ch); !ok {
			return nil, false
		}
	}
	entries, ok := d.merge(chunks, parts)
	if !ok {
		return nil, false
	}
	// Each chunk's entries were checked by its parse, the rest by the
	// first: the whole is a valid ledger.
	return &frontDoc{path: d.path, src: out, fmStart: d.fmStart, fmEnd: b.End, body: b.Body, lineOff: d.lineOff, entries: entries}, true
}

// spliced reports whether out is d.src with changes made: every byte
// outside them unchanged. The changes must lie in the front matter.
func (d *frontDoc) spliced(out []byte, changes []change) bool {
	at, o := d.fmStart, d.fmStart
	if !bytes.Equal(out[:min(d.fmStart, len(out))], d.src[:d.fmStart]) {
		return false
	}
	for _, c := range changes {
		if c.start < at || c.end < c.start || c.end > d.fmEnd {
			return false
		}
		n := c.start - at
		if o+n+len(c.text) > len(out) || !bytes.Equal(out[o:o+n], d.src[at:c.start]) || !bytes.Equal(out[o+n:o+n+len(c.text)], c.text) {
			return false
		}
		o += n + len(c.text)
		at = c.end
	}
	return bytes.Equal(out[o:], d.src[at:])
}

// chunks groups the changes into the chunks that hold them, in order.
func (d *frontDoc) chunks(changes []change) ([]chunk, bool) {
	var out []chunk
	for _, c := range changes {
		ch, ok := d.chunkOf(c)
		if !ok {
			return nil, false
		}
		if n := len(out); n > 0 && ch.start < out[n-1].end {
			// Overlapping chunks become one, from the earlier cut.
			last := &out[n-1]
			last.end = max(last.end, ch.end)
			last.changes = append(last.changes, c)
			continue
		}
		out = append(out, ch)
	}
	return out, true
}

// chunkOf finds the chunk of one change: from the last cut before it whose
// first line it leaves alone, to the first top-level key's line at or after
// its end.
func (d *frontDoc) chunkOf(c change) (chunk, bool) {
	ch := chunk{start: d.fmStart, end: d.fmEnd, entry: -1, changes: []change{c}}
	for _, e := range d.entries {
		if e.lineStart >= c.end {
			ch.end = e.lineStart
			break
		}
	}
	k := -1
	for i, e := range d.entries {
		if e.lineStart < c.start {
			k = i
		}
	}
	if k < 0 {
		return ch, true // the front matter's start: nothing before it
	}
	e := &d.entries[k]
	if c.start < e.colonEnd {
		return chunk{}, false // the key itself changed
	}
	ch.start = e.lineStart
	if e.decorated || e.val.Kind != yaml.SequenceNode || e.val.Style&yaml.FlowStyle != 0 || c.start < e.valOff {
		return ch, true
	}
	items, err := d.blockItems(e)
	if err != nil {
		return ch, true
	}
	for i := len(items) - 1; i >= 0; i-- {
		s := items[i][0]
		it := e.val.Content[i]
		// An item cut: the item's "-" begins its line, its value starts on
		// that line, and the change leaves that line alone.
		if s < c.start && lineEndAt(d.src, s) <= c.start && lineStartAt(d.src, d.offset(it.Line, it.Column)) == s {
			ch.start, ch.entry, ch.item = s, k, i
			break
		}
	}
	return ch, true
}

// parseChunk parses a chunk's bytes from out on their own, as front matter;
// an item cut's list key goes first.
func (d *frontDoc) parseChunk(text []byte, ch chunk) (*frontDoc, bool) {
	if len(text) > 0 && text[len(text)-1] != '\n' {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteString("---" + d.eol)
	if ch.entry >= 0 {
		e := d.entries[ch.entry]
		b.Write(d.src[e.lineStart:e.colonEnd])
		b.WriteString(d.eol)
	}
	b.Write(text)
	b.WriteString("---" + d.eol)
	syn := b.Bytes()
	if blk, found, err := SplitFront(syn); err != nil || !found || blk.Body != len(syn) {
		return nil, false
	}
	part, err := parseFront(d.path, syn)
	if err != nil {
		return nil, false
	}
	if _, err := part.model(); err != nil {
		return nil, false
	}
	for _, e := range part.entries {
		if decorated(e.key) || decorated(e.val) {
			return nil, false
		}
	}
	return part, true
}

// merge returns the result's entries: the first parse's, with each chunk's
// entries in place of those it covers.
func (d *frontDoc) merge(chunks []chunk, parts []*frontDoc) ([]entry, bool) {
	var res []entry
	i, n := 0, len(d.entries)
	for ci, ch := range chunks {
		for i < n && d.entries[i].lineStart < ch.start && i != ch.entry {
			res = append(res, d.entries[i])
			i++
		}
		pe := parts[ci].entries
		switch {
		case ch.entry >= 0:
			// The chunk starts inside this list: its first entry is the
			// list again, from the cut item on.
			e := d.entries[i]
			if i != ch.entry || len(pe) == 0 || pe[0].key.Value != e.key.Value || pe[0].key.Line != 1 {
				return nil, false
			}
			seq := pe[0].val
			if seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || seq.Line != 2 || seq.Column != e.val.Column || len(seq.Content) == 0 {
				return nil, false
			}
			for _, it := range e.val.Content[ch.item:] {
				if decorated(it) {
					return nil, false // an alias elsewhere may name it
				}
			}
			items := make([]*yaml.Node, 0, ch.item+len(seq.Content))
			items = append(append(items, e.val.Content[:ch.item]...), seq.Content...)
			e.val = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: e.val.Line, Column: e.val.Column, Content: items}
			res = append(res, e)
			pe = pe[1:]
			i++
		case ch.start != d.fmStart:
			// The chunk starts at this key's line: its first entry is it.
			if i >= n || d.entries[i].lineStart != ch.start || len(pe) == 0 || pe[0].key.Value != d.entries[i].key.Value || pe[0].key.Line != 1 {
				return nil, false
			}
		}
		// The entries the chunk holds whole.
		for ; i < n && d.entries[i].lineStart < ch.end; i++ {
			if decorated(d.entries[i].key) || decorated(d.entries[i].val) {
				return nil, false
			}
		}
		res = append(res, pe...)
	}
	res = append(res, d.entries[i:]...)
	seen := map[string]bool{}
	for _, e := range res {
		if seen[e.key.Value] {
			return nil, false
		}
		seen[e.key.Value] = true
	}
	return res, true
}

// decorated reports whether a node or one inside it has an anchor or is an
// alias: what could tie it to a node in another chunk.
func decorated(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if decorated(c) {
			return true
		}
	}
	return false
}
