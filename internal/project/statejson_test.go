package project

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/proc"
)

// TestMarshalSessionAsJSON: the state's writer gives what
// json.MarshalIndent gives, byte for byte, for sessions with every field
// set or empty in every mix, and strings of every kind (escapes, HTML
// characters, invalid UTF-8, U+2028); and it reads back as the session.
// Every field of Session, Run and proc.Identity is set at least once, so a
// field added and left out of the writer fails here.
func TestMarshalSessionAsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"", "a", "auth", "thoughts/shared/handoffs/x.md", "\"", "\\", "<&>", "\n\r\t\b\f", "\x00\x01\x1f\x7f", "é—ü", "\u2028\u2029", "\xff\xfe", "a\xc3", "😀", "}{],"}
	str := func() string {
		s := ""
		for range rng.IntN(4) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	tm := func() time.Time {
		switch rng.IntN(4) {
		case 0:
			return time.Time{}
		case 1:
			return time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
		case 2:
			return time.Date(2026, 11, 22, 14, 5, 9, rng.IntN(1e9), time.FixedZone("", 3600*rng.IntN(12)))
		}
		return time.Unix(rng.Int64N(4e9), rng.Int64N(1e9))
	}
	id := func() *proc.Identity {
		if rng.IntN(3) == 0 {
			return nil
		}
		return &proc.Identity{PID: rng.IntN(1 << 22), Start: rng.Uint64(), Where: str()}
	}
	set := map[string]bool{}
	note := func(v any) {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if !rv.Field(i).IsZero() {
				set[rv.Type().Name()+"."+rv.Type().Field(i).Name] = true
			}
		}
	}
	for n := range 5000 {
		s := Session{ID: str(), Ledger: str(), Handoff: str(), HandoffHash: str(), Updated: tm(), HandoffContent: str(),
			Agent: str(), Client: id(), Candidate: id(), Transcript: str(), TranscriptRoot: str(), Seen: tm(),
			Ended: rng.IntN(2) == 0, Recovered: str(), Pending: str(), Claimed: tm()}
		for range rng.IntN(4) {
			r := Run{Event: str(), At: tm(), OK: rng.IntN(2) == 0, Message: str(), Duration: str()}
			note(r)
			s.Runs = append(s.Runs, r)
		}
		note(s)
		if s.Client != nil {
			note(*s.Client)
		}
		want, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got := marshalSession(&s); string(got) != string(want) {
			t.Fatalf("case %d:\n%s\nwant\n%s", n, got, want)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(Session{}), reflect.TypeOf(Run{}), reflect.TypeOf(proc.Identity{})} {
		for i := range typ.NumField() {
			if name := typ.Name() + "." + typ.Field(i).Name; !set[name] {
				t.Errorf("%s never set: the test does not cover it", name)
			}
		}
	}
}
