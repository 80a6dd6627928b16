package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	agent1 "github.com/continuity-md/continuity/internal/agent"
)

// endBudget is the time Claude Code gives SessionEnd hooks together by
// default (claude-code-facts.md: 1.5 s, then an abrupt kill), the bar each
// host's end is held to here: a whole read of the transcript, nothing cut
// short, and the handoff written, in that time (of CPU: see within).
const endBudget = 1500 * time.Millisecond

// runHuge times the session end on c.huge transcripts, cold (no hook of
// the session read any of it before): Claude Code's SessionEnd hook, and
// the other hosts' handoffs read whole.
func runHuge(c config, bin, modRoot, tmp, repo string, env []string, logf func(string, ...any)) ([]row, error) {
	runs := min(c.scanRuns, 3)
	var rows []row
	tdir, err := transcriptDir(env, repo)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(tdir, "transcript-huge.jsonl")
	logf("generating a %d MB transcript", c.huge>>20)
	if err := writeTranscript(modRoot, path, c.huge); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	endName := eventName(agent1.End)
	hdir := filepath.Join(repo, "thoughts", "shared", "handoffs", activeStream)
	end := &proc{name: fmt.Sprintf("%s (handoff written), cold, %d MB", endName, fi.Size()>>20), argv: hookArgv(bin), dir: repo, env: env}
	n := 0
	end.reset = func() error {
		n++
		end.stdin = payload(agent1.Event{Kind: agent1.End, SessionID: sessionID(10, n), Transcript: path, Cwd: repo, Reason: "other"})
		return nil
	}
	end.check = func([]byte) error {
		ents, err := os.ReadDir(hdir)
		if err != nil {
			return err
		}
		return fromTranscript(hdir, ents)
	}
	logf("%s: %d runs", end.name, runs)
	err = alternate(runs, end)
	os.Remove(path)
	if err != nil {
		return nil, err
	}
	rows = append(rows, within(end, endBudget))
	for _, sh := range shapes {
		path := filepath.Join(tmp, sh.agent+"-huge.jsonl")
		logf("%s: generating %d MB", sh.title, c.huge>>20)
		if err := writeShape(modRoot, sh, path, c.huge); err != nil {
			return nil, err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		h := handoffProc(sh, fmt.Sprintf("%s, cold, %d MB", sh.title, fi.Size()>>20), bin, path, repo, env)
		logf("%s: %d runs", h.name, runs)
		err = alternate(runs, h)
		os.Remove(path)
		if err != nil {
			return nil, err
		}
		rows = append(rows, judgedIf(sh.judged, within(h, endBudget)))
	}
	return rows, nil
}
