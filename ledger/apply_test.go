package ledger

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// asEdit is the Edit for a golden's edit; touch has none (Apply touches).
func asEdit(e edit) (Edit, bool) {
	switch e.op {
	case "set":
		return Set(e.key, e.value), true
	case "append":
		return Append(e.key, e.value), true
	case "remove":
		return Remove(e.key, e.value), true
	case "decide":
		f := strings.SplitN(e.value, "|", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		return Decide(Decision{Decision: f[0], Why: f[1], Date: f[2]}), true
	}
	return Edit{}, false
}

// oneByOne is what Apply must equal: each edit made and checked on its
// own, then Touch.
func oneByOne(src []byte, now time.Time, es ...edit) ([]byte, error) {
	out := src
	var err error
	for _, e := range es {
		if out, err = apply(out, e); err != nil {
			return nil, err
		}
	}
	return Touch(out, now)
}

var applyNow = time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)

// checkApply compares Apply with the edits made one by one.
func checkApply(t *testing.T, src []byte, es ...edit) {
	t.Helper()
	var edits []Edit
	for _, e := range es {
		x, ok := asEdit(e)
		if !ok {
			return
		}
		edits = append(edits, x)
	}
	want, werr := oneByOne(src, applyNow, es...)
	got, gerr := Apply(src, applyNow, edits...)
	if errors.Is(gerr, errBrokenEdit) {
		t.Fatalf("%v: %v\n%q", es, gerr, src)
	}
	switch {
	case werr != nil && gerr == nil:
		t.Fatalf("%v: one by one failed (%v), Apply did not:\n%q\n->\n%q", es, werr, src, got)
	case werr == nil && gerr != nil:
		t.Fatalf("%v: Apply failed (%v), one by one did not:\n%q", es, gerr, src)
	case gerr != nil && got != nil:
		t.Fatalf("%v: error %v with bytes", es, gerr)
	case !bytes.Equal(got, want):
		t.Fatalf("%v: Apply differs from one by one:\nsrc   %q\nApply %q\nwant  %q", es, src, got, want)
	}
}

// TestApplyGoldens: on every golden input, each golden edit and pairs of
// them through Apply give the bytes of the edits made one by one and Touch.
func TestApplyGoldens(t *testing.T) {
	n := 0
	for _, g := range editGoldens(t) {
		for _, e := range g.edits {
			checkApply(t, g.in, e)
			n++
		}
		checkApply(t, g.in, g.edits...)
		checkApply(t, g.in, edit{"append", KeyDone, "Shipped it"}, edit{"remove", KeyNext, "Shipped it"})
		n += 2
	}
	if n < 20 {
		t.Fatalf("only %d cases: the goldens went missing", n)
	}
}

// TestApplyParsesTwice: a long ledger is parsed once before one edit and
// once after, touch included; the error of a broken ledger names no bytes.
func TestApplyLong(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nsession: big\nnext:\n")
	for i := range 500 {
		b.WriteString("  - step " + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("updated: 2026-11-20T10:00:00Z\n---\n# Notes\n")
	src := []byte(b.String())
	checkApply(t, src, edit{"append", KeyNext, "one more"})
	checkApply(t, src, edit{"set", KeyNow, "now this"}, edit{"append", KeyDone, "step x"}, edit{"remove", KeyNext, "step x"})
	if out, err := Apply([]byte("---\nnext: [a\n---\n"), applyNow, Append(KeyNext, "b")); err == nil || out != nil {
		t.Fatalf("broken ledger: got %q, %v", out, err)
	}
	if _, err := Apply(src, applyNow, Set("bad key", "x")); err == nil {
		t.Fatal("a bad key was accepted")
	}
}

// FuzzApply: Apply of two edits equals the edits made one by one, then
// Touch; neither fails where the other succeeds.
func FuzzApply(f *testing.F) {
	for _, g := range editGoldens(f) {
		f.Add(g.in, uint8(1), uint8(4), "one more", uint8(2), uint8(4), "one more")
		f.Add(g.in, uint8(0), uint8(2), "now this", uint8(3), uint8(0), "X|because|2026-11-23")
	}
	f.Fuzz(func(t *testing.T, src []byte, op1, key1 uint8, v1 string, op2, key2 uint8, v2 string) {
		e1, e2 := fuzzEdit(op1%4, key1, v1), fuzzEdit(op2%4, key2, v2)
		checkApply(t, src, e1, e2)
	})
}
