package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Finding is one secret found in a text.
type Finding struct {
	Kind  string `json:"kind"`  // the rule that found it, e.g. "github-token"
	Line  int    `json:"line"`  // 1-based line of Start
	Col   int    `json:"col"`   // 1-based column of Start, in characters
	Start int    `json:"start"` // byte offset of the secret in the input
	End   int    `json:"end"`   // byte offset just past the secret
}

// Rule is a project's own secret pattern.
type Rule struct {
	// Name is the kind the marker shows: lowercase letters, digits and '-'.
	Name string `json:"name" yaml:"name"`
	// Pattern is a Go regular expression. When it has a group named
	// "secret", only that group is redacted; else the whole match is.
	Pattern string `json:"pattern" yaml:"pattern"`
	// Keywords, when given, are substrings (matched without regard to
	// ASCII case) one of which must occur within a line of a match; the
	// pattern then runs only around them. Without keywords the pattern
	// runs on the whole text.
	Keywords []string `json:"keywords,omitempty" yaml:"keywords,omitempty"`
}

// Config adds a project's rules and allowances to the built-in rules.
type Config struct {
	// Extra rules run before the built-in ones, so their kind wins when
	// both match the same text.
	Extra []Rule `json:"extra,omitempty" yaml:"extra,omitempty"`
	// Allow lists known false positives: each entry is a regular
	// expression (an entry that does not compile is taken literally). A
	// finding is dropped when an entry matches its secret or the whole
	// text its rule matched (e.g. the variable name and the value).
	Allow []string `json:"allow,omitempty" yaml:"allow,omitempty"`
}

// Redactor finds and redacts secrets with the built-in rules plus a
// Config's. It is safe for concurrent use.
type Redactor struct {
	rules []*rule
	allow []*regexp.Regexp
	// allowed counts what each allow entry did (see Allowances).
	allowMu  sync.Mutex
	allowLog map[allowKey]int
	kws      []string // every distinct keyword, lowercase
	// first maps a keyword's first byte (lowercase) to its row in pairs
	// (0: no keyword starts with it; row 0 is all zero); entry second byte
	// of a row is 1 + the index in starts of the keywords beginning with
	// that pair. Rows exist only for the few first bytes keywords have: a
	// table of every pair (128 KB) cost each process more page faults than
	// its redaction.
	first  [256]uint8
	pairs  []uint16 // rows of 256
	starts [][]string
	single [256]bool // one-byte keywords (the @ of user:password@host)
}

// rule is one compiled pattern with its prefilter.
type rule struct {
	kind      string
	keywords  []string // lowercase; none means the whole text is one window
	re        *lazyRE
	groups    []int // submatch indexes holding the secret, first non-empty wins; none: whole match
	back, fwd int   // bytes before and after a keyword hit that a match may span
	multiline bool  // a match may span lines
	// near, when set, is a cheap test of the text right after a keyword
	// hit (end is the offset past the keyword); hits it rejects open no
	// window.
	near  func(s string, end int) bool
	valid func(secret, whole string, group int) bool // whole: the rule's entire match; group: the submatch that held secret (0: whole)
	// tail, when set, gives the bytes a secret of the given group
	// continues with past its window's end: a value longer than the window
	// is followed to its end, not cut.
	tail func(group int) *byteSet
	// closed, when set, says which groups are quoted values: one that runs
	// to the end of its line without the closing quote was not a value
	// ("PWD="+dir).
	closed func(group int) bool
	// literal: the rule's values are spared only when they are references
	// (isReference), not when they are placeholder words (isPlaceholder);
	// its valid function decides the rest.
	literal bool
	// starts, when set, gives the offsets (ascending, none before from)
	// where a match holding the keyword at h may begin; the pattern is
	// then tried anchored at each instead of searched for around h. For
	// patterns that open with a name of any length before their keyword,
	// a search would try every offset of the window and, in text full of
	// names (JSON), cost the window's length times the pattern's.
	starts func(s string, h, klen, from int) []int
	// scan, when set, replaces keywords and pattern: it finds the rule's
	// candidates in the whole text itself, in order.
	scan func(r *Redactor, s string, ru *rule, prio int, cands []candidate) []candidate
}

var kindRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// New returns a Redactor with the built-in rules and c's extra rules and
// allowances. It fails on a bad rule name or pattern. Without extra rules
// or allowances it is the package's own, built once per process.
func New(c Config) (*Redactor, error) {
	if len(c.Extra) == 0 && len(c.Allow) == 0 {
		return std(), nil
	}
	return build(c)
}

