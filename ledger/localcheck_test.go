package ledger

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

// genLedger writes a random front matter ledger in the shapes people and
// tools write: every quoting style, comments everywhere, flow and block
// lists (indented and not), block scalars (kept, clipped, stripped, folded),
// anchors and aliases, tabs, unicode, empty lists in every spelling, keys
// missing or unknown, in any order, with LF or CRLF line breaks.
func genLedger(r *rand.Rand) []byte {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	// rare is one of xs one time in n, else "".
	rare := func(n int, xs ...string) string {
		if r.Intn(n) == 0 {
			return pick(xs...)
		}
		return ""
	}
	comment := func() string { return rare(4, "  # note", " # ünïcode ✓", "\t# tab before") }
	scalar := func() string {
		if v := rare(6, rare(5, "&anc anchored", "*anc", "!!str tagged"), "|\n  literal line\n  second line", "|+\n  kept\n\n",
			">-\n  folded\n  text", "|-\n  stripped"); v != "" {
			return v
		}
		return pick("plain words", "Step 7, migrate table t7", "'it''s quoted'", `"double \"q\" and \t tab"`,
			`"multi line`+"\n  continued\"", "café — ünïcode ✓", "~", "", "null", "'#not a comment'", "123", "yes",
			"2026-11-20T10:00:00Z") + comment()
	}
	item := func(ind string) string {
		v := rare(6, "plain\n"+ind+"  continued", "|\n"+ind+"    block item\n"+ind+"    two", "|+\n"+ind+"    kept\n",
			">\n"+ind+"    folded", "&it anchored item", "'it''s'")
		if v == "" {
			v = rare(80, "a: b", "{decision: inline}", "[nested, flow]", "~", "*it") // not a string: the ledger does not parse
		}
		if v == "" {
			v = pick("Step 1", "Finished step 3 of the migration", "'single, quoted'", `"double: quoted"`, "ünïcode ✓ item",
				`"tab\there"`, "one more step", "x # trailing", "Step 2") + comment()
		}
		return ind + "- " + v + "\n"
	}
	list := func() string {
		switch r.Intn(9) {
		case 0:
			return pick("", " []", " ~", ` ""`, " null") + comment() + "\n"
		case 1:
			return " [" + pick("a, b", "'x, y', \"z\"", "Step 1, one more step", "a,\n  b", "") + "]" + comment() + "\n"
		}
		ind := pick("", "  ", "    ", "  ", "  ")
		var b strings.Builder
		b.WriteString(comment() + "\n")
		n := 1 + r.Intn(6)
		for i := 0; i < n; i++ {
			b.WriteString(item(ind))
			if r.Intn(6) == 0 {
				b.WriteString(pick("\n", ind+"# between\n", "# col 0 comment\n", "  \n"))
			}
		}
		if r.Intn(4) == 0 {
			b.WriteString(pick("  # trailing comment\n", "\n", "# foot\n\n"))
		}
		return b.String()
	}
	decisions := func() string {
		if r.Intn(4) == 0 {
			return " [{decision: flow one, why: because}, plain decision]\n"
		}
		var b strings.Builder
		b.WriteString("\n")
		for i, n := 0, 1+r.Intn(3); i < n; i++ {
			switch r.Intn(3) {
			case 0:
				b.WriteString("  - decision: Use RS256\n    why: keys rotate\n    date: 2026-11-20\n")
			case 1:
				b.WriteString("  - just a decision text\n")
			default:
				b.WriteString("  - decision: \"quoted: one\"\n    why: |\n      a block why\n")
			}
		}
		return b.String()
	}
	type kv struct{ k, v string }
	var fields []kv
	for _, k := range []string{KeySession, KeyGoal, KeyNow, KeyUpdated} {
		if r.Intn(6) > 0 {
			v := scalar()
			if k == KeyUpdated && r.Intn(2) == 0 {
				v = pick("2026-11-20T10:00:00Z", `"2026-11-20T10:00:00Z"`)
			}
			fields = append(fields, kv{k, " " + v + "\n"})
		}
	}
	for _, k := range []string{KeyConstraints, KeyDone, KeyNext, KeyQuestions, KeyFiles} {
		if r.Intn(5) > 0 {
			fields = append(fields, kv{k, list()})
		}
	}
	if r.Intn(2) == 0 {
		fields = append(fields, kv{KeyDecisions, decisions()})
	}
	if r.Intn(3) == 0 {
		fields = append(fields, kv{"owner", pick(" me\n", " me\n", " *it\n", "\n  nested: {a: 1}\n  list: [1, 2]\n", " [x, y]\n")})
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	var b strings.Builder
	b.WriteString("---\n")
	if r.Intn(4) == 0 {
		b.WriteString("# a leading comment\n\n")
	}
	for _, f := range fields {
		if r.Intn(8) == 0 {
			b.WriteString(pick("# head comment\n", "\n"))
		}
		b.WriteString(f.k + ":" + f.v)
	}
	b.WriteString("---\n\n# Notes\nSome text.\n")
	s := b.String()
	// An alias mostly names an anchor before it.
	for _, a := range []string{"it", "anc"} {
		if i, j := strings.Index(s, "&"+a+" "), strings.Index(s, "*"+a); j >= 0 && (i < 0 || i > j) && r.Intn(10) > 0 {
			s = strings.ReplaceAll(s, "*"+a, a)
		}
	}
	if r.Intn(5) == 0 {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return []byte(s)
}

// genItems are the texts random edits write: what YAML would misread
// unless quoted, and items already in genLedger's lists.
var genItems = []string{"one more step", "Step 1", "a: b", "# not a comment", "- dash", `quote "x"`, "it's", "ünïcode ✓",
	"tab\there", "multi\nline", "[x]", "{y}", "*star", "&amp", "!bang", "null", "123", "yes", "  spaced  ", "---", "...",
	"Finished step 3 of the migration", "single, quoted", "kept\n", "x"}

// genEdit is a random edit; Finish builds one per Apply.
func genEdit(r *rand.Rand) (string, func() Edit) {
	it := genItems[r.Intn(len(genItems))]
	lists := []string{KeyNext, KeyDone, KeyQuestions, KeyConstraints, KeyFiles}
	l := lists[r.Intn(len(lists))]
	switch r.Intn(7) {
	case 0:
		k := []string{KeyGoal, KeyNow, KeySession}[r.Intn(3)]
		return "set " + k + " " + it, func() Edit { return Set(k, it) }
	case 1:
		return "remove " + l + " " + it, func() Edit { return Remove(l, it) }
	case 2:
		return "decide " + it, func() Edit { return Decide(Decision{Decision: it, Why: "because", Date: "2026-11-25"}) }
	case 3:
		return "done " + it, func() Edit { return Finish(it) }
	}
	return "append " + l + " " + it, func() Edit { return Append(l, it) }
}

// applyBoth runs Apply with the local check and with a full parse of the
// result, and fails unless both give the same bytes or the same error.
func applyBoth(t *testing.T, src []byte, name string, mk func() Edit) {
	t.Helper()
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	localChecks = false
	want, werr := Apply(src, now, mk())
	localChecks = true
	got, gerr := Apply(src, now, mk())
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) || !bytes.Equal(got, want) {
		t.Fatalf("%s: local check %q, %v; full parse %q, %v\non %q", name, got, gerr, want, werr, src)
	}
}

// agrees checks the local check against a full parse: whenever it vouches
// for out, out parses, to the model it gave. It returns whether it vouched.
func agrees(t *testing.T, d *frontDoc, out []byte, changes []change) bool {
	t.Helper()
	m, ok := d.checkLocal(out, changes)
	if !ok {
		return false
	}
	l, err := m.model()
	if err != nil {
		t.Fatalf("the local check passed a ledger whose model fails (%v):\n%q\n->\n%q", err, d.src, out)
	}
	full, err := parseChecked(out)
	if err != nil {
		t.Fatalf("the local check passed what does not parse (%v):\n%q\n->\n%q", err, d.src, out)
	}
	want, err := full.model()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("the local check's model differs from the full parse's:\nlocal %+v\nfull  %+v\n%q\n->\n%q", l, want, d.src, out)
	}
	return true
}

