package core

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/transcript"
)

// BenchmarkRecoverRead reads a 32 MB Claude Code transcript (the recorded
// demo session, repeated with fresh tool ids) from a file, from its start,
// as a recovery does: its MB/s sets RecoverReadMax.
func BenchmarkRecoverRead(b *testing.B) {
	r := newRepo(&testing.T{})
	path := filepath.Join(b.TempDir(), "big.jsonl")
	var data []byte
	src := bytes.ReplaceAll(Transcript, []byte(ProjectDir), []byte(r.dir))
	for i := 0; len(data) < 32<<20; i++ {
		data = append(data, bytes.ReplaceAll(src, []byte(`"toolu_`), fmt.Appendf(nil, `"toolu_%d_`, i))...)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, _, err := transcript.ReadFrom([]string{path}, claude.Host{}.NewDecoder(r.dir, r.p.Redact), nil, time.Time{})
		if err != nil || len(f.Files) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecoverScan is what every session start pays for recovery when
// there is nothing to recover: 200 remembered sessions (the default
// retention), 197 ended and 3 still running, beside the start's context
// for comparison.
func BenchmarkRecoverScan(b *testing.B) {
	t := &testing.T{}
	r := newRepo(t)
	r.ledger("auth", authLedger)
	self := liveClient(t)
	for i := range 200 {
		id := fmt.Sprintf("s-%03d", i)
		if err := r.p.Local.UpdateSession(id, testNow, func(s *localstate.Session) { s.Agent, s.Transcript, s.Client = "claude", "/nowhere.jsonl", self }); err != nil {
			b.Fatal(err)
		}
		if err := r.p.Local.UpdateSession(id, testNow, func(s *localstate.Session) {
			s.Ended = i >= 3
			for j := range 20 {
				s.Runs = append(s.Runs, localstate.Run{Event: "Stop", At: testNow, OK: true, Message: fmt.Sprintf("checkpoint %d", j)})
			}
		}); err != nil {
			b.Fatal(err)
		}
	}
	e := r.env0(recoverHost())
	b.Run("recover", func(b *testing.B) {
		for b.Loop() {
			if recs, _ := Recover(r.p, e, "new"); len(recs) != 0 {
				b.Fatal(recs)
			}
		}
	})
	b.Run("context", func(b *testing.B) {
		for b.Loop() {
			if _, err := Context(r.p, e, "auth", "startup", "new"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTurnEnd is the turn-end checkpoint on a long transcript (32 MB,
// already checkpointed): a turn that appended nothing, and one that
// appended one more copy of the recorded session (200 KB), beside a
// session start's context for comparison.
func BenchmarkTurnEnd(b *testing.B) {
	t := &testing.T{}
	r := newRepo(t)
	r.ledger("auth", authLedger)
	path := filepath.Join(r.transcriptDir(), "long.jsonl") // where the host keeps it: the only place a hook reads from
	src := bytes.ReplaceAll(Transcript, []byte(ProjectDir), []byte(r.dir))
	var data []byte
	for i := 0; len(data) < 32<<20; i++ {
		data = append(data, bytes.ReplaceAll(src, []byte(`"toolu_`), fmt.Appendf(nil, `"toolu_%d_`, i))...)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	e := r.env0(claude.Host{}) // its decoder resumes (the test host's wrapper cannot)
	if _, moved, err := Checkpoint(r.p, e, "long", path); err != nil || !moved {
		b.Fatal(moved, err)
	}
	b.Run("idle", func(b *testing.B) {
		for b.Loop() {
			if _, moved, err := Checkpoint(r.p, e, "long", path); err != nil || moved {
				b.Fatal(moved, err)
			}
		}
	})
	b.Run("one-turn", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = f.Write(bytes.ReplaceAll(src, []byte(`"toolu_`), fmt.Appendf(nil, `"toolu_x%d_`, i)))
			f.Close()
			b.StartTimer()
			if _, moved, err := Checkpoint(r.p, e, "long", path); err != nil || !moved {
				b.Fatal(moved, err)
			}
		}
	})
	b.Run("context", func(b *testing.B) {
		for b.Loop() {
			if _, err := Context(r.p, e, "auth", "startup", "new"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
