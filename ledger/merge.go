package ledger

// Three-way merge of ledgers, for the git merge driver. The front matter
// merges field by field, by editing ours' bytes with the package's in-place
// edits so ours' comments and layout survive; the body merges line by line
// (merge3, a diff3 over lines). A true conflict is written with standard conflict markers.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Conflict markers, as git writes them with the labels ours and theirs.
const (
	markerOurs   = "<<<<<<< ours"
	markerSep    = "======="
	markerTheirs = ">>>>>>> theirs"
)

// mergeSide is one version of a ledger being merged; d is nil for an empty
// base (a file both sides added).
type mergeSide struct {
	d *frontDoc
}

func (s mergeSide) entry(key string) *entry {
	if s.d == nil {
		return nil
	}
	return s.d.find(key)
}

func (s mergeSide) body() []byte {
	if s.d == nil {
		return nil
	}
	return s.d.src[s.d.body:]
}

// keys returns the side's top-level keys in order.
func (s mergeSide) keys() []string {
	if s.d == nil {
		return nil
	}
	out := make([]string, len(s.d.entries))
	for i, e := range s.d.entries {
		out[i] = e.key.Value
	}
	return out
}

// span returns the text of key's lines (its key line through its value's
// last content line), or "" when the key is absent.
func (s mergeSide) span(key string) string {
	e := s.entry(key)
	if e == nil {
		return ""
	}
	a, b := s.d.entrySpan(e)
	return string(s.d.src[a:b])
}

// entrySpan returns the byte range of e's lines: from its key's line start
// to the end of its value's last content line (comments after it excluded).
func (d *frontDoc) entrySpan(e *entry) (int, int) {
	first := lineEndAt(d.src, e.keyOff)
	if first > e.limit {
		first = e.limit
	}
	end := lastContentLineEnd(d.src, first, e.limit, 0, true)
	if end < first {
		end = first
	}
	return e.lineStart, end
}

// parseMergeSide parses one side; an empty base (whitespace only) is an
// empty ledger.
func parseMergeSide(name string, src []byte, emptyOK bool) (mergeSide, error) {
	if emptyOK && len(bytes.TrimSpace(src)) == 0 {
		return mergeSide{}, nil
	}
	d, err := parseFront(name, src)
	if err == nil {
		_, err = d.model()
	}
	if err != nil {
		return mergeSide{}, err
	}
	return mergeSide{d: d}, nil
}

// mergeConflict is a front matter conflict to mark once every clean edit is
// done: a whole key, or (item != "") one decision.
type mergeConflict struct {
	key    string
	item   string
	theirs string // theirs' text for the marked range
	dec    Decision
}

// merger carries a merge's state: the three sides and ours' bytes as edited.
type merger struct {
	base, ours, theirs mergeSide
	out                []byte
	now                time.Time
	conflicts          []mergeConflict
}

// Merge merges two versions of a ledger (ours and theirs) that both derive
// from base, as a git merge driver does. The front matter merges field by
// field: lists as ordered unions (ours' order, then theirs' new items; an
// item either side removed stays removed), scalars three-way, `updated` as
// the later of the two, decisions by their text. The body merges line by
// line (diff3). Ours' comments and formatting are kept.
//
// A true conflict is written with standard markers (`<<<<<<< ours`,
// `=======`, `>>>>>>> theirs`) around the key's lines or the body's lines,
// and counted in conflicts. An empty base is an empty ledger (both sides
// added the file). A side that does not parse, or a section-style ledger,
// returns an error and no bytes. now stands in for `updated` when both sides
// changed it to values that are not comparable times.
func Merge(base, ours, theirs []byte, now time.Time) (merged []byte, conflicts int, err error) {
	m := &merger{now: now, out: ours}
	if m.base, err = parseMergeSide("base", base, true); err != nil {
		return nil, 0, fmt.Errorf("merge: %w", WithPath(err, "base"))
	}
	if m.ours, err = parseMergeSide("ours", ours, false); err != nil {
		return nil, 0, fmt.Errorf("merge: %w", WithPath(err, "ours"))
	}
	if m.theirs, err = parseMergeSide("theirs", theirs, false); err != nil {
		return nil, 0, fmt.Errorf("merge: %w", WithPath(err, "theirs"))
	}
	seen := map[string]bool{}
	for _, side := range []mergeSide{m.ours, m.theirs, m.base} {
		for _, key := range side.keys() {
			if seen[key] {
				continue
			}
			seen[key] = true
			if err := m.mergeKey(key); err != nil {
				return nil, 0, fmt.Errorf("merge %s: %w", key, err)
			}
		}
	}
	d, err := parseFront("", m.out)
	if err != nil {
		return nil, 0, fmt.Errorf("merge: %w", err)
	}
	eol := d.eol
	body, n := merge3(m.base.body(), m.ours.body(), m.theirs.body(), eol)
	front, marked, err := m.markConflicts(d)
	if err != nil {
		return nil, 0, err
	}
	out := make([]byte, 0, len(front)+len(eol)+len(body))
	out = append(out, front...)
	if len(body) > 0 && len(front) > 0 && front[len(front)-1] != '\n' {
		out = append(out, eol...) // ours ended at its closing "---"
	}
	out = append(out, body...)
	return out, marked + n, nil
}