// TestLocalCheckAgreesWithFullParse edits many generated ledgers: Apply
// with the local check must return what it returns with a full parse of
// the result, and the local check, given the edit's own splices, must
// vouch only for results that parse, to the model a full parse gives.
func TestLocalCheckAgreesWithFullParse(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	n, parsed, vouched := 3000, 0, 0
	if testkit.Short() {
		n = 500
	}
	stamp := "2026-11-25T14:00:00Z"
	for i := 0; i < n; i++ {
		src := genLedger(r)
		name, mk := genEdit(r)
		applyBoth(t, src, name, mk)
		d, err := editable(src, "")
		if err != nil {
			continue
		}
		parsed++
		e := mk()
		start([]Edit{e})
		out, again, err := e.apply(d)
		if err != nil {
			continue
		}
		touched, err := d.setScalar(KeyUpdated, stamp)
		if err != nil {
			continue
		}
		merged, ok := mergeSplice(src, out, touched)
		if !ok {
			continue
		}
		if agrees(t, d, merged, []change{diffChange(src, out), diffChange(src, touched)}) && !again {
			vouched++
		}
	}
	t.Logf("%d ledgers, %d parsed, the local check vouched for %d edits", n, parsed, vouched)
	// The generator must reach the fast path often, or this compares
	// nothing.
	if parsed < n/3 || vouched < parsed/3 {
		t.Fatalf("too little tested: %d of %d ledgers parsed, %d edits vouched for", parsed, n, vouched)
	}
}

