package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	agent1 "github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/workspace"
)

// newBytes is what a session appended since its last hook when it ends.
const newBytes = 2 << 20

// runEnd times the end of a session whose transcript is long (c.size) with
// newBytes appended since the session's last hook (a before-compaction
// hook, whose checkpoint the end resumes from), against the end of a
// session whose whole transcript is those newBytes, read fresh: the issue's
// target, at most 2x. Each run is a session of its own, its transcript put
// back as it was at the last hook and the new bytes appended again, and
// that hook's checkpoint given to it, so that every run reads what a real
// end reads.
func runEnd(c config, bin, modRoot, repo, mb string, env []string, logf func(string, ...any)) ([]row, error) {
	tdir, err := transcriptDir(env, repo)
	if err != nil {
		return nil, err
	}
	long := filepath.Join(tdir, "transcript-end.jsonl")
	fresh := filepath.Join(tdir, "transcript-end-fresh.jsonl")
	// The long transcript, then what the session wrote after its last
	// hook: the same writer goes on, so the new records are new (their
	// tool ids unlike the earlier ones').
	sw, err := sampleWriter(modRoot)
	if err != nil {
		return nil, err
	}
	logf("session end: generating a %d MB transcript and %d MB more", c.size>>20, newBytes>>20)
	if err := writeFile(long, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, func(w io.Writer) error { return sw.Write(w, c.size) }); err != nil {
		return nil, err
	}
	var more bytes.Buffer
	if err := sw.Write(&more, newBytes); err != nil {
		return nil, err
	}
	added := more.Bytes()[:bytes.LastIndexByte(more.Bytes()[:newBytes], '\n')+1]
	if err := os.WriteFile(fresh, added, 0o644); err != nil {
		return nil, err
	}
	// A file the new bytes edit: what a handoff written from them holds.
	facts, err := transcript.ReadFile(fresh, agent.NewDecoder(repo, nil))
	if err != nil {
		return nil, fmt.Errorf("read the new %d MB: %w", newBytes>>20, err)
	}
	// The recorded sessions' paths lie outside the bench's repository:
	// the handoff lists them apart, by their own path.
	touched := append(append([]string(nil), facts.Files...), facts.Outside...)
	if len(touched) == 0 {
		return nil, fmt.Errorf("the new %d MB edit no file (%v)", newBytes>>20, err)
	}
	edited := filepath.Base(touched[len(touched)-1])
	fi, err := os.Stat(long)
	if err != nil {
		return nil, err
	}
	size := fi.Size()

	// The session's last hook before its end, untimed: it leaves the
	// checkpoint each timed end starts from. It reads within its own
	// deadline; it is run again until it has read everything.
	p, err := workspace.Open(repo)
	if err != nil {
		return nil, err
	}
	state := p.Local.TranscriptDir()
	last := sessionID(7, 0)
	var cp *transcript.Checkpoint
	for try := 0; ; try++ {
		h := &proc{name: "the hook before the end", argv: hookArgv(bin), dir: repo, env: env,
			stdin: payload(agent1.Event{Kind: agent1.BeforeCompact, SessionID: last, Transcript: long, Cwd: repo, Trigger: "auto"})}
		if err := h.once(); err != nil {
			return nil, err
		}
		if cp = transcript.LoadCheckpoint(state, p.Local.Root(), last); cp != nil && len(cp.Files) > 0 && cp.Files[0].Offset == size {
			break
		}
		if try == 5 {
			return nil, fmt.Errorf("the hook before the end left no checkpoint at the end of %s (%+v)", long, cp)
		}
	}

	endName := eventName(agent1.End)
	hdir := filepath.Join(repo, "thoughts", "shared", "handoffs", activeStream)
	handoffs := func() int {
		ents, _ := os.ReadDir(hdir)
		return len(ents)
	}
	// written checks that the run wrote a handoff from the transcript.
	written := func(before *int) func([]byte) error {
		return func([]byte) error {
			ents, err := os.ReadDir(hdir)
			if err != nil || len(ents) <= *before {
				return fmt.Errorf("no handoff written (%d in %s)", len(ents), hdir)
			}
			return holding(hdir, ents, edited)
		}
	}
	var nResumed, nFresh, beforeResumed, beforeFresh int
	resumed := &proc{name: fmt.Sprintf("%s, %s with %d MB new since the last hook", endName, mb, newBytes>>20), argv: hookArgv(bin), dir: repo, env: env}
	resumed.reset = func() error {
		nResumed++
		id := sessionID(8, nResumed)
		resumed.stdin = payload(agent1.Event{Kind: agent1.End, SessionID: id, Transcript: long, Cwd: repo, Reason: "other"})
		beforeResumed = handoffs()
		// The transcript as the last hook left it, then the new bytes
		// (the same file: a client only appends).
		if err := os.Truncate(long, size); err != nil {
			return err
		}
		if err := writeFile(long, os.O_WRONLY|os.O_APPEND, func(w io.Writer) error { _, err := w.Write(added); return err }); err != nil {
			return err
		}
		return transcript.SaveCheckpoint(state, p.Local.Root(), id, cp)
	}
	check := written(&beforeResumed)
	resumed.check = func(out []byte) error {
		if err := check(out); err != nil {
			return err
		}
		// It resumed: its checkpoint goes on from the last hook's to the end.
		next := transcript.LoadCheckpoint(state, p.Local.Root(), sessionID(8, nResumed))
		if next == nil || len(next.Files) == 0 || next.Files[0].Offset != size+int64(len(added)) {
			return fmt.Errorf("the end did not read to the end of %s", long)
		}
		return nil
	}
	first := &proc{name: fmt.Sprintf("%s, a fresh %d MB transcript", endName, newBytes>>20), argv: hookArgv(bin), dir: repo, env: env,
		check: written(&beforeFresh)}
	first.reset = func() error {
		nFresh++
		first.stdin = payload(agent1.Event{Kind: agent1.End, SessionID: sessionID(9, nFresh), Transcript: fresh, Cwd: repo, Reason: "other"})
		beforeFresh = handoffs()
		return nil
	}
	logf("session end: %d runs, alternating with a fresh transcript's", c.editRuns)
	if err := alternate(c.editRuns, first, resumed); err != nil {
		return nil, err
	}
	return []row{
		{p: first},
		// A later hook reads only what is new.
		atMost(resumed, cpuRatio(resumed, first), "fresh "+fmt.Sprint(newBytes>>20)+" MB (CPU)", 2),
	}, nil
}