// build makes a Redactor from c.
func build(c Config) (*Redactor, error) {
	r := &Redactor{rules: make([]*rule, 0, len(c.Extra)+len(builtin))}
	for i, x := range c.Extra {
		if !kindRE().MatchString(x.Name) {
			return nil, fmt.Errorf("redact rule %d: name %q: use lowercase letters, digits and '-'", i+1, x.Name)
		}
		re, err := regexp.Compile(x.Pattern)
		if err != nil {
			return nil, fmt.Errorf("redact rule %s: %w", x.Name, err)
		}
		ru := &rule{kind: x.Name, re: &lazyRE{get: func() *regexp.Regexp { return re }}, back: 512, fwd: 512}
		if g := re.SubexpIndex("secret"); g > 0 {
			ru.groups = []int{g}
		}
		for _, k := range x.Keywords {
			switch {
			case len(k) >= 2:
				ru.keywords = append(ru.keywords, asciiLower(k))
			case k != "":
				return nil, fmt.Errorf("redact rule %s: keyword %q: use at least two characters", x.Name, k)
			}
		}
		r.rules = append(r.rules, ru)
	}
	r.rules = append(r.rules, builtin...)
	for _, a := range c.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			re = regexp.MustCompile(regexp.QuoteMeta(a))
		}
		if err := checkAllow(re, a); err != nil {
			return nil, err
		}
		r.allow = append(r.allow, re)
	}
	seen := make(map[string]bool, 2*len(r.rules))
	var firsts [256]bool
	rows := 1 // row 0: no keyword
	for _, ru := range r.rules {
		for _, k := range ru.keywords {
			if !seen[k] {
				seen[k] = true
				r.kws = append(r.kws, k)
				if len(k) > 1 && !firsts[k[0]] {
					firsts[k[0]] = true
					rows++
				}
			}
		}
	}
	for _, k := range r.kws {
		if len(k) == 1 {
			r.single[k[0]] = true
			continue
		}
		if len(r.pairs) == 0 {
			// Every row at once: a start builds this table, and
			// growing it row by row copied it each time.
			r.pairs = make([]uint16, 256, 256*rows)
		}
		if r.first[k[0]] == 0 {
			r.first[k[0]] = uint8(len(r.pairs) >> 8)
			r.pairs = append(r.pairs, make([]uint16, 256)...)
		}
		at := int(r.first[k[0]])<<8 | int(k[1])
		if r.pairs[at] == 0 {
			r.starts = append(r.starts, nil)
			r.pairs[at] = uint16(len(r.starts))
		}
		r.starts[r.pairs[at]-1] = append(r.starts[r.pairs[at]-1], k)
	}
	return r, nil
}

// std is built on first use: every hook pays for the package's start-up,
// and most never redact.
var std = sync.OnceValue(func() *Redactor {
	r, err := build(Config{})
	if err != nil {
		panic(err)
	}
	return r
})

// Redact replaces every secret in s with a marker (see Marker), using the
// built-in rules, and returns the findings in order, with offsets into s.
func Redact(s string) (string, []Finding) { return std().Redact(s) }

// Scan returns the secrets in b found by the built-in rules, in order.
func Scan(b []byte) []Finding { return std().Scan(b) }

// lazyRE is a regular expression compiled on first use. The built-in rules
// are many and most texts hit the keywords of a few, so compiling them all
// up front would cost every process more than the redaction itself.
type lazyRE struct {
	get func() *regexp.Regexp
	// anchored is the same pattern anchored at the start of its input.
	anchored func() *regexp.Regexp
}

func lazy(src string) *lazyRE {
	return &lazyRE{
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + src + `)`) }),
	}
}

// MatchString reports whether s contains a match.
func (l *lazyRE) MatchString(s string) bool { return l.get().MatchString(s) }

// Marker is the text that replaces a secret of the given kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// Kinds lists the kinds the built-in rules report, in priority order.
func Kinds() []string {
	var out []string
	for _, ru := range builtin {
		if !slices.Contains(out, ru.kind) {
			out = append(out, ru.kind)
		}
	}
	return out
}

// Redact replaces every secret in s with a marker and returns the
// findings in order, with offsets into s. Text outside the findings is
// unchanged byte for byte.
func (r *Redactor) Redact(s string) (string, []Finding) {
	fs := r.find(s)
	if len(fs) == 0 {
		return s, nil
	}
	return withMarkers(s, fs), fs
}

