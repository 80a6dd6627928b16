package core

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/workspace"
)

// client is the identity of the client process the hook runs for, nil
// when it cannot be known (another platform, a hook run by hand from
// init), and whether it is trusted at once: found by the name its host
// gives it, or found for a host that names none (Gemini CLI's client is a
// plain node, named like any node wrapper; it may run only its start hook
// before it is killed, so waiting for a second call would leave a session
// killed in its first turn unrecovered).
func (k Hook) client() (*localstate.Process, bool) {
	find := k.Client
	if find == nil {
		if !localstate.ProcessesSupported {
			return nil, false
		}
		names := k.Host.ClientNames
		find = func() (localstate.Process, bool, error) {
			id, named, err := localstate.ClientProcess(names...)
			return id, named || len(names) == 0, err
		}
	}
	id, named, err := find()
	if err != nil || !id.Known() {
		k.debugf("client process not identified: %v", err)
		return nil, false
	}
	return &id, named
}

// recover hands off the earlier sessions of the worktree that died (see
// Recover), saying what it did on Stderr.
func (k Hook) recover(p *workspace.Workspace, ev agent.Event) []inject.Recovery {
	recs, problems := Recover(p, k.Env, ev.SessionID)
	for _, pr := range problems {
		k.warnf("%s: %s", ev.Name, pr)
	}
	for _, r := range recs {
		if r.Path != "" {
			k.debugf("%s: recovered session %s (%s): %s", ev.Name, r.Session, r.Why, r.Path)
		} else {
			k.debugf("%s: session %s (%s) will be recovered into %s %s", ev.Name, r.Session, r.Why, r.Dir, r.When)
		}
	}
	return recs
}

// finishRecoveries goes on with the recoveries a start left pending.
func (k Hook) finishRecoveries(p *workspace.Workspace) {
	done, err := FinishRecoveries(p, k.Env)
	for _, d := range done {
		k.debugf("%s", d)
	}
	if err != nil {
		k.warnf("%v", err)
	}
}

// seen records in a session's state what a hook call shows of it: its
// client, its transcript and the host's transcript directory in its
// environment (root, asked at its start or when none is recorded), when,
// and whether it ended. A client found by its name (named) is recorded at
// once; one found by its age alone only once two calls found it (until
// then it is the candidate): a wrapper that took more than a second to
// start the hook, and ends with it, would make a running session look
// over. A session that starts again (resumed) is live again: neither
// ended nor recovered.
func seen(s *localstate.Session, ev agent.Event, agentName string, client *localstate.Process, named bool, root func() string, now time.Time) {
	s.Agent = agentName
	same := func(a *localstate.Process) bool { return a != nil && client != nil && *a == *client }
	switch {
	case client == nil:
		if ev.Kind == agent.Start {
			s.Client, s.Candidate = nil, nil // a start with no client known forgets the last one's: it may be gone
		}
	case named || same(s.Client) || same(s.Candidate):
		s.Client, s.Candidate = client, nil
	default:
		if ev.Kind == agent.Start {
			s.Client = nil
		}
		s.Candidate = client
	}
	if ev.Transcript != "" {
		s.Transcript = ev.Transcript
		if ev.Kind == agent.Start || s.TranscriptRoot == "" {
			s.TranscriptRoot = root()
		}
	}
	s.Seen = now.UTC()
	switch ev.Kind {
	case agent.End:
		s.Ended = true
	case agent.Start:
		s.Ended, s.Recovered, s.Pending = false, "", ""
	}
}

// quietDay is how long a session whose client could not be identified must
// have been quiet before it counts as over (and its handoff says it may be
// early).
const quietDay = 24 * time.Hour

// RecoverReadMax is the most of dead sessions' transcripts a session start
// reads to recover them, all together: about what reads in 100 ms. BenchmarkRecoverRead
// reads a Claude Code transcript from a file at about 1 GB/s (2 shared
// cores, load 4); a quarter of that, for cold disks and busier machines,
// is 25 MB in 100 ms. A larger unread part waits for this worktree's next
// turn end or compaction.
var RecoverReadMax int64 = 24 << 20

// RecoverTimeMax is how long a session start goes on recovering: a dead
// session reached after it (each write of a handoff takes its time, and a
// worktree may hold many) waits, as one past RecoverReadMax does.
var RecoverTimeMax = 200 * time.Millisecond

// claimFor is how long a hook's claim on a recovery holds: one that died
// while recovering gives way after it.
const claimFor = time.Minute

// recoverWhen says when a recovery that waits is done.
const recoverWhen = "at this session's next turn end"

