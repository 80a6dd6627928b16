package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestSampleCounts measures, on a directory of real ledgers collected from
// public repositories (CC_SAMPLES, not committed: other people's files),
// how many are understood, how many items under known sections reach the
// front matter on import, and how many are left duplicated in the body.
// Without CC_SAMPLES it is skipped.
func TestSampleCounts(t *testing.T) {
	dir := testkit.Dir(t, "CC_SAMPLES")
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	var ledgers, understood, imported, items, reached, dups, lost int
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ledgers++
		path := "thoughts/ledgers/CONTINUITY_CLAUDE-" + strings.TrimSuffix(filepath.Base(f), ".md") + ".md"
		l, err := ParseLedger(path, src)
		if err != nil || isEmptyModel(l) {
			t.Logf("%s: not understood: %v", filepath.Base(f), err)
			continue
		}
		understood++
		out, err := Import(path, src, time.Unix(0, 0))
		if err != nil {
			t.Logf("%s: import: %v", filepath.Base(f), err)
			continue
		}
		imported++
		got, err := ParseLedger(path, out)
		if err != nil {
			t.Fatalf("%s: imported does not parse: %v", f, err)
		}
		fields := norm(modelText(got))
		body := norm(string(Notes(got)))
		var n, r, d int
		for _, it := range knownItems(path, src) {
			n++
			if strings.Contains(fields, it) {
				r++
				if len(it) >= 16 && strings.Contains(body, it) { // shorter ones match anywhere
					d++
					t.Logf("%s: duplicated: %q", filepath.Base(f), it)
				}
			} else if !strings.Contains(body, it) {
				lost++
				t.Logf("%s: LOST (in neither the fields nor the notes): %q", filepath.Base(f), it)
			} else if testing.Verbose() {
				t.Logf("%s: not moved: %q", filepath.Base(f), it)
			}
		}
		t.Logf("%s: %d/%d items reach the front matter, %d duplicated", filepath.Base(f), r, n, d)
		items, reached, dups = items+n, reached+r, dups+d
	}
	t.Logf("ledgers %d, understood %d, imported %d; items under known sections %d, in the front matter %d (%.1f%%), left duplicated %d, lost %d",
		ledgers, understood, imported, items, reached, 100*float64(reached)/float64(max(items, 1)), dups, lost)
	if lost > 0 {
		t.Errorf("%d items are in neither the front matter nor the notes", lost)
	}
}

func isEmptyModel(l *ledger.Ledger) bool {
	return l.Goal == "" && l.Now == "" && len(l.Next) == 0 && len(l.Done) == 0 && len(l.Decisions) == 0 &&
		len(l.Constraints) == 0 && len(l.Files) == 0 && len(l.Questions) == 0
}

func modelText(l *ledger.Ledger) string {
	parts := []string{l.Goal, l.Now}
	parts = append(parts, l.Constraints...)
	parts = append(parts, l.Done...)
	parts = append(parts, l.Next...)
	parts = append(parts, l.Questions...)
	parts = append(parts, l.Files...)
	for _, d := range l.Decisions {
		parts = append(parts, d.Decision+" "+d.Why+" "+d.Date)
	}
	return strings.Join(parts, "\n")
}