// fieldKind is the shape of a key's value on one side.
type fieldKind int

const (
	fieldAbsent fieldKind = iota
	fieldEmpty            // nothing, ~, null, "" or []
	fieldScalar
	fieldList // a list of scalars
	fieldOther
)

func kindOf(e *entry) fieldKind {
	if e == nil {
		return fieldAbsent
	}
	v := e.val
	if isEmptyValue(v) {
		return fieldEmpty
	}
	switch v.Kind {
	case yaml.ScalarNode:
		return fieldScalar
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
				return fieldOther
			}
		}
		return fieldList
	}
	return fieldOther
}

// mergeKey merges one key into m.out, choosing the rule by the key and the
// shapes of its values.
func (m *merger) mergeKey(key string) error {
	if key == KeyDecisions {
		return m.mergeDecisions()
	}
	has := map[fieldKind]bool{}
	for _, s := range []mergeSide{m.base, m.ours, m.theirs} {
		has[kindOf(s.entry(key))] = true
	}
	switch {
	case !keyRE().MatchString(key) || has[fieldOther] || (has[fieldList] && has[fieldScalar]):
		return m.mergeRaw(key)
	case has[fieldList]:
		return m.mergeList(key)
	case key == KeyUpdated:
		return m.mergeUpdated()
	case !listKeys[key]:
		return m.mergeScalar(key)
	}
	return m.mergeRaw(key) // a list key that is empty or absent everywhere
}

// scalarValue is a scalar key's value on one side, absence included.
type scalarValue struct {
	present bool
	text    string
}

func scalarOf(s mergeSide, key string) scalarValue {
	e := s.entry(key)
	if e == nil {
		return scalarValue{}
	}
	return scalarValue{true, scalarText(e.val)}
}

func (m *merger) mergeScalar(key string) error {
	b, o, t := scalarOf(m.base, key), scalarOf(m.ours, key), scalarOf(m.theirs, key)
	switch {
	case o == t || t == b:
		return nil
	case o == b:
		return m.setScalar(key, t)
	}
	m.conflicts = append(m.conflicts, mergeConflict{key: key, theirs: m.theirs.span(key)})
	return nil
}

// setScalar gives key theirs' value in m.out (removing the key if theirs has none).
func (m *merger) setScalar(key string, v scalarValue) error {
	if !v.present {
		return m.removeKey(key)
	}
	out, err := SetScalar(m.out, key, v.text)
	if err != nil {
		return err
	}
	m.out = out
	return nil
}

// mergeUpdated keeps the later of the two `updated` times; values that are
// not both times merge three-way, and a clash becomes now.
func (m *merger) mergeUpdated() error {
	b, o, t := scalarOf(m.base, KeyUpdated), scalarOf(m.ours, KeyUpdated), scalarOf(m.theirs, KeyUpdated)
	if o == t || !t.present {
		return nil
	}
	if !o.present {
		return m.setScalar(KeyUpdated, t)
	}
	ot, oerr := time.Parse(time.RFC3339, o.text)
	tt, terr := time.Parse(time.RFC3339, t.text)
	switch {
	case oerr == nil && terr == nil:
		if tt.After(ot) {
			return m.setScalar(KeyUpdated, t)
		}
		return nil
	case t == b:
		return nil
	case o == b:
		return m.setScalar(KeyUpdated, t)
	}
	return m.setScalar(KeyUpdated, scalarValue{true, FormatTime(m.now)})
}

