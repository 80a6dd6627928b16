package core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Query is what search looks for.
type Query struct {
	Text   string    // case-insensitive
	Stream string    // only this work stream ("" for all)
	Author string    // only handoffs whose author has a word starting with each of these words
	Since  time.Time // only what was written since (zero for all)
	In     string    // "ledgers" or "handoffs": only that kind of file ("" for both)
}

// Hit is one matching line.
type Hit struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Stream string `json:"stream"`
	Kind   string `json:"kind"`
	Author string `json:"author,omitempty"`
}

// Search returns the lines of ledgers and handoffs that hold q.Text, each
// stream's ledger first, then its handoffs oldest first. A file is read
// once and searched as bytes (an ASCII needle in a copy lowered in place);
// its front matter is read only when it has a hit and a filter asks.
// Streams are searched by as many readers as the machine has cores.
func Search(p *workspace.Workspace, q Query) []Hit {
	m := newMatcher(q.Text)
	loose := hasLoose(p.HandoffDir)
	perStream := byStream(p, q.Stream, func() func(string) []Hit {
		s := searcher{p: p, q: q, m: m}
		return func(name string) []Hit { return s.stream(name, loose) }
	})
	hits := []Hit{}
	for _, hs := range perStream {
		hits = append(hits, hs...)
	}
	return hits
}

// searcher searches one stream at a time, with its own buffers.
type searcher struct {
	p    *workspace.Workspace
	q    Query
	m    matcher
	buf  []byte // a file's bytes
	low  []byte // their lowered copy
	hits []Hit
}

// stream returns the hits in work stream name's ledger and handoffs, a
// line once (see once).
func (s *searcher) stream(name string, loose bool) []Hit {
	return once(s.streamAll(name, loose))
}

// streamAll returns every hit in work stream name's ledger and handoffs.
func (s *searcher) streamAll(name string, loose bool) []Hit {
	s.hits = nil
	p := s.p
	if s.q.Author == "" && s.q.In != "handoffs" {
		if lp, _ := p.LedgerPath(name); lp != "" {
			if src, err := safefile.Read(lp, p.WriteOptions()); err == nil && s.m.in(src, &s.low) {
				if l, _, err := LoadLedger(p, name); err == nil && l != nil && (s.q.Since.IsZero() || l.Updated >= ledger.FormatTime(s.q.Since)) {
					s.lines(src, p.Rel(lp), name, "ledger", "")
				}
			}
		}
	}
	if s.q.In == "ledgers" {
		return s.hits
	}
	if loose {
		for _, f := range p.HandoffFiles(name) {
			if src, err := safefile.Read(f, p.WriteOptions()); err == nil {
				s.handoff(src, f, name)
			}
		}
		return s.hits
	}
	dir, err := p.StreamHandoffDir(name)
	if err != nil {
		return s.hits
	}
	eachHandoff(dir, func(d *heads, fname, path string, link bool) {
		var src []byte
		ok := false
		if link {
			src, err = safefile.Read(path, p.WriteOptions())
			ok = err == nil
		} else {
			src, ok = d.whole(fname, &s.buf, safefile.DefaultMaxSize)
		}
		if ok {
			s.handoff(src, path, name)
		}
	})
	return s.hits
}

// once keeps one hit for each line of a stream (hits in order: the
// ledger's, then the handoffs' oldest first): a handoff repeating the
// ledger's line (its goal, now, a decision) adds none, and of handoffs
// repeating one another the newest shows it, where it was last written.
func once(hits []Hit) []Hit {
	seen := map[string]bool{}
	keep := make([]bool, len(hits))
	for i, h := range hits {
		if h.Kind == "ledger" {
			keep[i] = !seen[lineKey(h.Text)]
			seen[lineKey(h.Text)] = true
		}
	}
	for i := len(hits) - 1; i >= 0; i-- {
		if h := hits[i]; h.Kind != "ledger" {
			keep[i] = !seen[lineKey(h.Text)]
			seen[lineKey(h.Text)] = true
		}
	}
	out := hits[:0]
	for i, h := range hits {
		if keep[i] {
			out = append(out, h)
		}
	}
	return out
}

// lineKey is what makes two lines the same for search: the text without a
// list mark, a YAML key or quotes ("- RS256" in a handoff, "  - decision:
// RS256" in the ledger), nor a "(new)" mark.
func lineKey(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(s, " (new)"))
	s = strings.TrimLeft(s, "-*> ")
	for _, key := range []string{"decision:", "why:", "goal:", "now:", "- "} {
		s = strings.TrimSpace(strings.TrimPrefix(s, key))
	}
	s = strings.Trim(s, `"'`)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// handoff adds a handoff's hits, when its author and time pass the query.
