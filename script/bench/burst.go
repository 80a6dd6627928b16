package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/continuity-md/continuity/handoff"
	agent1 "github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// The burst: burstSessions sessions at once, spread over burstWorktrees
// worktrees of one repository, each running a whole session's hooks
// (start, turn ends, a compaction, an end) on the same stream, timed per
// event beside one session running alone. Afterwards every file the hooks
// wrote must parse and every session must be found: nothing torn or lost.
const (
	burstSessions  = 20
	burstWorktrees = 4
	burstTurns     = 3
)

// step is one hook call of a session's script.
type step struct {
	name string
	ev   agent1.Event
	turn bool // append a turn to the transcript first
}

// script is one session's hooks, in order.
func script(id, transcript, cwd string) []step {
	ev := func(k agent1.Kind) agent1.Event {
		return agent1.Event{Kind: k, SessionID: id, Transcript: transcript, Cwd: cwd}
	}
	start := ev(agent1.Start)
	start.Source = "startup"
	compact := ev(agent1.BeforeCompact)
	compact.Trigger = "auto"
	restart := ev(agent1.Start)
	restart.Source = "compact"
	end := ev(agent1.End)
	end.Reason = "other"
	steps := []step{{name: eventName(agent1.Start) + " (startup)", ev: start}}
	for range burstTurns {
		steps = append(steps, step{name: eventName(agent1.TurnEnd), ev: ev(agent1.TurnEnd), turn: true})
	}
	return append(steps, step{name: eventName(agent1.BeforeCompact), ev: compact, turn: true},
		step{name: eventName(agent1.Start) + " (compact)", ev: restart},
		step{name: eventName(agent1.End), ev: end, turn: true})
}

// burstSession is one session of the burst: where it works, its
// transcript and what each turn appends.
type burstSession struct {
	id, dir, transcript string
	turns               [][]byte
}

// times collects each event's wall times, safe for concurrent sessions.
type times struct {
	mu sync.Mutex
	by map[string][]time.Duration
}

func (t *times) add(name string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.by[name] = append(t.by[name], d)
}