// withMarkers is s with each finding (in order, disjoint) replaced by its marker.
func withMarkers(s string, fs []Finding) string {
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, f := range fs {
		b.WriteString(s[at:f.Start])
		b.WriteString(Marker(f.Kind))
		at = f.End
	}
	b.WriteString(s[at:])
	return b.String()
}

// Scan returns the secrets in b, in order.
func (r *Redactor) Scan(b []byte) []Finding { return r.find(string(b)) }

type span struct{ start, end int }

type candidate struct {
	Finding
	prio int
	ru   *rule
	from int // start of the rule's whole match
}

// maxPasses bounds the searches of find's redacted text.
const maxPasses = 4

// find returns the findings of s in order, with lines and columns. A match
// that lost to a higher-priority one it overlapped may have run past it and
// hidden a secret further on; with the winner replaced by its marker, that
// secret shows. So the redacted text is searched again until nothing new
// appears: redacting the result finds nothing, and twice equals once. Markers
// are never part of a finding, so each later finding lies between markers
// and maps back to s exactly. Each pass is linear in its text, and there
// are at most maxPasses.
func (r *Redactor) find(s string) []Finding {
	fs := r.findOnce(s, false)
	for pass := 1; pass < maxPasses && len(fs) > 0; pass++ {
		more := r.findOnce(withMarkers(s, fs), false)
		if len(more) == 0 {
			break
		}
		// Map each new finding back: subtract what the markers before it
		// added to the length.
		i, shift := 0, 0
		for k := range more {
			for i < len(fs) && fs[i].End+shift+len(Marker(fs[i].Kind))-(fs[i].End-fs[i].Start) <= more[k].Start {
				shift += len(Marker(fs[i].Kind)) - (fs[i].End - fs[i].Start)
				i++
			}
			more[k].Start -= shift
			more[k].End -= shift
		}
		fs = mergeFindings(fs, more)
	}
	// Lines and columns are counted from the previous finding, not from
	// the start of the line: a line of many findings costs its length once.
	line, col, at := 1, 1, 0
	for i := range fs {
		f := &fs[i]
		for {
			j := strings.IndexByte(s[at:f.Start], '\n')
			if j < 0 {
				break
			}
			line++
			col = 1
			at += j + 1
		}
		col += utf8.RuneCountInString(s[at:f.Start])
		at = f.Start
		f.Line = line
		f.Col = col
	}
	return fs
}

// findOnce is one search of s: the findings in order, without lines.
// nested is a search of text decoded from s (base64), where the rules that
// decode do not run again.
//
// The cost is linear in s: one pass finds every keyword; each rule's
// pattern runs on the windows around its keywords (merged where they
// overlap, so no byte is searched twice by one rule), each search resuming
// after the last; and the rules' matches are merged, rule by rule, into the
// sorted list of spans claimed so far.
func (r *Redactor) findOnce(s string, nested bool) []Finding {
	if s == "" {
		return nil
	}
	// One pass finds every keyword: a table of first byte pairs, then a
	// comparison of the few keywords starting with that pair.
	// No size hint: most texts hit a few keywords, and a table sized for
	// all of them is pages of memory every call.
	hits := map[string][]int{}
	for i := 0; i < len(s); i++ {
		if r.single[s[i]] {
			hits[s[i:i+1]] = append(hits[s[i:i+1]], i)
		}
		if i+1 == len(s) {
			break
		}
		// Row 0 is all zero: one test, as with a table of every pair.
		x := r.pairs[int(r.first[fold[s[i]]])<<8|int(fold[s[i+1]])]
		if x == 0 {
			continue
		}
		for _, k := range r.starts[x-1] {
			if hasFoldPrefix(s[i:], k) {
				hits[k] = append(hits[k], i)
			}
		}
	}
	// Markers already in s are claimed first, so no rule reads a marker
	// (whose colon looks like user:password) as part of a secret and
	// redacting twice equals redacting once. They are not findings.
	taken := markers(s) // sorted by Start, disjoint
	nmark := len(taken)
	var cands []candidate
	var wins []span
	for prio, ru := range r.rules {
		cands = cands[:0]
		if ru.scan != nil {
			if nested {
				continue
			}
			cands = ru.scan(r, s, ru, prio, cands)
		} else if ru.starts != nil {
			cands = r.matchAnchored(cands, s, ru, prio, hits)
		} else {
			wins = wins[:0]
			if len(ru.keywords) == 0 {
				wins = append(wins, span{0, len(s)})
			}
			for _, k := range ru.keywords {
				for _, h := range hits[k] {
					if ru.near != nil && !ru.near(s, h+len(k)) {
						continue
					}
					wins = append(wins, ru.window(s, h, len(k)))
				}
			}
			if len(wins) == 0 {
				continue
			}
			slices.SortFunc(wins, func(a, b span) int { return a.start - b.start })
			cur := wins[0]
			for _, w := range wins[1:] {
				if w.start <= cur.end {
					cur.end = max(cur.end, w.end)
					continue
				}
				cands = r.match(cands, s, ru, prio, cur)
				cur = w
			}
			cands = r.match(cands, s, ru, prio, cur)
		}
		if len(cands) > 0 {
			taken = r.claim(s, taken, cands)
		}
	}
	if nmark > 0 {
		taken = slices.DeleteFunc(taken, func(f Finding) bool { return f.Kind == "" })
	}
	if len(taken) == 0 {
		return nil
	}
	return taken
}