// norm keeps letters and digits, lowercased, so quoting, emphasis, boxes
// and labels do not hide an item's text.
func norm(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// knownItems returns the leaf list items and paragraphs under sections that
// name a field (and Codex's labelled lists), normalised, without their labels.
func knownItems(path string, src []byte) []string {
	p := readSections(path, src)
	if p == nil {
		return nil
	}
	var out []string
	add := func(t string) {
		if lab, rest, ok := labelOf(stripBox(t)); ok {
			switch low := strings.ToLower(plainTitle(lab)); {
			case labelKind(lab) != secOther, low == "rationale", low == "why", low == "reason",
				low == "decision", decisionNumRE().MatchString(low + ":"):
				t = rest
			}
		}
		t = stripBox(t)
		if t == "" || isNone(t) {
			return
		}
		if n := norm(t); n != "" {
			out = append(out, n)
		}
	}
	var leaves func(n ast.Node)
	leaves = func(n ast.Node) {
		switch b := n.(type) {
		case *ast.Paragraph:
			if lines := b.Lines(); lines.Len() > 1 {
				for i := 0; i < lines.Len(); i++ {
					seg := lines.At(i)
					line := strings.TrimSpace(string(seg.Value(src)))
					// A table's header and rule name no item.
					if strings.HasPrefix(line, "|") && (i == 0 || strings.Trim(line, "|-: ") == "") {
						continue
					}
					add(line)
				}
				return
			}
			add(linesText(src, b))
		case *ast.List:
			for it := b.FirstChild(); it != nil; it = it.NextSibling() {
				t, nested, _ := p.itemParts(it)
				if nested != nil {
					if _, rest, ok := labelOf(stripBox(t)); !ok || rest != "" {
						add(t)
					}
					leaves(nested)
					continue
				}
				add(t)
			}
		}
	}
	for _, s := range p.sections {
		if s.kind == secOther {
			continue
		}
		for _, b := range s.blocks {
			leaves(b)
		}
	}
	// Codex's labelled list before any section.
	if len(p.sections) == 0 {
		doc := readDoc(src)
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			if l, ok := n.(*ast.List); ok && p.isLabelList(l) {
				leaves(l)
			}
		}
	}
	return out
}

func readDoc(src []byte) ast.Node {
	return goldmark.New().Parser().Parse(text.NewReader(src))
}

// TestNestedItemsReachFields reads a ledger in the shapes Continuous-Claude
// writes in real repositories (items continued over lines, a decision with
// nested rationale and impact and an item under those, a decision holding
// its own paragraph sub-headings and lists, a table with a choice column,
// "**Done** ✅:" labels, ids and commands in the working set): every item
// reaches a field, and the one that cannot (a code block) stays in the
// notes and is counted by Kept.
func TestNestedItemsReachFields(t *testing.T) {
	const path = "thoughts/ledgers/CONTINUITY_CLAUDE-billing-rewrite.md"
	src, err := os.ReadFile(filepath.Join("testdata", "nested-items.md"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Import(path, src, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseLedger(path, out)
	if err != nil {
		t.Fatalf("imported ledger does not parse: %v\n%s", err, out)
	}
	fields := norm(modelText(got))
	notes := norm(string(Notes(got)))
	items := knownItems(path, src)
	if len(items) < 25 {
		t.Fatalf("found %d items; the ledger has more than 25", len(items))
	}
	for _, it := range items {
		switch {
		case strings.Contains(fields, it):
		case strings.Contains(notes, it):
			if it != "fixturetenants" {
				t.Errorf("item %q stayed in the notes; want it in its field", it)
			}
		default:
			t.Errorf("item %q is in neither the fields nor the notes", it)
		}
	}
	if len(got.Decisions) != 5 {
		t.Errorf("decisions %d; want 5: %+v", len(got.Decisions), got.Decisions)
	}
	for _, want := range []string{"Queue: Postgres SKIP LOCKED over Redis", "Event sourcing for usage"} {
		found := false
		for _, d := range got.Decisions {
			found = found || strings.HasPrefix(d.Decision, want)
		}
		if !found {
			t.Errorf("no decision starts %q: %+v", want, got.Decisions)
		}
	}
	if got.Now != "Reconciliation job against the settlement file" {
		t.Errorf("now %q", got.Now)
	}
	if n, where := Kept(path, src); n != 1 || len(where) != 1 || where[0] != "Working Set" {
		t.Errorf("Kept = %d %q; want 1 item under Working Set", n, where)
	}
	if !strings.Contains(string(got.Body), "acme-test, globex-test") {
		t.Errorf("the code block left the notes:\n%s", got.Body)
	}
}
