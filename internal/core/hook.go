package core

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// MaxPayload bounds how much of a hook's stdin is read; larger payloads
// are refused.
const MaxPayload = 4 << 20

// ErrEmpty reports an empty payload.
var ErrEmpty = errors.New("empty payload")

// ReadPayload reads one hook payload from r, at most MaxPayload bytes.
func ReadPayload(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read payload: %w", err)
	}
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("payload larger than %d MiB", MaxPayload>>20)
	}
	for _, c := range data {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return data, nil
		}
	}
	return nil, ErrEmpty
}

// Hook is the setting of one hook call.
type Hook struct {
	Env
	Dir    string    // the process's working directory: the project when neither the event nor the host names one
	Stderr io.Writer // one line per problem, "continuity hook: …"
	Debug  bool      // say more on Stderr
	// Client identifies the client process the hook runs for (nil:
	// localstate.Client), recorded so that a later session can tell it is gone,
	// and says whether it was found by its name (trusted at once).
	Client func() (localstate.Process, bool, error)
	// ByHand says a person ran the hook (its output is a terminal, which
	// no agent gives a hook): it records no client and no session at work,
	// and the session it names is over when it returns, so trying a hook
	// by hand never leaves a session that counts as live.
	ByHand bool
}

// Handle acts on one event and returns the answer for the host to encode.
// It never fails, so the session goes on whatever happens: each problem is
// one line on Stderr. A project that has not opted in gets nothing and is
// never written to. Each run is recorded in the agent session's local
// state (for doctor).
func (k Hook) Handle(ev agent.Event) agent.Answer {
	start := time.Now()
	refines := k.Host.Refine != nil
	switch {
	case ev.Kind == agent.Ignore:
		k.debugf("event %q is not one continuity handles", ev.Name)
		return agent.Answer{}
	case ev.Kind == agent.TurnEnd && (ev.Transcript == "" || ev.SessionID == ""):
		return agent.Answer{} // nothing to checkpoint
	case ev.Kind == agent.BeforePrompt && !ev.Compacted && !refines:
		return agent.Answer{} // the common case: nothing to do, nothing read
	}
	p := k.open(ev)
	if p == nil {
		return agent.Answer{}
	}
	defer func() {
		// What the configuration's allow entries spared is said on
		// every run that spared something.
		for _, n := range p.AllowanceNotes() {
			k.warnf("config: %s", n)
		}
	}()
	if refines {
		// Only now, in a repository that has opted in, may the host look
		// at the files the payload names.
		ev = k.Host.Refine(ev)
		if ev.Kind == agent.Ignore || ev.Kind == agent.BeforePrompt && !ev.Compacted {
			return agent.Answer{}
		}
	}
	if ev.Subagent != "" {
		return k.subagent(p, ev, start)
	}
	var client *localstate.Process
	var named, looked bool
	if ev.Kind == agent.Start && ev.SessionID != "" && !k.ByHand {
		// A start is told of the others at work: its client's own
		// sessions are not others.
		client, named = k.client()
		k.Env.Client, looked = client, true
	}
	if set, said := EnsureMergeDriver(p); set {
		k.debugf("set up the ledger merge driver in this clone's git config (.gitattributes names it)")
	} else if said != "" {
		k.warnf("%s", said)
	}
	var ans agent.Answer
	var msg, stream string
	var files []string
	var err error
	var learned func(*localstate.Session) // what the session's state learns besides this run
	switch ev.Kind {
	case agent.Start:
		ans, msg, stream, err = k.start(p, ev)
	case agent.BeforePrompt:
		ans, msg, stream, err = k.refresh(p, ev)
	case agent.BeforeCompact:
		msg, files, learned, err = k.handoff(p, ev, "pre-compact", false)
		k.finishRecoveries(p)
	case agent.End:
		msg, files, learned, err = k.handoff(p, ev, "session-end", true)
	case agent.AfterCompact:
		msg, err = AddSummary(p, ev.SessionID, ev.Summary)
	case agent.TurnEnd:
		var moved bool
		msg, files, moved, err = checkpoint(p, k.Env, ev.SessionID, ev.Transcript)
		k.finishRecoveries(p)
		if !moved && err == nil {
			return agent.Answer{} // a turn that did nothing writes nothing
		}
	}
	run := localstate.Run{Event: ev.Name, At: k.Now.UTC(), OK: err == nil, Message: msg, Duration: time.Since(start).Round(time.Millisecond).String()}
	if err != nil {
		run.Message = err.Error()
		k.warnf("%s: %v", ev.Name, err)
	} else if msg != "" {
		k.debugf("%s: %s", ev.Name, msg)
	}
	if ev.SessionID != "" && k.ByHand {
		if serr := p.Local.UpdateSession(ev.SessionID, k.Now, func(s *localstate.Session) {
			s.Runs = append(s.Runs, run)
			s.Agent, s.Seen, s.Ended = k.Host.Name(), k.Now.UTC(), true
		}); serr != nil {
			k.debugf("record run: %v", serr)
		}
		return ans
	}
	if ev.SessionID != "" {
		if !looked {
			client, named = k.client()
		}
		var trusted, candidate *localstate.Process
		if serr := p.Local.UpdateSession(ev.SessionID, k.Now, func(s *localstate.Session) {
			s.Runs = append(s.Runs, run)
			if learned != nil {
				learned(s)
			}
			if stream != "" {
				s.Ledger = stream
			}
			seen(s, ev, k.Host.Name(), client, named, func() string { return k.Host.TranscriptDir(k.Getenv, p.Root) }, k.Now)
			stream, trusted, candidate = s.Ledger, s.Client, s.Candidate
		}); serr != nil {
			k.debugf("record run: %v", serr)
		}
		if rerr := recordRepoSession(p, k.Now, ev, k.Host.Name(), stream, trusted, candidate, files); rerr != nil {
			k.debugf("record the repository's session: %v", rerr)
		}
	}
	return ans
}