// listOf returns a key's items on one side (none when absent or empty).
func listOf(s mergeSide, key string) []string {
	e := s.entry(key)
	if kindOf(e) != fieldList {
		return nil
	}
	out := make([]string, len(e.val.Content))
	for i, it := range e.val.Content {
		out[i] = it.Value
	}
	return out
}

func setOf(items []string) map[string]bool {
	s := make(map[string]bool, len(items))
	for _, it := range items {
		s[it] = true
	}
	return s
}

// mergeList makes key's list the ordered union: ours' items minus those
// theirs removed, then theirs' new items in their order.
func (m *merger) mergeList(key string) error {
	bi, oi, ti := listOf(m.base, key), listOf(m.ours, key), listOf(m.theirs, key)
	inB, inO, inT := setOf(bi), setOf(oi), setOf(ti)
	done := map[string]bool{}
	for _, it := range oi {
		if inB[it] && !inT[it] && !done[it] {
			done[it] = true
			out, _, err := RemoveItem(m.out, key, it)
			if err != nil {
				return err
			}
			m.out = out
		}
	}
	var add []string
	for _, it := range ti {
		if !inB[it] && !inO[it] {
			add = append(add, it)
		}
	}
	if len(add) == 0 {
		return nil
	}
	out, err := AppendItems(m.out, key, add...)
	if err != nil {
		return err
	}
	m.out = out
	return nil
}

// decisionsOf returns one side's decisions in order, and by text (the
// first of each text).
func decisionsOf(s mergeSide) ([]Decision, map[string]Decision) {
	e := s.entry(KeyDecisions)
	by := map[string]Decision{}
	if e == nil || e.val.Kind != yaml.SequenceNode {
		return nil, by
	}
	var list []Decision
	for _, it := range e.val.Content {
		dec, ok := decisionOf(it)
		if !ok {
			continue
		}
		if _, dup := by[dec.Decision]; !dup {
			by[dec.Decision] = dec
			list = append(list, dec)
		}
	}
	return list, by
}

// mergeDecisions unions the decisions by their text: a decision edited on
// one side takes that side's version, edited differently on both is a
// conflict, removed on one side and unchanged on the other stays removed.
func (m *merger) mergeDecisions() error {
	_, bm := decisionsOf(m.base)
	ol, _ := decisionsOf(m.ours)
	tl, tm := decisionsOf(m.theirs)
	var err error
	for _, o := range ol {
		b, inB := bm[o.Decision]
		t, inT := tm[o.Decision]
		switch {
		case inT && o == t, inT && inB && t == b:
		case inT && inB && o == b:
			err = m.replaceDecision(o.Decision, t)
		case inT:
			m.conflicts = append(m.conflicts, mergeConflict{key: KeyDecisions, item: o.Decision, dec: t})
		case inB && o == b:
			m.out, _, err = RemoveItem(m.out, KeyDecisions, o.Decision)
		}
		if err != nil {
			return err
		}
	}
	inO := map[string]bool{}
	for _, o := range ol {
		inO[o.Decision] = true
	}
	for _, t := range tl {
		if _, inB := bm[t.Decision]; inB || inO[t.Decision] {
			continue
		}
		if m.out, err = AddDecision(m.out, t); err != nil {
			return err
		}
	}
	return nil
}

// decisionLines renders a decision as block list item lines.
func decisionLines(dec Decision, pre string, col int, eol string) string {
	var b strings.Builder
	b.WriteString(pre + "- decision: " + formatScalar(dec.Decision, styleAuto, false, "", eol) + eol)
	for _, f := range [][2]string{{"why", dec.Why}, {"date", dec.Date}} {
		if f[1] != "" {
			b.WriteString(strings.Repeat(" ", col) + f[0] + ": " + formatScalar(f[1], styleAuto, false, "", eol) + eol)
		}
	}
	return b.String()
}

