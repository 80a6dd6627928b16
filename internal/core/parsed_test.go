package core

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/ledger"
)

// TestContextFromMemoEqualsParse: what a session start injects from the
// remembered parse of its ledger and latest handoff (project.Parsed) is
// byte for byte what it injects from parsing them: for every ledger form
// in testdata (front matter of every edit case, broken ones, Continuous-
// Claude's section style) and every handoff form (continuity's own,
// another agent's, Continuous-Claude's markdown and YAML), each source.
func TestContextFromMemoEqualsParse(t *testing.T) {
	ledgers := map[string]string{"auth": authLedger}
	for _, dir := range []string{"edits", "invalid", "sections"} {
		files, _ := filepath.Glob("../../testdata/ledger/" + dir + "/*.txtar")
		for _, f := range files {
			a, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// The ledger is the archive's first file (input.md, or a
			// section-style ledger's own name).
			if len(a.Files) > 0 && strings.HasSuffix(a.Files[0].Name, ".md") {
				ledgers[dir+"-"+strings.TrimSuffix(filepath.Base(f), ".txtar")] = string(a.Files[0].Data)
			}
		}
	}
	handoffs := []string{ownHandoff, teammateHandoff}
	cc, _ := filepath.Glob("../../testdata/cc/handoffs/*.txtar")
	for _, f := range cc {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		handoffs = append(handoffs, string(a.Files[0].Data))
	}
	if len(ledgers) < 55 || len(handoffs) < 7 {
		t.Fatalf("testdata not found: %d ledgers, %d handoffs", len(ledgers), len(handoffs))
	}

	r := newRepo(t)
	var names []string
	i := 0
	for key, src := range ledgers {
		name := fmt.Sprintf("m%02d", i)
		names = append(names, name)
		r.ledger(name, src)
		r.write(fmt.Sprintf("thoughts/shared/handoffs/%s/2026-11-22T12-05-09Z_pre-compact_s%02d.md", name, i), handoffs[i%len(handoffs)])
		t.Logf("%s: ledger %s, handoff %d", name, key, i%len(handoffs))
		i++
	}
	// A memo is kept only for files older than the racy window.
	time.Sleep(2100 * time.Millisecond)
	e := r.env0(nil)
	remembered := 0
	for _, name := range names {
		for _, source := range Sources {
			parsed, perr := Context(r.p, e, name, source, "")
			if _, err := os.Stat(filepath.Join(r.p.StateDir, "parsed", "ledger-"+name)); err == nil {
				remembered++
			}
			memo, merr := Context(r.p, e, name, source, "")
			if fmt.Sprint(perr) != fmt.Sprint(merr) || parsed.Text != memo.Text || parsed.Message != memo.Message || parsed.Problem != memo.Problem {
				t.Errorf("%s, %s: from the memo\n%s\n%v\n--- from parsing\n%s\n%v", name, source, memo.Text, merr, parsed.Text, perr)
			}
			r.reopen() // a new process each time, as hooks are
		}
	}
	if remembered < len(names)*len(Sources)*3/4 {
		t.Errorf("the ledger was remembered in %d of %d starts", remembered, len(names)*len(Sources))
	}
}

// TestMemoCodecsKeepEveryField: the memo codecs carry every field of a
// ledger (but its bytes, which the notes stand for) and of a parsed
// handoff: each is filled by reflection with a value of its own, so a
// field added later and left out of the codec fails here.
func TestMemoCodecsKeepEveryField(t *testing.T) {
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.String:
			v.SetString(fmt.Sprintf("s%d\n", n))
		case reflect.Int, reflect.Int64:
			v.SetInt(int64(n))
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				v.SetBytes([]byte(fmt.Sprintf("b%d", n)))
				return
			}
			s := reflect.MakeSlice(v.Type(), 2, 2)
			fill(s.Index(0))
			fill(s.Index(1))
			v.Set(s)
		case reflect.Map:
			m := reflect.MakeMap(v.Type())
			for range 3 {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fill(k)
				fill(e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				v.Set(reflect.ValueOf(time.Date(2026, 11, 22, 13, 5, n, 7, time.UTC)))
				return
			}
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		default:
			t.Fatalf("no filler for %s", v.Type())
		}
	}
	roundTrip := func(name string, in, out any) {
		t.Helper()
		if !reflect.DeepEqual(in, out) {
			t.Errorf("%s: read back\n%#v\nwant\n%#v", name, out, in)
		}
	}

	l := &ledger.Ledger{}
	fill(reflect.ValueOf(l).Elem())
	l.Format = ledger.Sections
	in := &ledgerFields{Ledger: l, Notes: "the notes"}
	e := &project.Enc{}
	ledgerCodec.Encode(e, in)
	d := project.NewDec(e.Bytes())
	out := ledgerCodec.Decode(d)
	if !d.OK() {
		t.Fatal("ledger: not read back whole")
	}
	l.Body, l.Src, l.Present, l.Extra = nil, nil, nil, "" // not remembered: Notes stands for them
	roundTrip("ledger", in, out)

	h := &handoff.Parsed{}
	fill(reflect.ValueOf(h).Elem())
	e = &project.Enc{}
	handoffCodec.Encode(e, h)
	d = project.NewDec(e.Bytes())
	got := handoffCodec.Decode(d)
	if !d.OK() {
		t.Fatal("handoff: not read back whole")
	}
	roundTrip("handoff", h, got)
}
