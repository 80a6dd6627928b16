package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"
)

var fuzzKeys = []string{KeySession, KeyGoal, KeyNow, KeyUpdated, KeyNext, KeyDone, KeyConstraints, KeyQuestions, KeyFiles, KeyDecisions, "owner", "tags"}

var fuzzOps = []string{"set", "append", "remove", "decide", "touch"}

// fuzzEdit turns fuzz arguments into an edit.
func fuzzEdit(op, key uint8, value string) edit {
	e := edit{op: fuzzOps[int(op)%len(fuzzOps)], key: fuzzKeys[int(key)%len(fuzzKeys)], value: value}
	switch e.op {
	case "decide":
		e.key = KeyDecisions
	case "touch":
		e.key = KeyUpdated
		e.value = time.Unix(int64(len(value))*86400, 0).UTC().Format(time.RFC3339)
	}
	return e
}

// FuzzEdit applies one edit to a ledger and checks what every edit must
// keep: no panic, nothing outside the edited key's lines changes, the edit
// applied twice equals once, and the result parses with the edit visible and
// every other field unchanged.
func FuzzEdit(f *testing.F) {
	for _, g := range editGoldens(f) {
		for _, e := range g.edits {
			op := uint8(0)
			for i, o := range fuzzOps {
				if o == e.op {
					op = uint8(i)
				}
			}
			key := uint8(0)
			for i, k := range fuzzKeys {
				if k == e.key {
					key = uint8(i)
				}
			}
			f.Add(g.in, op, key, e.value)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, op, key uint8, value string) {
		e := fuzzEdit(op, key, value)
		before, perr := Parse("x.md", src)
		out, err := apply(src, e)
		if err != nil {
			if out != nil {
				t.Fatalf("%s: error %v with bytes", e, err)
			}
			if errors.Is(err, errBrokenEdit) {
				t.Fatalf("%s: %v\n%q", e, err, src)
			}
			return
		}
		if perr != nil {
			t.Fatalf("%s edited a ledger that does not parse (%v):\n%q\n->\n%q", e, perr, src, out)
		}
		if before.Format != FrontMatter {
			t.Fatalf("%s edited a ledger of another form", e)
		}
		checkEditRange(t, e, src, out)
		twice, err := apply(out, e)
		if err != nil {
			t.Fatalf("%s a second time: %v\n%q", e, err, out)
		}
		if !bytes.Equal(twice, out) {
			t.Fatalf("%s twice differs from once:\nonce:  %q\ntwice: %q", e, out, twice)
		}
		after, err := Parse("x.md", out)
		if err != nil {
			t.Fatalf("%s: result does not parse: %v\n%q\n->\n%q", e, err, src, out)
		}
		checkVisible(t, e, out)
		if !bytes.Equal(before.Body, after.Body) {
			t.Fatalf("%s changed the body", e)
		}
		blank := func(l *Ledger) Ledger {
			c := *l
			c.Src, c.Body, c.Present, c.Extra = nil, nil, nil, "" // the edited key may be new, or unknown to the model
			if f := c.Scalar(e.key); f != nil {
				*f = ""
			} else if f := c.List(e.key); f != nil {
				*f = nil
			} else if e.key == KeyDecisions {
				c.Decisions = nil
			}
			return c
		}
		if b, a := blank(before), blank(after); !reflect.DeepEqual(b, a) {
			t.Fatalf("%s changed other fields:\nbefore %+v\nafter  %+v", e, b, a)
		}
	})
}