// subagent acts on a subagent's hook, whose session id is its parent's:
// its start is given what the configuration's subagents says (full, short
// or none); nothing else it does writes a handoff, recovers a session or
// touches its parent's state, and its calls count as its parent's
// activity among the repository's sessions.
func (k Hook) subagent(p *workspace.Workspace, ev agent.Event, start time.Time) agent.Answer {
	var ans agent.Answer
	stream := ""
	if ev.Kind == agent.Start && p.Config.Subagents != "none" {
		name, err := LedgerFor(p, k.Getenv, ev.SessionID)
		if err == nil {
			var inj Injection
			inj, err = Context(p, k.Env, name, SubagentSource, ev.SessionID)
			if err == nil || inj.Text != "" {
				ans.Context, stream = inj.Text, name
			}
		}
		if err != nil && !errors.Is(err, workspace.ErrNoLedger) && !errors.Is(err, ledger.ErrNotFound) {
			k.warnf("%s: %v", ev.Name, err)
		}
	}
	k.debugf("%s: subagent %s of session %s (%s)", ev.Name, ev.Subagent, ev.SessionID, time.Since(start).Round(time.Millisecond))
	if err := recordRepoSession(p, k.Now, ev, k.Host.Name(), stream, nil, nil, nil); err != nil {
		k.debugf("record the repository's session: %v", err)
	}
	return ans
}

// open opens the event's project: its cwd, else the directory the host
// names, else the process's. It returns nil when the hook must do nothing.
func (k Hook) open(ev agent.Event) *workspace.Workspace {
	dir := ev.Cwd
	if dir != "" && !filepath.IsAbs(dir) {
		// The host always sends an absolute cwd; a relative one would
		// resolve against wherever this process happens to run.
		k.warnf("%s: cwd %q is not an absolute path; nothing done", ev.Name, oneLineCut(dir, 200))
		return nil
	}
	if dir == "" {
		dir = k.Host.ProjectDir(k.Getenv)
	}
	if dir == "" {
		dir = k.Dir
	}
	p, err := workspace.OpenWith(dir, k.Getenv)
	if err != nil {
		k.warnf("%s: %v; nothing done", ev.Name, err)
		return nil
	}
	if p.Config.Disable {
		return nil
	}
	if !p.OptedIn() {
		k.debugf("%s has no %s and no %s; nothing done (start a ledger with `continuity new NAME`)", p.Root, p.Rel(p.LedgerDir), workspace.ConfigFile)
		return nil
	}
	if s := p.Config.Summary(); s != "" {
		k.warnf("config: %s", s)
	}
	return p
}