// over says why session s is certainly over ("" when it may still run):
// its client process is gone, or, with no client recorded or one of
// another machine, boot or container (whose process table this one does
// not see), it has been quiet for a day (and then the reason says it may
// be early).
func over(s localstate.Session, now time.Time) string {
	unknown := "no client process could be recorded"
	if s.Client != nil {
		if !localstate.OurProcess(*s.Client) {
			unknown = "its client process runs on another machine or in another container"
		} else if localstate.ProcessGone(*s.Client) {
			return "its client process is gone"
		} else {
			return "" // alive, or not known to be gone
		}
	}
	last := s.Seen
	if last.IsZero() {
		last = s.Updated
	}
	if now.Sub(last) > quietDay {
		return fmt.Sprintf("%s, and it has been quiet since %s; it may be early", unknown, last.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return ""
}

// Recover hands off the earlier sessions of this worktree that are
// certainly over (see over), that saw no end event and are not the session
// starting (current): each one's handoff is written from its transcript
// (event recovered), when its transcript holds work newer than its last
// handoff, and the session is marked so that it is never recovered twice.
// One start reads at most RecoverReadMax of all their transcripts, and
// starts no recovery after RecoverTimeMax: a session past either budget
// is not read now: it is marked pending, and FinishRecoveries, called by a later
// turn end or compaction, writes it. A session still running (its client
// alive) is never touched. It returns what to tell the model and the
// person, and one line per problem.
func Recover(p *workspace.Workspace, e Env, current string) ([]inject.Recovery, []string) {
	var out []inject.Recovery
	var problems []string
	pending := false
	budget, began := RecoverReadMax, time.Now()
	for _, s := range p.Local.Unfinished() {
		// Another host's session is left to that host's next start: only
		// it reads that transcript.
		if s.ID == current || s.ID == "" || s.Ended || s.Recovered != "" || s.Transcript == "" || s.Agent != e.Host.Name() {
			continue
		}
		why := over(s, e.Now)
		if why == "" {
			continue
		}
		e := own(e, s)
		stream, err := streamFor(p, nil, s.ID)
		if err != nil {
			problems = append(problems, fmt.Sprintf("recover session %s: %v", s.ID, err))
			continue
		}
		n := unreadBytes(p, e, s.ID, s.Transcript)
		if n > budget || time.Since(began) > RecoverTimeMax {
			dir, _ := p.StreamHandoffDir(stream)
			if err := p.Local.UpdateSession(s.ID, e.Now, func(t *localstate.Session) { t.Pending = why }); err != nil {
				problems = append(problems, fmt.Sprintf("recover session %s: %v", s.ID, err))
				continue
			}
			pending = true
			out = append(out, inject.Recovery{Session: s.ID, Why: why, Dir: p.Rel(dir) + "/", When: recoverWhen})
			continue
		}
		budget -= n
		r, err := recoverOne(p, e, s, stream, why)
		if err != nil {
			problems = append(problems, fmt.Sprintf("recover session %s: %v", s.ID, err))
		}
		if r.Path != "" {
			out = append(out, r)
		}
	}
	if pending {
		if err := p.Local.SetRecoveryPending(true); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return out, problems
}

// recoverOne writes the handoff of session s, over for why, to stream,
// unless its transcript holds nothing new since its last one, and marks it
// recovered either way (a transcript that cannot be read is a problem, and
// the session is left for a later start).
func recoverOne(p *workspace.Workspace, e Env, s localstate.Session, stream, why string) (inject.Recovery, error) {
	claimed := false
	if err := p.Local.UpdateSession(s.ID, e.Now, func(t *localstate.Session) {
		// Under the lock, the session must still be the one judged over:
		// one resumed since (a new client, seen again) or ended runs on.
		if sameRun(*t, s) && t.Recovered == "" && !t.Ended && (t.Claimed.IsZero() || e.Now.Sub(t.Claimed) > claimFor) {
			t.Claimed, claimed = e.Now.UTC(), true
		}
	}); err != nil || !claimed {
		return inject.Recovery{}, err // another hook recovers it, or did
	}
	w, err := WriteHandoff(p, e, Request{Name: stream, Event: "recovered", Reason: why, AgentSession: s.ID,
		Transcript: s.Transcript, SkipIfSame: true, Recovered: why})
	if err == nil && w.Path != "" {
		err = w.Warning() // written, with problems to tell
	}
	done := w.Path
	switch {
	case w.Path == "" && err != nil:
		_ = p.Local.UpdateSession(s.ID, e.Now, func(t *localstate.Session) { t.Claimed = time.Time{} })
		return inject.Recovery{}, err // left for a later start
	case w.Path == "" && w.Read == "":
		// Missing, empty or refused: nothing to recover from, now or later.
		done = "transcript " + s.Transcript + " not read; nothing recovered"
	case w.Path == "":
		done = w.Message // nothing new since its last handoff
	}
	if uerr := p.Local.UpdateSession(s.ID, e.Now, func(t *localstate.Session) { t.Recovered, t.Pending, t.Claimed = done, "", time.Time{} }); uerr != nil && err == nil {
		err = uerr
	}
	return inject.Recovery{Session: s.ID, Why: why, Path: w.Path}, err
}

// sameRun reports whether t, a session's state now, is still the run s
// was judged from: the same client, last seen at the same time.
func sameRun(t, s localstate.Session) bool {
	sameClient := t.Client == nil && s.Client == nil || t.Client != nil && s.Client != nil && *t.Client == *s.Client
	return sameClient && t.Seen.Equal(s.Seen)
}

// FinishRecoveries goes on with the recoveries a session start left
// pending (their transcripts were too large to read then): each reads on
// from its checkpoint within the turn's budget, and once read to the end
// its handoff is written. The cheap case, nothing pending, is one stat.
func FinishRecoveries(p *workspace.Workspace, e Env) ([]string, error) {
	if !p.Local.RecoveryPending() {
		return nil, nil
	}
	var done []string
	var first error
	left := false
	stop := time.Now().Add(TurnBudget)
	for _, s := range p.Local.Unfinished() {
		if s.Pending == "" || s.Recovered != "" || s.Ended || s.Agent != e.Host.Name() {
			continue
		}
		if time.Now().After(stop) {
			left = true
			break
		}
		e := own(e, s)
		if unreadBytes(p, e, s.ID, s.Transcript) > 0 {
			if _, _, err := Checkpoint(p, e, s.ID, s.Transcript); err != nil {
				first = cmpErr(first, fmt.Errorf("recover session %s: %w", s.ID, err))
				continue
			}
			if unreadBytes(p, e, s.ID, s.Transcript) > RecoverReadMax {
				left = true
				continue
			}
		}
		stream, err := streamFor(p, nil, s.ID)
		if err != nil {
			first = cmpErr(first, err)
			continue
		}
		r, err := recoverOne(p, e, s, stream, s.Pending)
		if err != nil {
			first = cmpErr(first, fmt.Errorf("recover session %s: %w", s.ID, err))
			left = true
			continue
		}
		if r.Path != "" {
			done = append(done, "recovered session "+s.ID+": "+r.Path)
		}
	}
	if !left {
		first = cmpErr(first, p.Local.SetRecoveryPending(false))
	}
	return done, first
}

// own is the setting in which to recover session s: the starting
// session's, with the transcript directory s's own hooks recorded also
// accepted (its transcript was confined by them when they saw it). The
// stream is never taken from the starting session's environment: s's
// recorded ledger, else the worktree's (streamFor with no environment).
func own(e Env, s localstate.Session) Env {
	if s.TranscriptRoot != "" {
		e.Roots = append(e.Roots[:len(e.Roots):len(e.Roots)], s.TranscriptRoot)
	}
	return e
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// readToEnd reports whether checkpoint cp read every one of files to its
// end, and none changed since (size and time): then nothing is new.
func readToEnd(cp *transcript.Checkpoint, files []string) bool {
	marks := map[string]transcript.Mark{}
	for _, m := range cp.Files {
		marks[m.Path] = m
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		m, ok := marks[f]
		switch {
		case err != nil && !ok:
			continue // a subagent's file that is not there
		case err != nil || !ok || fi.Size() != m.Size || m.Offset != m.Size || !fi.ModTime().Equal(m.ModTime):
			return false
		}
	}
	return true
}

// unreadBytes is how much of session id's transcript files lies past its
// checkpoint (all of it without one).
func unreadBytes(p *workspace.Workspace, e Env, id, path string) int64 {
	files := []string{path}
	if e.Host.TranscriptFiles != nil {
		files = e.Host.TranscriptFiles(path)
	}
	read := map[string]int64{}
	if cp := transcript.LoadCheckpoint(p.Local.TranscriptDir(), p.Local.Root(), id); cp != nil {
		for _, m := range cp.Files {
			read[m.Path] = m.Offset
		}
	}
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			n += max(0, fi.Size()-read[f])
		}
	}
	return n
}

// recoveredSummary opens a recovered handoff's summary: why the session is
// over, and what it did (its files and commands, the last few), before the
// summary made from its transcript (its last reply).
func recoveredSummary(why string, f *handoff.Facts, summary string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Recovered: the session ended without a handoff (%s); this handoff was written from its transcript by a later session.", why)
	if len(f.Files) > 0 {
		b.WriteString(" It edited " + lastOf(f.Files, ", ") + ".")
	}
	if len(f.Commands) > 0 {
		b.WriteString(" It ran " + lastOf(quoted(f.Commands), ", ") + ".")
	}
	if summary = strings.TrimSpace(summary); summary != "" {
		b.WriteString("\n\nIts last reply: " + summary)
	}
	return b.String()
}

// lastOf joins the last five items, counting the ones before.
func lastOf(items []string, sep string) string {
	const n = 5
	skipped := max(0, len(items)-n)
	s := strings.Join(items[skipped:], sep)
	if skipped > 0 {
		s += fmt.Sprintf(" (and %d before)", skipped)
	}
	return s
}

func quoted(cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = "`" + oneLineCut(c, 200) + "`"
	}
	return out
}
