package core

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
)

// TestHandoffReadInPart: a hook whose deadline passes while it reads (a
// cold transcript far too long for the host's budget; here a budget that
// is gone at once) writes the handoff from what it read, says so in it and
// in its warning, and lists what the part read holds; the next hook goes on
// from where it stopped, to the rest.
func TestHandoffReadInPart(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	tr := r.transcript() // the demo session: edits src/auth/token.go
	// Then a later session's work, past where the reader first looks at
	// the clock: it writes cache.go and evict.go.
	later, err := os.ReadFile("../../testdata/transcripts/work-after-compact.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.ReplaceAll(later, []byte("/tmp/reader-e2e/c/proj"), []byte(r.dir)))
	f.Close()

	hurried := &testHost{name: "claude", limits: agent.Limits{InjectMax: 10000, EndBudget: time.Nanosecond}}
	w, err := WriteHandoff(r.p, r.env0(hurried), preCompact(tr))
	if w.Path == "" {
		t.Fatalf("no handoff written when time ran out: %+v, %v", w, err)
	}
	if err != nil || w.Warning() == nil || !strings.Contains(w.Warning().Error(), "read only in part") {
		t.Errorf("no warning that the transcript was read in part: %v, %v", err, w.Warning())
	}
	src := r.read(w.Path)
	contains(t, "the hurried handoff", src, "written from the first ", "the hook ran out of time", "src/auth/token.go")
	lacks(t, "the hurried handoff", src, "evict.go", "cache.go")

	// The next hook, with time enough, goes on from there: the rest is read.
	e := r.env0(&testHost{name: "claude", limits: agent.Limits{InjectMax: 10000, EndBudget: 30 * time.Second}})
	e.Now = e.Now.Add(time.Minute)
	w2, err := WriteHandoff(r.p, e, preCompact(tr))
	if err != nil || w2.Path == "" {
		t.Fatalf("the next hook: %+v, %v", w2, err)
	}
	src = r.read(w2.Path)
	contains(t, "the next handoff", src, "src/auth/token.go", "evict.go", "cache.go")
	lacks(t, "the next handoff", src, "ran out of time")
}