// claim adds one rule's candidates (in order, disjoint) to taken (sorted,
// disjoint) where they overlap nothing taken, and returns the merged list.
// Higher-priority rules claim first.
func (r *Redactor) claim(s string, taken []Finding, cands []candidate) []Finding {
	var acc []Finding
	j, last := 0, 0
	for _, c := range cands {
		for j < len(taken) && taken[j].End <= c.Start {
			j++
		}
		if j == len(taken) || taken[j].Start >= c.End {
			if c.Start >= last {
				acc = append(acc, c.Finding)
				last = c.End
			}
			continue
		}
		// A match that ran into a claimed span starting after it may still
		// match once that span is a marker: match again on the text from
		// the match's start up to the span, followed by the marker's first
		// byte, so that redacting the output again finds nothing new.
		t := taken[j]
		if t.Start <= c.Start || t.Start <= c.from || c.ru.scan != nil {
			continue
		}
		floor := last
		if j > 0 {
			floor = max(floor, taken[j-1].End)
		}
		text := s[c.from:t.Start] + "["
		for _, d := range r.match(nil, text, c.ru, c.prio, span{0, len(text)}) {
			d.Start += c.from
			d.End += c.from
			if d.Start >= floor && d.End <= t.Start {
				acc = append(acc, d.Finding)
				last, floor = d.End, d.End
			}
		}
	}
	return mergeFindings(taken, acc)
}

// matchAnchored appends the rule's matches, in order, trying its pattern
// anchored at the starts of each keyword hit.
func (r *Redactor) matchAnchored(cands []candidate, s string, ru *rule, prio int, hits map[string][]int) []candidate {
	type hit struct{ at, klen int }
	var hs []hit
	for _, k := range ru.keywords {
		for _, h := range hits[k] {
			if ru.near == nil || ru.near(s, h+len(k)) {
				hs = append(hs, hit{h, len(k)})
			}
		}
	}
	slices.SortFunc(hs, func(a, b hit) int { return a.at - b.at })
	done := 0 // the end of the last secret: nothing before it is searched again
	for _, h := range hs {
		if h.at < done {
			continue
		}
		end := min(h.at+h.klen+ru.fwd, len(s))
		if i := strings.IndexByte(s[h.at:end], '\n'); i >= 0 && !ru.multiline {
			end = h.at + i
		}
		for _, p := range ru.starts(s, h.at, h.klen, done) {
			m := ru.re.anchored().FindStringSubmatchIndex(s[p:end])
			if m == nil {
				continue
			}
			c, ok := r.candidate(s, ru, prio, span{p, end}, m)
			if ok {
				cands = append(cands, c)
				done = c.End
				break
			}
		}
	}
	return cands
}