// decisionItem finds, in a block decisions list, the span of the first item
// whose text is text and the item's indentation; ok is false for a flow list.
func (d *frontDoc) decisionItem(text string) (start, end int, pre string, col int, ok bool, err error) {
	e := d.find(KeyDecisions)
	if e == nil || e.val.Kind != yaml.SequenceNode || e.val.Style&yaml.FlowStyle != 0 {
		return 0, 0, "", 0, false, nil
	}
	items, err := d.blockItems(e)
	if err != nil {
		return 0, 0, "", 0, false, err
	}
	for i, it := range e.val.Content {
		if dec, isDec := decisionOf(it); isDec && dec.Decision == text {
			pre, col := itemIndent(d.src, items[i][0])
			return items[i][0], items[i][1], pre, col, true, nil
		}
	}
	return 0, 0, "", 0, false, fmt.Errorf("decision %q not found", text)
}

// replaceDecision rewrites the decision whose text is text as dec: in place
// in a block list, else by removing it and adding dec at the end.
func (m *merger) replaceDecision(text string, dec Decision) error {
	d, err := editable(m.out, KeyDecisions)
	if err != nil {
		return err
	}
	start, end, pre, col, ok, err := d.decisionItem(text)
	if err != nil {
		return err
	}
	var out []byte
	if ok {
		out, err = checked(splice(m.out, start, end, decisionLines(dec, pre, col, d.eol)), nil)
	} else if out, _, err = RemoveItem(m.out, KeyDecisions, text); err == nil {
		out, err = AddDecision(out, dec)
	}
	if err != nil {
		return err
	}
	m.out = out
	return nil
}

// mergeRaw merges a key whose values are neither all scalars nor all lists
// by its text: unchanged on one side takes the other's lines.
func (m *merger) mergeRaw(key string) error {
	b, o, t := m.base.span(key), m.ours.span(key), m.theirs.span(key)
	switch {
	case o == t || t == b:
		return nil
	case o != b:
		m.conflicts = append(m.conflicts, mergeConflict{key: key, theirs: t})
		return nil
	}
	d, err := parseFront("", m.out)
	if err != nil {
		return err
	}
	var out []byte
	if e := d.find(key); e != nil {
		start, end := d.entrySpan(e)
		out = splice(m.out, start, end, t)
	} else {
		out = d.addLines(d.insertPoint(key), t)
	}
	if out, err = checked(out, nil); err != nil {
		return err
	}
	m.out = out
	return nil
}

// removeKey removes key's lines from m.out.
func (m *merger) removeKey(key string) error {
	d, err := parseFront("", m.out)
	if err != nil {
		return err
	}
	e := d.find(key)
	if e == nil {
		return nil
	}
	start, end := d.entrySpan(e)
	out, err := checked(splice(m.out, start, end, ""), nil)
	if err != nil {
		return err
	}
	m.out = out
	return nil
}

// markConflicts returns d's text up to its body with conflict markers
// written around each conflicting key's (or decision's) lines, and how many
// conflicts it marked.
func (m *merger) markConflicts(d *frontDoc) ([]byte, int, error) {
	type mark struct {
		start, end int
		theirs     string
	}
	var marks []mark
	whole := map[string]bool{}
	for _, c := range m.conflicts {
		if c.item != "" {
			start, end, pre, col, ok, err := d.decisionItem(c.item)
			if err != nil {
				return nil, 0, fmt.Errorf("merge decisions: %w", err)
			}
			if ok {
				marks = append(marks, mark{start, end, decisionLines(c.dec, pre, col, d.eol)})
				continue
			}
			// A flow list: mark the whole key, once.
			c = mergeConflict{key: KeyDecisions, theirs: m.theirs.span(KeyDecisions)}
		}
		if whole[c.key] {
			continue
		}
		whole[c.key] = true
		if e := d.find(c.key); e != nil {
			start, end := d.entrySpan(e)
			marks = append(marks, mark{start, end, c.theirs})
		} else {
			p := d.insertPoint(c.key)
			marks = append(marks, mark{p, p, c.theirs})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].start > marks[j].start })
	front := append([]byte(nil), d.src[:d.body]...)
	for _, mk := range marks {
		ours := string(front[mk.start:mk.end])
		text := markerOurs + d.eol + withEOL(ours, d.eol) + markerSep + d.eol + withEOL(mk.theirs, d.eol) + markerTheirs + d.eol
		if mk.start > 0 && front[mk.start-1] != '\n' {
			text = d.eol + text
		}
		front = splice(front, mk.start, mk.end, text)
	}
	return front, len(marks), nil
}