// run plays s's script, timing each hook.
func (s burstSession) run(bin string, env []string, t *times) error {
	turn := 0
	for _, st := range script(s.id, s.transcript, s.dir) {
		if st.turn {
			if err := appendFile(s.transcript, s.turns[turn%len(s.turns)]); err != nil {
				return err
			}
			turn++
		}
		cmd := exec.Command(bin, hookArgv(bin)[1:]...)
		cmd.Dir = s.dir
		cmd.Env = append(childEnv(), env...)
		cmd.Stdin = bytes.NewReader(payload(st.ev))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		began := time.Now()
		err := cmd.Run()
		t.add(st.name, time.Since(began))
		if err != nil {
			return fmt.Errorf("session %s, %s: %v: %s", s.id, st.name, err, errb.Bytes())
		}
		if out.Len() > 0 && !json.Valid(out.Bytes()) {
			return fmt.Errorf("session %s, %s: stdout is not one JSON object: %q", s.id, st.name, out.Bytes())
		}
	}
	return nil
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// runBurst makes a repository with burstWorktrees worktrees, times one
// session alone (a few times), then burstSessions at once, and checks what
// they wrote; it prints p50 and p99 per event for both.
func runBurst(c config, bin, modRoot, tmp string, env []string, w io.Writer, logf func(string, ...any)) error {
	root := filepath.Join(tmp, "burst")
	main := filepath.Join(root, "proj")
	logf("burst: a repository with %d worktrees", burstWorktrees)
	if err := makeRepo(bin, modRoot, main, 8, 20); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Bench", "-c", "user.email=bench@example.com"}, args...)...)
		cmd.Dir = main
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	if err := git("add", "thoughts"); err != nil {
		return err
	}
	if err := git("commit", "-q", "-m", "ledgers"); err != nil {
		return err
	}
	dirs := []string{main}
	for i := 1; i < burstWorktrees; i++ {
		d := filepath.Join(root, fmt.Sprintf("proj-wt%d", i))
		if err := git("worktree", "add", "-q", "-b", fmt.Sprintf("wt%d", i), d); err != nil {
			return err
		}
		dirs = append(dirs, d)
	}
	env = append(slices.Clone(env), "CONTINUITY_LEDGER="+activeStream)
	sw, err := sampleWriter(modRoot)
	if err != nil {
		return err
	}
	newSession := func(id, dir string) (burstSession, error) {
		tdir, err := transcriptDir(env, dir)
		if err != nil {
			return burstSession{}, err
		}
		s := burstSession{id: id, dir: dir, transcript: filepath.Join(tdir, id+".jsonl")}
		var first bytes.Buffer
		if err := sw.Write(&first, 200<<10); err != nil {
			return s, err
		}
		if err := os.WriteFile(s.transcript, first.Bytes(), 0o644); err != nil {
			return s, err
		}
		for range burstTurns + 2 {
			var b bytes.Buffer
			if err := sw.Turn(&b, turnBytes); err != nil {
				return s, err
			}
			s.turns = append(s.turns, b.Bytes())
		}
		return s, nil
	}

	single := &times{by: map[string][]time.Duration{}}
	alone := 10
	if c.quick {
		alone = 4
	}
	logf("burst: one session alone, %d times", alone)
	for n := range alone {
		s, err := newSession(sessionID(8, n), dirs[n%len(dirs)])
		if err != nil {
			return err
		}
		if err := s.run(bin, env, single); err != nil {
			return err
		}
	}
	rounds := 3
	if c.quick {
		rounds = 1
	}
	burst := &times{by: map[string][]time.Duration{}}
	var all []burstSession
	for r := range rounds {
		logf("burst: %d sessions at once across %d worktrees (round %d of %d)", burstSessions, burstWorktrees, r+1, rounds)
		var sessions []burstSession
		for i := range burstSessions {
			s, err := newSession(sessionID(9, r*burstSessions+i), dirs[i%len(dirs)])
			if err != nil {
				return err
			}
			sessions = append(sessions, s)
		}
		var wg sync.WaitGroup
		errs := make([]error, len(sessions))
		for i, s := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.run(bin, env, burst)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		all = append(all, sessions...)
	}
	if err := checkBurst(main, dirs, all); err != nil {
		return fmt.Errorf("burst: %w", err)
	}

	fmt.Fprintf(w, "continuity bench, burst: %d sessions at once across %d worktrees (%d rounds), beside one session alone (%d runs); each session: a start, %d turn ends, a compaction and its restart, an end\n\n",
		burstSessions, burstWorktrees, rounds, alone, burstTurns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "event\talone p50\talone p99\tburst p50\tburst p99\tburst calls")
	for _, st := range script("x", "", "") {
		name := st.name
		if _, done := single.by[name+" done"]; done {
			continue
		}
		single.by[name+" done"] = nil
		a, b := single.by[name], burst.by[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", name, ms(quantile(a, 0.5)), ms(quantile(a, 0.99)), ms(quantile(b, 0.5)), ms(quantile(b, 0.99)), len(b))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nchecked: every handoff and ledger parses, every session's state and its entry among the repository's sessions is whole (%d sessions), each compaction's handoff was written\n", len(all))
	return nil
}

// quantile is the q-quantile of d (0 when empty).
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// checkBurst checks what the burst's sessions wrote: every handoff and
// ledger of every worktree parses, each session wrote its compaction's
// handoff, and each session's local state and its entry among the
// repository's sessions read back whole, ended.
func checkBurst(main string, dirs []string, sessions []burstSession) error {
	compactions := map[string]bool{}
	for _, dir := range dirs {
		p, err := workspace.Open(dir)
		if err != nil {
			return err
		}
		for _, f := range p.HandoffFiles(activeStream) {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			h, err := handoff.Parse(src)
			if err != nil {
				return fmt.Errorf("handoff %s: %w", f, err)
			}
			if h.Meta.Event == "pre-compact" {
				compactions[h.Meta.AgentSession] = true
			}
		}
		lp, err := p.LedgerPath(activeStream)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(lp)
		if err != nil {
			return err
		}
		if _, err := ledger.Parse(lp, src); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
	}
	p, err := workspace.Open(main)
	if err != nil {
		return err
	}
	entries := map[string]bool{}
	for _, r := range p.Local.RepoSessions() {
		if r.Ended {
			entries[r.ID] = true
		}
	}
	for _, s := range sessions {
		if !compactions[s.id] {
			return fmt.Errorf("session %s: no handoff of its compaction", s.id)
		}
		if !entries[s.id] {
			return fmt.Errorf("session %s: not among the repository's sessions, ended", s.id)
		}
		q, err := workspace.Open(s.dir)
		if err != nil {
			return err
		}
		if st := q.Local.LoadSession(s.id); st.Handoff == "" || !st.Ended {
			return fmt.Errorf("session %s: its state is not whole: %+v", s.id, st)
		}
	}
	return nil
}
