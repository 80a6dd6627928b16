package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTranscriptConfined: a hook reads a transcript only inside the host's
// own session directory for the project, symlinks resolved first. Anything
// else is refused: the handoff is still written (from git and the ledger),
// and the reason is one line naming the path redacted. A transcript a
// person names on the command line may lie anywhere.
func TestTranscriptConfined(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	inside := r.transcript()
	b, err := os.ReadFile(inside)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	outside := filepath.Join(elsewhere, SessionID+".jsonl")
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := r.transcriptDir()
	link := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	// A session started in a subdirectory of the repository: the client
	// names its directory after that subdirectory.
	sub := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-src-auth")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	inSub := filepath.Join(sub, SessionID+".jsonl")
	if err := os.WriteFile(inSub, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Another project's directory in the same store is not this project's.
	other := filepath.Join(filepath.Dir(dir), "-elsewhere-proj")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	inOther := filepath.Join(other, SessionID+".jsonl")
	if err := os.WriteFile(inOther, b, 0o644); err != nil {
		t.Fatal(err)
	}
	secretDir := filepath.Join(elsewhere, "ghp_"+strings.Repeat("A1b2", 9))
	if err := os.Mkdir(secretDir, 0o755); err != nil {
		t.Fatal(err)
	}
	secretPath := filepath.Join(secretDir, "t.jsonl")
	if err := os.WriteFile(secretPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	climb := dir + string(filepath.Separator) + rel // not cleaned: it starts in the directory
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		named      bool
		read       bool
		why        string
	}{
		{"inside", inside, false, true, ""},
		{"inside, a subdirectory's session", inSub, false, true, ""},
		{"outside", outside, false, false, "outside the agent's own session directory"},
		{"another project's directory", inOther, false, false, "outside the agent's own session directory"},
		{"a symlink in the directory pointing out", link, false, false, "outside the agent's own session directory"},
		{"a path climbing out of the directory", climb, false, false, "outside"},
		{"/proc/self/fd/0", "/proc/self/fd/0", false, false, "kernel or device file"},
		{"a FIFO inside", fifo, false, false, "not a regular file"},
		{"a path holding a token", secretPath, false, false, "outside"},
		{"a path with a line break", filepath.Join(elsewhere, "a\ncontinuity hook: forged line.jsonl"), false, false, "outside"},
		{"outside, named by a person", outside, true, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := preCompact(tt.path)
			req.Named = tt.named
			req.AgentSession = "s-" + strings.ReplaceAll(tt.name, " ", "-")
			done := make(chan struct{})
			var w Written
			go func() {
				defer close(done)
				w, err = WriteHandoff(r.p, r.env0(nil), req)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the hook hung on the transcript")
			}
			if w.Path == "" || err != nil {
				t.Fatalf("no handoff written: %+v, %v", w, err)
			}
			err = w.Warning() // written, with its problems as values
			if got := w.Read != ""; got != tt.read {
				t.Fatalf("transcript read %v (%q), want %v; err %v", got, w.Read, tt.read, err)
			}
			if tt.read {
				if err != nil {
					t.Errorf("warned: %v", err)
				}
				if !strings.Contains(r.read(w.Path), "src/auth/token.go") {
					t.Error("the handoff lacks the transcript's files")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "transcript not read") || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("the refusal says %v, want %q", err, tt.why)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("more than one line: %q", err)
			}
			if strings.Contains(err.Error(), "ghp_") {
				t.Errorf("the path's token is printed: %q", err)
			}
			if strings.Contains(r.read(w.Path), "src/auth/token.go") {
				t.Error("the handoff holds the refused transcript's files")
			}
		})
	}
}

// TestCheckpointConfined: the turn-end checkpoint reads nothing outside
// the host's directory, and keeps no checkpoint of it.
func TestCheckpointConfined(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	b, err := os.ReadFile(r.transcript())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(r.transcriptDir(), "linked.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{outside, link} {
		_, moved, err := Checkpoint(r.p, r.env0(nil), "s1", path)
		if moved || err == nil || !strings.Contains(err.Error(), "outside the agent's own session directory") {
			t.Errorf("%s: moved %v, %v", path, moved, err)
		}
	}
	if ents, _ := os.ReadDir(r.p.Local.TranscriptDir()); len(ents) > 0 {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "transcript-") {
				t.Errorf("a checkpoint was kept: %s", e.Name())
			}
		}
	}
}