func (s *searcher) handoff(src []byte, path, name string) {
	if !s.m.in(src, &s.low) {
		return
	}
	e, _, _, fast := fastHead(src)
	if !fast {
		h, err := compat.ParseHandoff(src)
		if err != nil {
			return
		}
		e = LogEntry{Created: h.Meta.Created, Author: h.Meta.Author}
	}
	if e.Created.IsZero() {
		e.Created = handoff.Time(path)
	}
	if s.q.Author != "" && !AuthorMatches(e.Author, s.q.Author) || !s.q.Since.IsZero() && e.Created.Before(s.q.Since) {
		return
	}
	s.lines(src, s.p.Rel(path), name, "handoff", e.Author)
}

// lines adds a hit for each line of src that holds the needle; s.low holds
// src lowered (the matcher's last call), line for line. Two cursors walk
// the same line of each copy (their offsets differ where lowering changed
// a character's length).
func (s *searcher) lines(src []byte, rel, name, kind, who string) {
	low := s.low
	n, lowAt, srcAt := 1, 0, 0 // a line's number and its start in low and in src
	for {
		i := s.m.index(low[lowAt:])
		if i < 0 {
			return
		}
		hit := lowAt + i
		for {
			j := bytes.IndexByte(low[lowAt:hit], '\n')
			if j < 0 {
				break
			}
			lowAt += j + 1
			srcAt += bytes.IndexByte(src[srcAt:], '\n') + 1
			n++
		}
		end := len(src)
		if j := bytes.IndexByte(src[srcAt:], '\n'); j >= 0 {
			end = srcAt + j
		}
		if line := strings.TrimSpace(string(src[srcAt:end])); !(kind == "handoff" && machineLine(line)) {
			s.hits = append(s.hits, Hit{rel, n, line, name, kind, who})
		}
		j := bytes.IndexByte(low[hit:], '\n')
		if j < 0 || end == len(src) {
			return
		}
		lowAt, srcAt = hit+j+1, end+1
		n++
	}
}

// matcher finds a needle regardless of case.
type matcher struct {
	needle []byte // lowered
	ascii  bool
}

func newMatcher(text string) matcher {
	needle := strings.ToLower(text)
	ascii := true
	for i := range len(needle) {
		if needle[i] >= 0x80 {
			ascii = false
			break
		}
	}
	return matcher{[]byte(needle), ascii}
}

// in reports whether src holds the needle, leaving src's lowered copy in
// *low, line for line. An ASCII needle needs only ASCII letters lowered,
// unless the text holds one of the two other letters that lower to ASCII
// (İ and the Kelvin sign); any other is lowered line by line.
func (m matcher) in(src []byte, low *[]byte) bool {
	if m.ascii && !bytes.Contains(src, []byte("\u0130")) && !bytes.Contains(src, []byte("\u212a")) {
		*low = append((*low)[:0], src...)
		lowerASCII(*low)
	} else {
		*low = (*low)[:0]
		for i, line := range bytes.Split(src, []byte{'\n'}) {
			if i > 0 {
				*low = append(*low, '\n')
			}
			*low = append(*low, bytes.ToLower(line)...)
		}
	}
	return m.index(*low) >= 0
}

// lowerASCII lowers the ASCII letters of b in place, eight bytes at a
// time: a byte from 'A' to 'Z' gains 0x20; any other byte, UTF-8's
// included (bit 7 set), stays.
func lowerASCII(b []byte) {
	const (
		ones  = 0x0101010101010101
		high  = 0x80 * ones
		fromA = (0x80 - 'A') * ones     // bit 7 set in a byte >= 'A'
		pastZ = (0x80 - 'Z' - 1) * ones // bit 7 set in a byte > 'Z'
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		h := w &^ high // no carry from one byte into the next below
		upper := (h + fromA) &^ (h + pastZ) &^ w & high
		if upper != 0 {
			binary.LittleEndian.PutUint64(b[i:], w|upper>>2)
		}
	}
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
}

// index is the offset of the needle in lowered text, or -1.
func (m matcher) index(low []byte) int { return bytes.Index(low, m.needle) }

// Since reads --since: a duration back from now (7d, 36h), a date or an
// RFC 3339 time. "" is the zero time.
func Since(since string, now time.Time) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	if d, err := workspace.ParseDuration(since); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, since); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since takes a date (2026-11-01) or a duration (7d), got %q", since)
}

// AuthorMatches reports whether each word of query starts a word of the
// author's name, ignoring case, in order: "Ana", "ana new" and "A N" find
// "Ana Newcomer"; "Newcomer Ana" and "na" do not.
func AuthorMatches(author, query string) bool {
	words := strings.Fields(strings.ToLower(author))
	i := 0
	for _, q := range strings.Fields(strings.ToLower(query)) {
		for i < len(words) && !strings.HasPrefix(words[i], q) {
			i++
		}
		if i == len(words) {
			return false
		}
		i++
	}
	return true
}

// machineLine reports a handoff's front matter line of State or Work (one
// line of JSON): what it says, the body says for people, and a hit there
// is found there.
func machineLine(line string) bool {
	return strings.HasPrefix(line, "state: {") || strings.HasPrefix(line, "work: {")
}