// mergeFindings merges two sorted lists of disjoint findings.
func mergeFindings(a, b []Finding) []Finding {
	if len(b) == 0 {
		return a
	}
	out := make([]Finding, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].Start <= b[j].Start {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// markers returns the spans of the markers already in s, with no kind.
func markers(s string) []Finding {
	var out []Finding
	const open = "[REDACTED:"
	for at := 0; ; {
		i := strings.Index(s[at:], open)
		if i < 0 {
			return out
		}
		start := at + i
		end := start + len(open)
		for end < len(s) && (s[end] == '-' || 'a' <= s[end] && s[end] <= 'z' || '0' <= s[end] && s[end] <= '9') {
			end++
		}
		if end < len(s) && s[end] == ']' && end > start+len(open) {
			out = append(out, Finding{Start: start, End: end + 1})
			at = end + 1
			continue
		}
		at = start + 1
	}
}

// window is the part of s around a keyword hit at h that a match may span.
func (ru *rule) window(s string, h, klen int) span {
	start := max(h-ru.back, 0)
	end := min(h+klen+ru.fwd, len(s))
	if !ru.multiline {
		if i := strings.LastIndexByte(s[start:h], '\n'); i >= 0 {
			start += i + 1
		}
		if i := strings.IndexByte(s[h:end], '\n'); i >= 0 {
			end = h + i
		}
	}
	return span{start, end}
}

// match appends the rule's valid, allowed matches inside window w, in
// order.
func (r *Redactor) match(cands []candidate, s string, ru *rule, prio int, w span) []candidate {
	text := s[w.start:w.end]
	// Each search resumes right after the previous secret, not after the
	// whole match: a match may end by consuming the boundary character
	// that the next match needs before it (TOKEN=a TOKEN=b).
	for pos := 0; pos < len(text); {
		m := ru.re.get().FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		c, ok := r.candidate(s, ru, prio, w, m)
		pos = max(c.End-w.start, m[0]+1)
		if !ok {
			continue
		}
		cands = append(cands, c)
		if c.End >= w.end {
			break
		}
	}
	return cands
}

// candidate makes a candidate of match m (offsets into window w of s):
// the secret is the first non-empty group of the rule's (the whole match
// without groups), followed past the window's end when the window cut it
// (see rule.tail). ok is false for a match that is not a secret; c.End
// then still tells where to search on.
func (r *Redactor) candidate(s string, ru *rule, prio int, w span, m []int) (c candidate, ok bool) {
	text := s[w.start:w.end]
	// A window cut short of its line may end inside a value.
	cut := w.end < len(s) && s[w.end] != '\n'
	start, end, group := m[0], m[1], 0
	for _, g := range ru.groups {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			start, end, group = m[2*g], m[2*g+1], g
			break
		}
	}
	c = candidate{Finding{Kind: ru.kind, Start: w.start + start, End: w.start + end}, prio, ru, w.start + m[0]}
	if end <= start {
		return c, false
	}
	if !cut && m[1] == end && end == len(text) && ru.closed != nil && ru.closed(group) {
		return c, false
	}
	if cut && end == len(text) && ru.tail != nil {
		if set := ru.tail(group); set != nil {
			for c.End < len(s) && set[s[c.End]] {
				c.End++
			}
		}
	}
	secret := s[c.Start:c.End]
	whole := s[c.from:max(w.start+m[1], c.End)]
	if (ru.literal && isReference(secret) || !ru.literal && isPlaceholder(secret)) || (ru.valid != nil && !ru.valid(secret, whole, group)) || r.allowed(ru.kind, secret, whole, c.Start-c.from) {
		return c, false
	}
	return c, true
}

// allowed reports whether an allow entry spares the secret found in whole
// (at offset off). An entry spares only a value it names: one that still
// matches with more than maxFree of the secret's characters changed
// describes a class of secrets (a prefix, a length, the name of the
// variable, a fragment), not one false positive, and is overruled. Both
// are counted for Allowances.
func (r *Redactor) allowed(kind, secret, whole string, off int) bool {
	for i, a := range r.allow {
		if !a.MatchString(secret) && !a.MatchString(whole) {
			continue
		}
		spared := pins(a, secret, whole, off)
		r.allowMu.Lock()
		if r.allowLog == nil {
			r.allowLog = map[allowKey]int{}
		}
		r.allowLog[allowKey{i, kind, spared}]++
		r.allowMu.Unlock()
		if spared {
			return true
		}
	}
	return false
}

// fold maps ASCII capitals to lowercase and every other byte to itself.
var fold = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// hasFoldPrefix reports whether s starts with the lowercase k, ignoring
// ASCII case.
func hasFoldPrefix(s, k string) bool {
	if len(s) < len(k) {
		return false
	}
	for i := 0; i < len(k); i++ {
		if fold[s[i]] != k[i] {
			return false
		}
	}
	return true
}

// asciiLower lowers ASCII letters only, so byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