// TestTranscriptDirUnknown: with no directory the host keeps transcripts
// in (no home, no config directory), a hook reads none.
func TestTranscriptDirUnknown(t *testing.T) {
	r := newRepo(t)
	tr := r.transcript()
	e := r.env0(&testHost{name: "x"})
	e.Getenv = func(string) string { return "" }
	if _, err := transcriptFiles(r.p, e, tr, false); err == nil {
		// Claude Code's directory falls back on the process's home: only
		// when that is not where tr lies is it refused.
		if home, herr := os.UserHomeDir(); herr != nil || !strings.HasPrefix(tr, home) {
			t.Errorf("read %s with no transcript directory known", tr)
		}
	}
	if _, err := transcriptFiles(r.p, e, tr, true); err != nil {
		t.Errorf("named by a person: %v", err)
	}
}

// TestSubagentFilesConfined: a Claude Code session's subagent files are
// read when they lie in the host's directory, and left out (the session's
// own transcript still read) when their directory is a symlink leading out
// or one of them is a FIFO.
func TestSubagentFilesConfined(t *testing.T) {
	for _, tt := range []struct {
		name  string
		place func(t *testing.T, subs, outside string)
		want  bool
	}{
		{"inside", func(t *testing.T, subs, outside string) {
			if err := os.Rename(filepath.Join(outside, "agent-1.jsonl"), filepath.Join(subs, "agent-1.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"subagents a symlink out", func(t *testing.T, subs, outside string) {
			if err := os.Remove(subs); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, subs); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file symlinked out", func(t *testing.T, subs, outside string) {
			if err := os.Symlink(filepath.Join(outside, "agent-1.jsonl"), filepath.Join(subs, "agent-1.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a FIFO", func(t *testing.T, subs, _ string) {
			if err := mkfifo(filepath.Join(subs, "agent-1.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.ledger("auth", authLedger)
			tr := r.transcript()
			subs := filepath.Join(strings.TrimSuffix(tr, ".jsonl"), "subagents")
			if err := os.MkdirAll(subs, 0o755); err != nil {
				t.Fatal(err)
			}
			outside := t.TempDir()
			rec := `{"type":"assistant","timestamp":"2026-11-22T14:06:00Z","uuid":"sub-1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_sub1","name":"Write","input":{"file_path":"` +
				filepath.Join(r.dir, "src", "leak", "outside.go") + `","content":"package leak\n"}}]}}` + "\n"
			if err := os.WriteFile(filepath.Join(outside, "agent-1.jsonl"), []byte(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			tt.place(t, subs, outside)
			done := make(chan struct{})
			var w Written
			var err error
			go func() {
				defer close(done)
				w, err = WriteHandoff(r.p, r.env0(nil), preCompact(tr))
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the hook hung on a subagent file")
			}
			if err != nil || w.Path == "" || w.Read == "" {
				t.Fatalf("%+v, %v", w, err)
			}
			h := r.read(w.Path)
			if !strings.Contains(h, "src/auth/token.go") {
				t.Error("the session's own transcript was not read")
			}
			if got := strings.Contains(h, "src/leak/outside.go"); got != tt.want {
				t.Errorf("the subagent's file in the handoff: %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSessionEndRefusedIsNotIdle: at a session's end, a transcript that
// was refused says nothing of the session's activity: the handoff is
// written from git and the ledger and the refusal said, not skipped as an
// idle session's would be.
func TestSessionEndRefusedIsNotIdle(t *testing.T) {
	r := newRepo(t)
	r.ledger("auth", authLedger)
	b, err := os.ReadFile(r.transcript())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := WriteHandoff(r.p, r.env0(nil), Request{Name: "auth", Event: "session-end", AgentSession: "s-end", Transcript: outside, SkipIfSame: true})
	if w.Path == "" || err != nil || w.Warning() == nil || !strings.Contains(w.Warning().Error(), "outside the agent's own session directory") {
		t.Errorf("session end, transcript refused: %+v, %v", w, err)
	}
}