// genLines are lines random splices write, most of them wrong somewhere.
var genLines = []string{"  - x\n", "- y\n", "    more text\n", "  # comment\n", "# col 0\n", "\n", "next: [a\n", "  - \"open\n",
	"  - [a, b]\n", "  - a: b\n", "    c: d\n", "now: again\n", "extra: value\n", "  - *it\n", "  - &it x\n", "---\n", "...\n",
	"\tx\n", "  - |\n", "      block\n", "  continued\n", "'\n", "  - '\n", "updated: 2026-11-25T14:00:00Z\n", "  - b\r\n",
	"goal: |\n", "  - ünïcode ✓\n", "  -\n", " - off by one\n", "x\n", "key: [\n", "]\n",
	// yaml.v3 reads these by where they fall (a byte order mark at a line's
	// start) or ends the document at them (a directive): parseFront refuses
	// both, so no chunk may vouch for them.
	"\ufeffk: v\n", "  - \ufeffitem\n", "%YAML 1.2\n", "%TAG ! x\n"}

// randomSplice replaces a random run of whole lines of the front matter
// (possibly none) with random lines, or a few bytes inside a line with
// random bytes.
func randomSplice(r *rand.Rand, d *frontDoc) change {
	var starts []int
	for p := d.fmStart; p <= d.fmEnd; p = lineEndAt(d.src, p) {
		starts = append(starts, p)
		if p == d.fmEnd || p == len(d.src) {
			break
		}
	}
	i := r.Intn(len(starts))
	j := min(len(starts)-1, i+r.Intn(3))
	if r.Intn(4) == 0 && starts[i] < d.fmEnd {
		// Inside a line.
		le := lineEndAt(d.src, starts[i])
		a := starts[i] + r.Intn(le-starts[i])
		b := min(le, a+r.Intn(4))
		return change{start: a, end: b, text: []byte([]string{"x", ":", " ", "#", "\"", "'", "[", "-", "é", "", "\ufeff", "%"}[r.Intn(12)])}
	}
	var text []byte
	for k := r.Intn(3); k > 0; k-- {
		text = append(text, genLines[r.Intn(len(genLines))]...)
	}
	return change{start: starts[i], end: starts[j], text: text}
}

