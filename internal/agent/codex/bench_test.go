package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/transcript"
)

// bigRollout is the recorded rollout repeated to about size bytes: a long
// session's mix of instructions, tool calls, outputs and compactions.
func bigRollout(b *testing.B, size int) string {
	b.Helper()
	one := rollout(b)
	path := filepath.Join(b.TempDir(), "rollout.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	for n := 0; n < size; n += len(one) {
		if _, err := f.Write(one); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadRollout100MB reads a 100 MB rollout, as a SessionEnd hook
// would at the end of a long session (Codex gives it 3 s at most).
func BenchmarkReadRollout100MB(b *testing.B) {
	path := bigRollout(b, 100<<20)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, err := transcript.ReadFile(path, newDecoder(root, nil)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSummary100MB finds the last compaction summary of a 100 MB
// rollout, as PostCompact's Decode does.
func BenchmarkSummary100MB(b *testing.B) {
	path := bigRollout(b, 100<<20)
	dir := filepath.Dir(path)
	h := Host{getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return filepath.Dir(dir)
		}
		return ""
	}}
	// The rollout must lie under $CODEX_HOME/sessions.
	sessions := filepath.Join(filepath.Dir(dir), "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		b.Fatal(err)
	}
	moved := filepath.Join(sessions, "rollout.jsonl")
	if err := os.Rename(path, moved); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if s := h.summary(moved); s == "" || !bytes.Contains([]byte(s), []byte("SUMMARY-TEXT")) {
			b.Fatalf("summary %q", s)
		}
	}
}
