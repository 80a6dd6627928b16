package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/compat"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/ledger"
)

// activeStream is the work stream the generated repositories work on.
const activeStream = "stream-07"

// makeRepo creates a git repository at dir with ledgers ledgers (the active
// one chosen with `continuity use`) and handoffs handoffs in the active
// stream's handoff directory, the worst case for finding the latest. The
// handoffs are rendered from a real recorded session.
func makeRepo(bin, modRoot, dir string, ledgers, handoffs int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := git("init", "-q"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return err
	}
	if err := git("add", "main.go"); err != nil {
		return err
	}
	if err := git("commit", "-q", "-m", "first"); err != nil {
		return err
	}
	ldir := filepath.Join(dir, "thoughts", "ledgers")
	if err := os.MkdirAll(ldir, 0o755); err != nil {
		return err
	}
	now := time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)
	var active *ledger.Ledger
	for i := range ledgers {
		name := fmt.Sprintf("stream-%02d", i)
		src := ledger.New(name, fmt.Sprintf("Ship piece %d of the auth refactor", i), now)
		src, err := ledger.SetScalar(src, ledger.KeyNow, fmt.Sprintf("Writing the tests for piece %d", i))
		if err == nil {
			src, err = ledger.AppendItems(src, ledger.KeyDone, "Read the old middleware", "Sketched the token flow", "Wrote the refresh endpoint")
		}
		if err == nil {
			src, err = ledger.AppendItems(src, ledger.KeyNext, "Logout endpoint", "Revoke refresh tokens on password change", "Update the API docs")
		}
		if err != nil {
			return fmt.Errorf("ledger %s: %w", name, err)
		}
		path := filepath.Join(ldir, "CONTINUITY_"+name+".md")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
		if name == activeStream {
			if active, err = compat.ParseLedger(path, src); err != nil {
				return err
			}
		}
	}
	if active == nil {
		return fmt.Errorf("fewer than 8 ledgers: no %s", activeStream)
	}
	if out, err := runIn(dir, bin, "use", activeStream); err != nil {
		return fmt.Errorf("continuity use: %v: %s", err, out)
	}
	facts, err := claude.ReadTranscriptFile(filepath.Join(modRoot, recordings[0]), "/tmp/rec1/proj", nil)
	if err != nil {
		return err
	}
	hdir := filepath.Join(dir, "thoughts", "shared", "handoffs", activeStream)
	if err := os.MkdirAll(hdir, 0o755); err != nil {
		return err
	}
	meta := handoff.Meta{Stream: activeStream, Event: "pre-compact", Trigger: "auto",
		Branch: "main", Commit: "0123456789abcdef0123456789abcdef01234567", Version: "bench"}
	h := handoff.Build(meta, facts, active)
	h.LedgerPath = "thoughts/ledgers/CONTINUITY_" + activeStream + ".md"
	for i := range handoffs {
		h.Created = now.Add(time.Duration(i-handoffs) * 17 * time.Minute)
		h.AgentSession = fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		body, err := handoff.Render(h, "")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(hdir, handoff.FileName(h.Created, h.Event, h.AgentSession)), body, 0o644); err != nil {
			return err
		}
	}
	// The last handoff was written when the previous session ended, not a
	// second ago: a directory changed within the last seconds is (rightly)
	// listed again on each start.
	past := time.Now().Add(-time.Hour)
	return os.Chtimes(hdir, past, past)
}

func runIn(dir, bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// bigLedger is a ledger of about n lines: done and next lists and notes.
func bigLedger(name string, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nsession: %s\ngoal: Keep a long ledger fast\nnow: Step 0\ndone:\n", name)
	for i := 0; i < n*4/10; i++ {
		fmt.Fprintf(&b, "  - Finished step %d of the migration   # note %d\n", i, i)
	}
	b.WriteString("next:\n")
	for i := 0; i < n*4/10; i++ {
		fmt.Fprintf(&b, "  - Step %d, migrate table t%d\n", i, i)
	}
	b.WriteString("updated: 2026-11-20T10:00:00Z\n---\n\n# Notes\n")
	for i := 0; i < n*2/10; i++ {
		fmt.Fprintf(&b, "Note line %d with some words in it.\n", i)
	}
	return []byte(b.String())
}