// TestLocalCheckRandomSplices is the local check against a full parse on
// splices no edit would make: lines inserted, deleted and replaced at
// random, most of them breaking the YAML or changing what it means
// elsewhere. The check may refuse what parses; it must never vouch for what
// does not, or for a model other than the full parse's.
func TestLocalCheckRandomSplices(t *testing.T) {
	r := rand.New(rand.NewSource(1515))
	n, vouched, broken := 20000, 0, 0
	if testkit.Short() {
		n = 3000
	}
	for i := 0; i < n; i++ {
		src := genLedger(r)
		d, err := editable(src, "")
		if err != nil {
			continue
		}
		changes := []change{randomSplice(r, d)}
		if r.Intn(2) == 0 {
			c := randomSplice(r, d)
			if c.start >= changes[0].end+1 {
				changes = append(changes, c)
			} else if c.end+1 <= changes[0].start {
				changes = append([]change{c}, changes...)
			}
		}
		var out []byte
		at := 0
		for _, c := range changes {
			out = append(append(out, src[at:c.start]...), c.text...)
			at = c.end
		}
		out = append(out, src[at:]...)
		if agrees(t, d, out, changes) {
			vouched++
		} else if _, err := parseChecked(out); err != nil {
			broken++
		}
	}
	t.Logf("%d splices: vouched for %d, refused %d that do not parse", n, vouched, broken)
	if vouched < n/10 || broken < n/10 {
		t.Fatalf("too little tested: %d vouched, %d broken of %d", vouched, broken, n)
	}
}

// TestLocalCheckRefuses holds the check to what a full parse would say on
// results that do not parse or mean something else, each made by hand
// from a ledger where the fast path otherwise holds.
func TestLocalCheckRefuses(t *testing.T) {
	base := "---\nsession: s\nnow: |\n  a block\nnext:\n  - &first Step 1\n  - Step 2\nowner: me\nupdated: 2026-11-20T10:00:00Z\n---\n\n# Notes\n"
	d, err := editable([]byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) int {
		i := strings.Index(base, s)
		if i < 0 {
			t.Fatalf("no %q", s)
		}
		return i
	}
	insert := func(before, text string) []change {
		p := at(before)
		return []change{{start: p, end: p, text: []byte(text)}}
	}
	cases := []struct {
		name    string
		changes []change
	}{
		{"an unclosed flow list", insert("owner:", "  - [unclosed\n")},
		{"an unclosed quote", insert("owner:", "  - \"open\n")},
		{"a duplicate key", insert("owner:", "now: again\n")},
		{"an alias to no anchor", insert("owner:", "  - *nowhere\n")},
		{"a --- line", insert("owner:", "---\n")},
		{"a ... line", insert("owner:", "...\n")},
		{"a bare CR", insert("owner:", "  - a\rb\n")},
		{"an item without its line break", insert("owner:", "  - x")},
		{"an anchored item removed", []change{{start: at("  - &first"), end: at("  - Step 2"), text: nil}}},
		{"invalid UTF-8", insert("owner:", "  - \xff\n")},
	}
	for _, c := range cases {
		var out []byte
		at := 0
		for _, ch := range c.changes {
			out = append(append(out, base[at:ch.start]...), ch.text...)
			at = ch.end
		}
		out = append(out, base[at:]...)
		if _, ok := d.checkLocal(out, c.changes); ok {
			t.Errorf("%s: the local check vouched for %q", c.name, out)
		}
	}
	// What parses, to something else than it looks, gets the full parse's
	// model: an item too far in continues the one above, and a key renamed
	// at its line's start is another key.
	for _, c := range [][]change{
		insert("owner:", "      - deeper\n"),
		{{start: at("owner"), end: at("owner") + 1, text: []byte("n")}},
	} {
		out := []byte(base[:c[0].start] + string(c[0].text) + base[c[0].end:])
		if !agrees(t, d, out, c) {
			t.Errorf("the local check refused %q", out)
		}
	}
	// And the same check passes a well-made append, so it is not refusing
	// everything.
	ok := insert("owner:", "  - Step 3\n")
	if _, pass := d.checkLocal([]byte(strings.Replace(base, "owner:", "  - Step 3\nowner:", 1)), ok); !pass {
		t.Error("the local check refused a plain append")
	}
	// A change described wrongly (bytes changed outside it) is refused.
	out := strings.Replace(base, "owner:", "  - Step 3\nowner:", 1)
	out = strings.Replace(out, "session: s", "session: t", 1)
	if _, pass := d.checkLocal([]byte(out), ok); pass {
		t.Error("the local check vouched for bytes changed outside the change")
	}
}

// editInputs are the edit goldens' input ledgers, as the goldens' flags
// make them.
func editInputs(tb testing.TB) [][]byte {
	var out [][]byte
	for _, file := range goldenFiles(tb, "edits") {
		a, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		in, _ := archiveFile(a, "input.md")
		out = append(out, fileFlags(string(a.Comment), in))
	}
	return out
}

