package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	agent1 "github.com/continuity-md/continuity/internal/agent"
)

// syncCost is the most sync may add to a session end's median: the local
// record is git plumbing (status, hash-object, update-index, write-tree,
// commit-tree, update-ref) and the push is started, never waited for.
const syncCost = 300 * time.Millisecond

// runSync times a session end that writes a handoff from a 1 MB
// transcript with sync off and with sync on (the snapshot recorded on
// this machine's ref, a background push to a file:// remote started),
// alternating, each run a session of its own with a worktree change of
// its own.
func runSync(c config, bin, modRoot, tmp string, env []string, logf func(string, ...any)) ([]row, error) {
	repo := filepath.Join(tmp, "repo-sync")
	if err := makeRepo(bin, modRoot, repo, 8, 20); err != nil {
		return nil, err
	}
	bare := filepath.Join(tmp, "remote-sync.git")
	for _, args := range [][]string{{"clone", "-q", "--bare", repo, bare}, {"-C", repo, "remote", "add", "origin", "file://" + bare}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	tdir, err := transcriptDir(env, repo)
	if err != nil {
		return nil, err
	}
	tpath := filepath.Join(tdir, "transcript-sync.jsonl")
	if err := writeTranscript(modRoot, tpath, 1<<20); err != nil {
		return nil, err
	}
	hdir := filepath.Join(repo, "thoughts", "shared", "handoffs", activeStream)
	count := func() int { ents, _ := os.ReadDir(hdir); return len(ents) }
	n := 0
	mk := func(mode string) *proc {
		p := &proc{name: fmt.Sprintf("%s, 1 MB transcript, sync: %s", eventName(agent1.End), mode), argv: hookArgv(bin), dir: repo,
			env: append(append([]string(nil), env...), "CONTINUITY_SYNC="+mode, "CONTINUITY_MACHINE=bench")}
		var before int
		p.reset = func() error {
			n++
			p.stdin = payload(agent1.Event{Kind: agent1.End, SessionID: sessionID(9, n), Transcript: tpath, Cwd: repo, Reason: "other"})
			before = count()
			return os.WriteFile(filepath.Join(repo, "main.go"), []byte(fmt.Sprintf("package main\n\nfunc main() {} // %d\n", n)), 0o644)
		}
		p.check = func([]byte) error {
			if count() <= before {
				return fmt.Errorf("no handoff written in %s", hdir)
			}
			return nil
		}
		return p
	}
	off, on := mk("off"), mk("ref")
	logf("sync: %d session ends each, sync off and on, alternating", c.editRuns)
	if err := alternate(c.editRuns, off, on); err != nil {
		return nil, err
	}
	out, err := exec.Command("git", "-C", repo, "for-each-ref", "--format=%(refname)", "refs/continuity/").Output()
	if err != nil || !strings.Contains(string(out), "refs/continuity/bench-") {
		return nil, fmt.Errorf("sync on recorded nothing on refs/continuity/ (%v)", err)
	}
	// Judged on CPU time (the git processes it waits for included), as
	// every target here: on a shared machine the clock mostly measures
	// the queue for a core. The wall time's difference is shown beside.
	extra := on.cpuMedian() - off.cpuMedian()
	return []row{{p: off}, {p: on, ratio: fmt.Sprintf("+%s CPU over sync off (wall +%s)", ms(extra), ms(on.median()-off.median())),
		target: "< off + " + ms(syncCost), ok: pass(float64(extra) < float64(syncCost)*(1+noiseMargin)), past: extra > syncCost}}, nil
}
