package core

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/transcript"
)

// TestCheckpointTurnByTurn: the turn-end checkpoint reads only what was
// appended, writes nothing when nothing was, and the facts it keeps equal a
// whole read of the transcript.
func TestCheckpointTurnByTurn(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	full, err := os.ReadFile(r.transcript())
	if err != nil {
		t.Fatal(err)
	}
	e := r.env0(claude.Host{})
	path := filepath.Join(r.transcriptDir(), "s.jsonl")
	half := len(full) / 2
	for half < len(full) && full[half-1] != '\n' {
		half++
	}
	if err := os.WriteFile(path, full[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	state := r.p.Local.TranscriptDir()
	if _, moved, err := Checkpoint(r.p, e, "s1", path); err != nil || !moved {
		t.Fatalf("first turn: moved %v, %v", moved, err)
	}
	entries := func() map[string]int64 {
		m := map[string]int64{}
		ents, _ := os.ReadDir(state)
		for _, de := range ents {
			if !strings.HasPrefix(de.Name(), "transcript-") {
				continue // the writer's lock and temporary directory
			}
			fi, _ := de.Info()
			m[de.Name()] = fi.ModTime().UnixNano()
		}
		return m
	}
	before := entries()
	if len(before) != 1 {
		t.Fatalf("checkpoint files %v, want one", before)
	}
	if msg, moved, err := Checkpoint(r.p, e, "s1", path); err != nil || moved || msg != "" {
		t.Fatalf("a turn that did nothing: moved %v, %q, %v", moved, msg, err)
	}
	if after := entries(); !reflect.DeepEqual(after, before) {
		t.Errorf("a turn that did nothing wrote local state: %v -> %v", before, after)
	}
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, moved, err := Checkpoint(r.p, e, "s1", path); err != nil || !moved {
		t.Fatalf("second turn: moved %v, %v", moved, err)
	}
	resumed, _, err := transcript.ReadFrom([]string{path}, claude.Host{}.NewDecoder(r.p.Root, r.p.Redact), transcript.LoadCheckpoint(state, r.p.Local.Root(), "s1"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := claude.ReadTranscriptFile(path, r.p.Root, r.p.Redact)
	if err != nil {
		t.Fatal(err)
	}
	resumed.Lines, resumed.Bytes = whole.Lines, whole.Bytes
	if !reflect.DeepEqual(resumed, whole) {
		t.Errorf("facts from the checkpoints differ from a whole read:\n%+v\n%+v", resumed, whole)
	}
}