// FuzzLocalCheck is TestLocalCheckAgreesWithFullParse on any input: the
// goldens and generated ledgers as seeds, any edit.
func FuzzLocalCheck(f *testing.F) {
	for _, in := range editInputs(f) {
		f.Add(in, int64(0))
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 20; i++ {
		f.Add(genLedger(r), int64(i))
	}
	f.Fuzz(func(t *testing.T, src []byte, seed int64) {
		r := rand.New(rand.NewSource(seed))
		name, mk := genEdit(r)
		applyBoth(t, src, name, mk)
		d, err := editable(src, "")
		if err != nil {
			return
		}
		c := randomSplice(r, d)
		out := append(append(append([]byte(nil), src[:c.start]...), c.text...), src[c.end:]...)
		agrees(t, d, out, []change{c})
	})
}

// TestApplyLongLedgerChecksLocally shows the bench's edit takes the fast
// path: its result is vouched for without a full parse.
func TestApplyLongLedgerChecksLocally(t *testing.T) {
	src := bigLedger(2000)
	d, err := editable(src, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.appendItems(KeyNext, "one more step")
	if err != nil {
		t.Fatal(err)
	}
	touched, _ := d.setScalar(KeyUpdated, "2026-11-25T14:00:00Z")
	merged, ok := mergeSplice(src, out, touched)
	if !ok {
		t.Fatal("no merge")
	}
	changes := []change{diffChange(src, out), diffChange(src, touched)}
	if !agrees(t, d, merged, changes) {
		t.Fatal("the local check refused the bench's edit")
	}
	// Its chunk is the last item and the new one, not the list.
	ch, _ := d.chunkOf(changes[0])
	if got := string(src[ch.start:ch.end]); got != "  - Step 799, migrate table t799\n" {
		t.Errorf("chunk %q, want the last item's line", got)
	}
	if errors.Is(err, errBrokenEdit) {
		t.Fatal(err)
	}
}

// TestEditRefusesByteOrderMarkAndDirectives: a ledger with a byte order
// mark at a line's start or a "%" directive line in its front matter is a
// problem, never edited. yaml.v3 read such a line one way or another by
// where it fell in its 512-byte reads (or stopped at the directive), so an
// append checked in chunks wrote a ledger a full parse then refused, and a
// directive hid the keys after it from edits that then wrote them twice.
func TestEditRefusesByteOrderMarkAndDirectives(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	for _, src := range []string{
		"---\nsession: s\nnext:\n  - first\nextra: v # c\n\ufeffk: v\nnow: n\nupdated: 2026-11-20T10:00:00Z\n---\n",
		"---\nnext:\n  - q\n%TAG ! x\n]\nnow: hi\nupdated: 2026-11-20T10:00:00Z\n---\n",
	} {
		if _, err := Parse("L.md", []byte(src)); err == nil {
			t.Errorf("Parse accepts %q", src)
		}
		for _, e := range []Edit{Append(KeyNext, "step "+strings.Repeat("z", 462)), Set(KeyNow, "x")} {
			if out, err := Apply([]byte(src), now, e); err == nil {
				t.Errorf("Apply on %q wrote %q", src, out)
			}
		}
	}
	// Wherever the mark falls in the parser's reads, the same answer.
	for pad := 480; pad < 530; pad++ {
		src := "---\ngoal: " + strings.Repeat("g", pad) + "\n\ufeffk: v\n---\n"
		if _, err := Parse("L.md", []byte(src)); err == nil {
			t.Fatalf("a byte order mark %d bytes in is accepted", pad)
		}
	}
	// A value an edit writes that holds one is escaped, and reads back.
	out, err := Apply([]byte("---\nnext: []\n---\n"), now, Append(KeyNext, "\ufeffstep"))
	if err != nil || strings.Contains(string(out), "\ufeff") {
		t.Fatalf("an edit wrote %q, %v", out, err)
	}
	if l, err := Parse("L.md", out); err != nil || len(l.Next) != 1 || l.Next[0] != "\ufeffstep" {
		t.Errorf("read back: %v, %v", l, err)
	}
}