// withEOL returns s ending with a line end (s itself when empty).
func withEOL(s, eol string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + eol
}

// splitLines splits b into lines, each keeping its line end.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			i = len(b)
		}
		out = append(out, string(b[:i]))
		b = b[i:]
	}
	return out
}

// merge3 merges ours' and theirs' changes to base line by line (diff3): a
// region changed on one side takes that side's lines; a region changed on
// both sides differently is a conflict, written between markers. It returns
// the merged text and the number of conflicts.
func merge3(base, ours, theirs []byte, eol string) ([]byte, int) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return ours, 0
	case bytes.Equal(base, ours):
		return theirs, 0
	}
	o, a, b := splitLines(base), splitLines(ours), splitLines(theirs)
	ids := map[string]int{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	oi, ai, bi := intern(o), intern(a), intern(b)
	ma, mb := matchLines(oi, ai), matchLines(oi, bi)
	var out bytes.Buffer
	conflicts := 0
	emit := func(ls []string) {
		for _, l := range ls {
			out.WriteString(l)
		}
	}
	chunk := func(co, ca, cb []string) {
		switch {
		case equalLines(ca, co):
			emit(cb)
		case equalLines(cb, co), equalLines(ca, cb):
			emit(ca)
		default:
			// Lines both sides agree on at either end stay outside the markers.
			p := 0
			for p < len(ca) && p < len(cb) && ca[p] == cb[p] {
				p++
			}
			q := 0
			for q < len(ca)-p && q < len(cb)-p && ca[len(ca)-1-q] == cb[len(cb)-1-q] {
				q++
			}
			emit(ca[:p])
			if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
				out.WriteString(eol)
			}
			out.WriteString(markerOurs + eol)
			out.WriteString(withEOL(strings.Join(ca[p:len(ca)-q], ""), eol))
			out.WriteString(markerSep + eol)
			out.WriteString(withEOL(strings.Join(cb[p:len(cb)-q], ""), eol))
			out.WriteString(markerTheirs + eol)
			emit(ca[len(ca)-q:])
			conflicts++
		}
	}
	i, j, k := 0, 0, 0
	for {
		for i < len(o) && ma[i] == j && mb[i] == k {
			out.WriteString(o[i])
			i, j, k = i+1, j+1, k+1
		}
		x := i
		for x < len(o) && (ma[x] < 0 || mb[x] < 0) {
			x++
		}
		ja, kb := len(a), len(b)
		if x < len(o) {
			ja, kb = ma[x], mb[x]
		}
		chunk(o[i:x], a[j:ja], b[k:kb])
		i, j, k = x, ja, kb
		if x == len(o) {
			break
		}
	}
	return out.Bytes(), conflicts
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// maxDiffTrace bounds the memory of one line diff (in ints); past it the
// unmatched middle of the two texts counts as changed as a whole.
const maxDiffTrace = 1 << 22

// matchLines returns, for each line of a, the index of the line of b it is
// matched to in a longest common subsequence, or -1. Matches increase.
func matchLines(a, b []int) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		m[len(a)-1-suf] = len(b) - 1 - suf
		suf++
	}
	myers(a[pre:len(a)-suf], b[pre:len(b)-suf], func(i, j int) { m[pre+i] = pre + j })
	return m
}

// myers finds a shortest edit script from a to b (Myers' O(ND) greedy
// algorithm) and calls match for each line pair it keeps.
func myers(a, b []int, match func(i, j int)) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return
	}
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	stored := 0
	for d := 0; d <= max; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		if stored += len(snap); stored > maxDiffTrace {
			return
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				backtrack(trace, d, n, m, match)
				return
			}
		}
	}
}

// backtrack walks Myers' trace back from (n, m), reporting the diagonals.
func backtrack(trace [][]int, dmax, n, m int, match func(i, j int)) {
	x, y := n, m
	for d := dmax; d > 0; d-- {
		prev := trace[d] // v before step d, indexed by k+d+1
		at := func(k int) int { return prev[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		xs := px
		if pk == k-1 {
			xs = px + 1
		}
		for x > xs {
			x, y = x-1, y-1
			match(x, y)
		}
		x, y = px, px-pk
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		match(x, y)
	}
}
