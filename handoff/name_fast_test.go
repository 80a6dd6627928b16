package handoff

import (
	"math/rand"
	"testing"
	"time"
)

// TestOwnNameTimeAsRegexp: the hand-written reading of continuity's own
// names accepts exactly what handoffName matches, with the same time.
func TestOwnNameTimeAsRegexp(t *testing.T) {
	// A name is a time, an event, an id, a "~N" and an extension, each
	// drawn from good and bad forms.
	slots := [][]string{
		{"2026-11-22T14-05-09Z", "2026-13-22T14-05-09Z", "2026-11-22T14-05-09", "2026-11-22 14-05-09Z", ""},
		{"_pre-compact", "_session-end", "_Manual", "_", "_a b", "", "_x_y"},
		{"_930cbd59", "_1", "", "_", "_AB", "_z-9"},
		{"", "~2", "~", "~1234567890", "~x", "~123456789"},
		{".md", ".MD", ".yaml", "", ".md.md"},
	}
	rng := rand.New(rand.NewSource(1))
	own := 0
	for range 100000 {
		name := ""
		for _, slot := range slots {
			name += slot[rng.Intn(len(slot))]
		}
		got, ok := ownNameTime(name)
		var want time.Time
		m := handoffName().FindStringSubmatch(name)
		matched := m != nil
		if matched {
			var err error
			want, err = time.Parse(nameTime, m[1][:len(nameTime)])
			matched = err == nil
		}
		if ok != matched || ok && !got.Equal(want) {
			t.Fatalf("%q: own %v %v, regexp %v %v", name, got, ok, want, matched)
		}
		if ok {
			own++
		}
	}
	if own < 100 {
		t.Errorf("only %d names of continuity's form were tried", own)
	}
}