// checkEditRange checks that out differs from src only inside the edited
// key's lines, or by one insertion of whole lines for a missing key.
func checkEditRange(t *testing.T, e edit, src, out []byte) {
	t.Helper()
	d, err := parseFront("", src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(out, src[d.fmEnd:]) {
		t.Fatalf("%s changed the closing delimiter or body", e)
	}
	if en := d.find(e.key); en != nil {
		if !bytes.HasPrefix(out, src[:en.lineStart]) || !bytes.HasSuffix(out, src[en.limit:]) {
			t.Fatalf("%s changed bytes outside %s's lines [%d,%d):\n%q\n->\n%q", e, e.key, en.lineStart, en.limit, src, out)
		}
		return
	}
	p := 0
	for p < len(src) && p < len(out) && src[p] == out[p] {
		p++
	}
	s := 0
	for s < len(src)-p && s < len(out)-p && src[len(src)-1-s] == out[len(out)-1-s] {
		s++
	}
	if p+s < len(src) {
		t.Fatalf("%s on a missing key did more than insert:\n%q\n->\n%q", e, src, out)
	}
}

// checkVisible checks that the edit shows in the parsed result.
func checkVisible(t *testing.T, e edit, out []byte) {
	t.Helper()
	d, err := parseFront("", out)
	if err != nil {
		t.Fatal(err)
	}
	en := d.find(e.key)
	values := func() []string {
		if en == nil || en.val.Kind != yaml.SequenceNode {
			return nil
		}
		var vs []string
		for _, it := range en.val.Content {
			if dec, ok := decisionOf(it); ok && e.key == KeyDecisions && e.op == "remove" {
				vs = append(vs, dec.Decision)
			} else if ok && e.key == KeyDecisions {
				vs = append(vs, fmt.Sprintf("%s|%s|%s", dec.Decision, dec.Why, dec.Date))
			} else {
				vs = append(vs, it.Value)
			}
		}
		return vs
	}
	has := func(v string) bool {
		for _, x := range values() {
			if x == v {
				return true
			}
		}
		return false
	}
	switch e.op {
	case "set", "touch":
		if en == nil || en.val.Kind != yaml.ScalarNode || scalarText(en.val) != e.value {
			t.Fatalf("%s: value not visible in\n%q", e, out)
		}
	case "append":
		if e.value != "" && !has(e.value) {
			t.Fatalf("%s: item not visible in\n%q", e, out)
		}
	case "remove":
		if has(e.value) {
			t.Fatalf("%s: item still there in\n%q", e, out)
		}
	case "decide":
		f := strings.SplitN(e.value, "|", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		if !has(strings.Join(f, "|")) {
			t.Fatalf("%s: decision not visible in\n%q", e, out)
		}
	}
}

// TestFuzzSeedsAreValid guards the fuzz seeds: most must be edits that
// succeed, or the fuzzer starts from nothing.
func TestFuzzSeedsAreValid(t *testing.T) {
	ok := 0
	for _, file := range goldenFiles(t, "edits") {
		a, _ := txtar.ParseFile(file)
		in, _ := archiveFile(a, "input.md")
		cmd, _ := archiveFile(a, "cmd")
		for _, e := range parseCmd(t, string(cmd)) {
			if _, err := apply(fileFlags(string(a.Comment), in), e); err == nil {
				ok++
			} else if probs := (Problems{}); !errors.As(err, &probs) && !errors.Is(err, ErrNotList) && !errors.Is(err, ErrNotScalar) && !strings.Contains(err.Error(), "YAML") {
				t.Errorf("%s: %s: %v", file, e, err)
			}
		}
	}
	if ok < 50 {
		t.Errorf("only %d seed edits succeed", ok)
	}
}

// FuzzParse reads arbitrary files as ledgers: no panic, Problems for what
// cannot be used, and an Import that succeeds gives a parsable ledger.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"edits", "invalid", "sections"} {
		for _, file := range goldenFiles(f, dir) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(fileFlags(string(a.Comment), a.Files[0].Data))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := Parse("CONTINUITY_x.md", src)
		if err != nil {
			var probs Problems
			if !errors.As(err, &probs) || len(probs) == 0 {
				t.Fatalf("Parse error %v is not Problems", err)
			}
			return
		}
		if l.Format != FrontMatter {
			t.Fatalf("Parse read a ledger of another form: %v\n%q", l.Format, src)
		}
		if _, err := Touch(src, time.Unix(0, 0)); err != nil && !errors.Is(err, ErrNotScalar) && !strings.Contains(err.Error(), "tag, anchor") {
			t.Fatalf("Touch on a parsed ledger: %v\n%q", err, src)
		}
	})
}