// start gives a starting session its context, exports the active ledger to
// the agent's shell where the host can, and prunes local state now and then.
func (k Hook) start(p *workspace.Workspace, ev agent.Event) (agent.Answer, string, string, error) {
	recovered := k.recover(p, ev)
	if err := fetchSoon(p, k.Env); err != nil {
		k.debugf("sync: %v", err) // this start uses what the last fetch brought
	}
	name, err := LedgerFor(p, k.Getenv, ev.SessionID)
	if errors.Is(err, workspace.ErrNoLedger) {
		a := agent.Answer{Context: inject.NoLedger(), Message: inject.NoLedgerMessage()}
		if len(recovered) > 0 {
			a.Context += "\n" + p.Redact(inject.RecoveredText(recovered))
			a.Message += "; " + p.Redact(inject.RecoveredMessage(recovered))
		}
		return a, "no ledger", "", nil
	}
	if err != nil {
		return agent.Answer{}, "", "", err
	}
	inj, err := Context(p, k.Env, name, ev.Source, ev.SessionID)
	if errors.Is(err, ledger.ErrNotFound) {
		inj = Injection{Text: inject.NoLedger(), Input: inj.Input}
	}
	if inj.Text == "" {
		return agent.Answer{}, "source " + ev.Source + ": nothing to inject (sources policy none)", "", nil
	}
	switch {
	case len(recovered) == 0:
	case errors.Is(err, ledger.ErrNotFound):
		inj.Text += "\n" + p.Redact(inject.RecoveredText(recovered))
		inj.Message = inject.NoLedgerMessage() + "; " + p.Redact(inject.RecoveredMessage(recovered))
	default:
		inj.Input.Recovered = recovered
		inj = injection(p, inj.Input, err)
	}
	if inj.Problem != "" {
		k.warnf("%s: %s", ev.Name, inj.Problem)
	}
	if workspace.CheckName(name) == nil {
		if _, err := k.Host.ExportLedger(k.Getenv, name); err != nil {
			k.warnf("%v", err)
		}
	}
	PruneLazily(p, k.Now)
	return agent.Answer{Context: inj.Text, Message: inj.Message}, k.injected(inj), name, nil
}

// refresh reminds the model of goal, now and next after a compaction the
// host reported before a prompt.
func (k Hook) refresh(p *workspace.Workspace, ev agent.Event) (agent.Answer, string, string, error) {
	name, err := LedgerFor(p, k.Getenv, ev.SessionID)
	if errors.Is(err, workspace.ErrNoLedger) {
		return agent.Answer{}, "no ledger", "", nil
	}
	if err != nil {
		return agent.Answer{}, "", "", err
	}
	inj, err := Refresh(p, k.Env, name)
	if errors.Is(err, ledger.ErrNotFound) {
		return agent.Answer{}, "no ledger " + name, "", nil
	}
	if inj.Problem != "" {
		k.warnf("%s: %s", ev.Name, inj.Problem)
	}
	return agent.Answer{Context: inj.Text}, k.injected(inj), name, nil
}

func (k Hook) injected(inj Injection) string {
	return fmt.Sprintf("injected %d %s", inject.Size(inj.Text, inj.Input.Unit), unitName(inj.Input.Unit))
}

// handoff writes the handoff of an event that loses context, and returns
// what it says, the files the session touched and what the session's local
// state learns (written with the run, in the call's one update). A handoff
// written with problems is a run that succeeded: each problem is a line on
// stderr and in the run's message.
func (k Hook) handoff(p *workspace.Workspace, ev agent.Event, event string, skipIfSame bool) (string, []string, func(*localstate.Session), error) {
	name, err := streamFor(p, k.Getenv, ev.SessionID)
	if err != nil {
		return "", nil, nil, err
	}
	w, err := writeHandoff(p, k.Env, Request{Name: name, Event: event, Trigger: ev.Trigger, Reason: ev.Reason,
		AgentSession: ev.SessionID, Transcript: ev.Transcript, SkipIfSame: skipIfSame})
	if w.Path != "" && Syncing(p) {
		// On this machine's ref at once; to the remote in the background.
		said, serr := Share(p, k.Env, name, w.Path, event)
		if said != "" {
			k.warnf("%s", said)
		}
		if serr != nil {
			k.warnf("%s: sync: %v", ev.Name, serr)
			w.Message += "; not recorded for sync: " + firstLine(serr)
		}
	}
	msg := w.Message
	if werr := w.Warning(); werr != nil {
		k.warnf("%s: %v", ev.Name, werr)
		msg += "; but: " + strings.Join(w.Warnings, "; ")
	}
	return msg, w.Files, w.record, err
}

func (k Hook) warnf(format string, args ...any) {
	// Redacted: a problem may quote a config value or a path.
	line, _ := redact.Redact(fmt.Sprintf(format, args...))
	fmt.Fprintf(k.Stderr, "continuity hook: %s\n", line)
}

func (k Hook) debugf(format string, args ...any) {
	if k.Debug {
		k.warnf(format, args...)
	}
}
