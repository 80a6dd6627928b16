package ledger

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestFormatScalarReadsBack writes awkward strings in every style and
// context and checks that YAML reads back exactly the string.
func TestFormatScalarReadsBack(t *testing.T) {
	values := []string{
		"plain", "Fix: login", "a #b", "#x", "- x", "yes", "No", "~", "null", "42", "0x1F", "1e3", ".inf",
		"2026-11-21", "[x]", "{x}", "a, b", "it's", `say "hi"`, `back\slash`, " lead", "trail ", "",
		"two\nlines", "two\nlines\n", "\n lead newline", "tab\there", "bell\x07", "nel\u0085x", "ls\u2028x",
		"bom\ufeff", "---", "a\n---\nb", "日本語", "emoji 🎉", "%percent", "@at", "`tick", "!bang", "&amp", "*star",
		"a: b\nc", "  indented\nsecond", "|", ">", "?", ":", "-", "x:", "\r\n",
	}
	styles := []scalarStyle{styleAuto, styleDouble, styleSingle, styleBlock}
	for _, v := range values {
		for _, st := range styles {
			for _, flow := range []bool{false, true} {
				s := formatScalar(v, st, flow, "  ", "\n")
				doc := "k: " + s + "\n"
				if flow {
					doc = "k: [" + s + "]\n"
				}
				var n yaml.Node
				if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
					t.Errorf("%q style %d flow %v: %q does not parse: %v", v, st, flow, doc, err)
					continue
				}
				got := n.Content[0].Content[1]
				if flow {
					got = got.Content[0]
				}
				if got.Value != v || (got.Tag != "!!str" && got.Tag != "!!timestamp") {
					t.Errorf("%q style %d flow %v: wrote %q, reads back %q (%s)", v, st, flow, s, got.Value, got.Tag)
				}
			}
		}
	}
}

func TestNew(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	for _, goal := range []string{"Replace session cookies: JWTs", "", "yes", "two\nlines", `"quoted" # not a comment`} {
		src := New("auth-refactor", goal, now)
		l, err := Parse("CONTINUITY_auth-refactor.md", src)
		if err != nil {
			t.Fatalf("New(%q) does not parse: %v\n%s", goal, err, src)
		}
		if l.Stream != "auth-refactor" || l.Goal != goal || l.Updated != "2026-11-22T14:05:09Z" {
			t.Errorf("New(%q) reads back %+v", goal, l)
		}
		if !bytes.Contains(l.Body, []byte("# Notes")) {
			t.Errorf("New: no notes heading in the body:\n%s", l.Body)
		}
		// A new ledger takes every edit.
		out, err := AppendItems(src, KeyNext, "first")
		if err == nil {
			out, err = AddDecision(out, Decision{Decision: "d", Why: "w"})
		}
		if err != nil {
			t.Fatalf("editing a new ledger: %v", err)
		}
		if l, err = Parse("x.md", out); err != nil || len(l.Next) != 1 || len(l.Decisions) != 1 {
			t.Errorf("after edits: %+v, %v", l, err)
		}
	}
}

func TestRemoveItemReports(t *testing.T) {
	src := []byte("---\nnext:\n  - a\n  - b\n---\n")
	out, removed, err := RemoveItem(src, KeyNext, "a")
	if err != nil || !removed || string(out) != "---\nnext:\n  - b\n---\n" {
		t.Errorf("remove a: %q %v %v", out, removed, err)
	}
	out, removed, err = RemoveItem(src, KeyNext, "zz")
	if err != nil || removed || !bytes.Equal(out, src) {
		t.Errorf("remove missing item: %q %v %v", out, removed, err)
	}
	if _, _, err = RemoveItem(src, KeyNow, "a"); err == nil {
		t.Errorf("remove from a scalar key: no error")
	}
}

func TestEditRefusals(t *testing.T) {
	src := []byte("---\nnow: a\n---\n")
	if _, err := SetScalar(src, "bad key: x", "v"); err == nil {
		t.Error("set with an invalid key: no error")
	}
	if _, err := SetScalar(src, KeyNow, "\xff"); err == nil {
		t.Error("set with invalid UTF-8: no error")
	}
	if _, err := AddDecision(src, Decision{Why: "w"}); err == nil {
		t.Error("decision without text: no error")
	}
	out, err := SetScalar([]byte("# just notes\n"), KeyNow, "x")
	if out != nil || err == nil || !strings.Contains(WithPath(err, "n.md").Error(), "n.md:1: no front matter") {
		t.Errorf("edit of a file with no front matter: %q, %v", out, err)
	}
}

// bigLedger is a ledger of about n lines: long done and next lists and a body.
func bigLedger(n int) []byte {
	var b strings.Builder
	b.WriteString("---\nsession: big\ngoal: Keep a long ledger fast\nnow: Step 0\ndone:\n")
	for i := 0; i < n*4/10; i++ {
		fmt.Fprintf(&b, "  - Finished step %d of the migration   # note %d\n", i, i)
	}
	b.WriteString("next:\n")
	for i := 0; i < n*4/10; i++ {
		fmt.Fprintf(&b, "  - Step %d, migrate table t%d\n", i, i)
	}
	b.WriteString("updated: 2026-11-20T10:00:00Z\n---\n\n# Notes\n")
	for i := 0; i < n*2/10; i++ {
		fmt.Fprintf(&b, "Note line %d with some words in it.\n", i)
	}
	return []byte(b.String())
}

func TestBigLedger(t *testing.T) {
	src := bigLedger(2000)
	out, err := AppendItems(src, KeyNext, "the last step")
	if err == nil {
		out, err = Touch(out, time.Unix(0, 0))
	}
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse("x.md", out)
	if err != nil || l.Next[len(l.Next)-1] != "the last step" || len(l.Done) != 800 {
		t.Fatalf("after append: %v", err)
	}
}

func BenchmarkAppend2000Lines(b *testing.B) {
	src := bigLedger(2000)
	now := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		out, err := AppendItems(src, KeyNext, "one more step")
		if err == nil {
			_, err = Touch(out, now)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
