package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/continuity-md/continuity/internal/host/claude"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/hookio"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

func newHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook",
		Short: "The Claude Code hook entry point: a payload on stdin, at most one JSON object on stdout",
		Long: `The Claude Code hook entry point, registered by 'continuity init'. Reads one hook payload
on stdin and acts on its hook_event_name:

  SessionStart  inject the active ledger and its latest handoff (additionalContext)
  PreCompact    write a handoff from the transcript; update the ledger's files
  PostCompact   add the compaction summary to that handoff
  SessionEnd    write a handoff, unless nothing is new since the last one

Any other event: nothing. It always exits 0 and never breaks the session: problems are
one line on stderr. CONTINUITY_DISABLE=1 turns it off; CONTINUITY_DEBUG=1 says more.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			runHook(a)
			return nil
		},
	}
}

// hookRun is one hook invocation.
type hookRun struct {
	a     *app
	p     *project.Project
	pl    hookio.Payload
	now   time.Time
	debug bool
	// ledger, when set, is recorded as the agent session's work stream
	// with the run (one state write per hook, not two).
	ledger string
}

func truthy(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s != "" && s != "0" && s != "false" && s != "no" && s != "off"
}

// runHook never fails: whatever happens, the session goes on.
func runHook(a *app) {
	start := time.Now()
	if truthy(a.getenv("CONTINUITY_DISABLE")) {
		return
	}
	debugOn := truthy(a.getenv("CONTINUITY_DEBUG"))
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.errw, "continuity hook: internal error, nothing done: %v\n", r)
			if debugOn {
				a.errw.Write(debug.Stack())
			}
		}
	}()
	pl, err := hookio.Read(a.in)
	if err != nil {
		fmt.Fprintf(a.errw, "continuity hook: %v; nothing done\n", err)
		return
	}
	switch pl.Event {
	case "SessionStart", "PreCompact", "PostCompact", "SessionEnd":
	default:
		if debugOn {
			fmt.Fprintf(a.errw, "continuity hook: event %q is not one continuity handles\n", pl.Event)
		}
		return
	}
	dir := pl.Cwd
	if dir != "" && !filepath.IsAbs(dir) {
		// The host always sends an absolute cwd; a relative one would
		// resolve against wherever this process happens to run.
		fmt.Fprintf(a.errw, "continuity hook: %s: cwd %q is not an absolute path; nothing done\n", pl.Event, oneLineCut(dir, 200))
		return
	}
	if dir == "" {
		dir = a.getenv("CLAUDE_PROJECT_DIR")
	}
	if dir == "" {
		dir = a.dir
	}
	p, err := project.OpenWith(dir, a.getenv)
	if err != nil {
		fmt.Fprintf(a.errw, "continuity hook: %s: %v; nothing done\n", pl.Event, err)
		return
	}
	if p.Config.Disable {
		return
	}
	for _, perr := range p.Config.Problems {
		fmt.Fprintf(a.errw, "continuity hook: config: %v (ignored)\n", perr)
	}
	if !p.OptedIn() {
		if debugOn {
			fmt.Fprintf(a.errw, "continuity hook: %s has no %s and no %s; nothing done (run `continuity init`)\n", p.Root, p.Rel(p.LedgerDir), project.ConfigFile)
		}
		return
	}
	h := &hookRun{a: a, p: p, pl: pl, now: a.now(), debug: debugOn}
	var out any
	var msg string
	switch pl.Event {
	case "SessionStart":
		out, msg, err = h.sessionStart()
	case "PreCompact":
		msg, err = h.writeHandoff("pre-compact")
	case "PostCompact":
		msg, err = h.postCompact()
	case "SessionEnd":
		msg, err = h.writeHandoff("session-end")
	}
	run := project.Run{Event: pl.Event, At: h.now.UTC(), OK: err == nil, Message: msg, Duration: time.Since(start).Round(time.Millisecond).String()}
	if err != nil {
		run.Message = err.Error()
		fmt.Fprintf(a.errw, "continuity hook: %s: %v\n", pl.Event, err)
	} else if debugOn && msg != "" {
		fmt.Fprintf(a.errw, "continuity hook: %s: %s\n", pl.Event, msg)
	}
	if pl.SessionID != "" {
		if serr := p.UpdateSession(pl.SessionID, h.now, func(s *project.Session) {
			s.Runs = append(s.Runs, run)
			if h.ledger != "" {
				s.Ledger = h.ledger
			}
		}); serr != nil && debugOn {
			fmt.Fprintf(a.errw, "continuity hook: record run: %v\n", serr)
		}
	}
	if out != nil {
		if err := hookio.Write(a.out, out); err != nil {
			fmt.Fprintf(a.errw, "continuity hook: write output: %v\n", err)
		}
	}
}

// ledgerName is the work stream this agent session belongs to: the one its
// earlier hooks used, else the active ledger, else the branch's slug.
func (h *hookRun) ledgerName() (string, error) {
	if h.pl.SessionID != "" {
		if s := h.p.LoadSession(h.pl.SessionID); s.Ledger != "" && project.CheckName(s.Ledger) == nil {
			return s.Ledger, nil
		}
	}
	name, _, err := h.p.Active(h.a.getenv)
	return name, err
}

// loadLedger reads and parses a ledger; a missing one is (nil, nil, nil).
func loadLedger(p *project.Project, name string) (*ledger.Ledger, []byte, error) {
	path, err := p.LedgerPath(name)
	if err != nil {
		return nil, nil, err
	}
	src, err := safefile.Read(path, p.WriteOptions())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read ledger %s: %w", p.Rel(path), err)
	}
	l, err := ledger.Parse(p.Rel(path), src)
	if err != nil {
		return nil, src, err
	}
	return l, src, nil
}

// contextInput gathers what an injection for source is made from.
func contextInput(p *project.Project, name, source, agentSession string, now time.Time) (inject.Input, error) {
	lpath, _ := p.LedgerPath(name)
	in := inject.Input{Source: source, Name: name, LedgerPath: p.Rel(lpath), Now: now,
		Budget: p.Config.Budget, Policy: p.Config.Sources[source], StaleAfter: time.Duration(p.Config.StaleAfter)}
	l, raw, err := loadLedger(p, name)
	switch {
	case err != nil:
		in.LedgerRaw = raw
		in.LedgerProblem = strings.Split(err.Error(), "\n")[0]
	case l == nil:
		return in, fmt.Errorf("ledger %s: %w", in.LedgerPath, ledger.ErrNotFound)
	default:
		in.Ledger = l
	}
	if in.Short() {
		return in, err
	}
	var hpath string
	if source == "compact" && agentSession != "" {
		if s := p.LoadSession(agentSession); s.Handoff != "" {
			hpath = filepath.Join(p.Root, filepath.FromSlash(s.Handoff))
		}
	}
	if hpath == "" {
		hpath, _ = p.LatestHandoff(name)
	}
	if hpath != "" {
		if src, rerr := safefile.Read(hpath, p.WriteOptions()); rerr == nil {
			if parsed, perr := handoff.Parse(src); perr == nil {
				in.Handoff = parsed
				in.HandoffPath = p.Rel(hpath)
			}
		}
	}
	return in, err
}

func (h *hookRun) sessionStart() (any, string, error) {
	name, err := h.ledgerName()
	if errors.Is(err, project.ErrNoLedger) {
		return hookio.SessionStart(inject.NoLedger(), "continuity: no ledger yet (continuity new NAME)"), "no ledger", nil
	}
	if err != nil {
		return nil, "", err
	}
	out, problem := sessionStartOutput(h.p, name, h.pl.Source, h.pl.SessionID, h.now)
	if out.HookSpecificOutput.AdditionalContext == "" {
		return nil, "source " + h.pl.Source + ": nothing to inject (sources policy none)", nil
	}
	if problem != "" {
		fmt.Fprintf(h.a.errw, "continuity hook: SessionStart: %s\n", problem)
	}
	h.exportLedger(name)
	pruneLazily(h.p, h.now)
	h.ledger = name
	return out, fmt.Sprintf("injected %d characters", inject.Length(out.HookSpecificOutput.AdditionalContext)), nil
}

// sessionStartOutput is what SessionStart prints for work stream name, and
// the ledger's problem when it could not be parsed ("" otherwise). The hook
// and `continuity context` both print it, so they cannot disagree.
func sessionStartOutput(p *project.Project, name, source, agentSession string, now time.Time) (hookio.SessionStartOutput, string) {
	in, err := contextInput(p, name, source, agentSession, now)
	if errors.Is(err, ledger.ErrNotFound) {
		return hookio.SessionStart(inject.NoLedger(), ""), ""
	}
	if in.Policy == "none" {
		return hookio.SessionStart("", ""), ""
	}
	text := renderContext(p, in)
	msg := fmt.Sprintf("continuity: %s", name)
	if in.Ledger != nil && in.Ledger.Now != "" {
		// Redacted before the cut: a token cut short is no longer a token.
		msg += " — now: " + oneLineCut(p.Redact(in.Ledger.Now), 80)
	}
	if in.HandoffPath != "" {
		msg += " (handoff " + filepath.Base(in.HandoffPath) + ")"
	}
	problem := ""
	if err != nil {
		problem = strings.Split(err.Error(), "\n")[0]
		msg = "continuity: ledger " + in.LedgerPath + " has a problem: " + in.LedgerProblem
	}
	// The ledger may have been edited by hand: what SessionStart shows the
	// person and prints on stderr is redacted like what it injects.
	return hookio.SessionStart(text, p.Redact(msg)), p.Redact(problem)
}

// renderContext renders what SessionStart injects, with secrets redacted.
// A marker may be longer than the secret it replaces: when that takes the
// text over the budget, it is rendered again with less room.
func renderContext(p *project.Project, in inject.Input) string {
	budget := in.Budget
	if budget <= 0 {
		budget = inject.DefaultBudget
	}
	budget = min(budget, inject.MaxBudget)
	text := p.Redact(inject.Render(in))
	for try := 0; try < 3 && inject.Length(text) > budget; try++ {
		in.Budget = max(budget-(inject.Length(text)-budget)*(try+1), 500)
		text = p.Redact(inject.Render(in))
	}
	return text
}

func oneLineCut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// exportLedger tells the agent's later shell commands which ledger is
// active, through the file the host sources (CLAUDE_ENV_FILE).
func (h *hookRun) exportLedger(name string) {
	path := h.a.getenv("CLAUDE_ENV_FILE")
	if path == "" || project.CheckName(name) != nil {
		return
	}
	// Only ever a regular file: opening a FIFO for writing would block
	// until a reader came, holding the session start forever.
	notRegular := func(fi os.FileInfo) bool { return !fi.Mode().IsRegular() }
	if fi, err := os.Stat(path); err == nil && notRegular(fi) {
		fmt.Fprintf(h.a.errw, "continuity hook: CLAUDE_ENV_FILE %s: not a regular file\n", path)
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		fmt.Fprintf(h.a.errw, "continuity hook: CLAUDE_ENV_FILE: %v\n", err)
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || notRegular(fi) {
		fmt.Fprintf(h.a.errw, "continuity hook: CLAUDE_ENV_FILE %s: not a regular file\n", path)
		return
	}
	fmt.Fprintf(f, "export %s=%s\n", project.EnvLedger, name)
}

// gitMeta fills a handoff's git facts, bounded in time so a slow or locked
// repository never holds a hook.
func gitMeta(p *project.Project, m *handoff.Meta, budget time.Duration) []string {
	if p.Repo.Root == "" {
		return nil
	}
	m.Branch = gitfacts.Branch(p.Repo)
	m.Commit = gitfacts.Commit(p.Repo)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	m.Author = gitfacts.Author(ctx, p.Repo)
	files, err := gitfacts.Status(ctx, p.Repo)
	if err == nil {
		m.Dirty = len(files)
	}
	return files
}

// activityHash fingerprints what a transcript says was done, to tell
// whether anything is new since the last handoff.
func activityHash(f *handoff.Facts) string {
	b, _ := json.Marshal(struct {
		Files, Commands, Errors, Prompts []string
		Tasks                            []handoff.Task
		Last                             string
	}{f.Files, f.Commands, f.Errors, f.Prompts, f.Tasks, f.LastAssistant})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// idle reports a transcript with no sign of work: no prompt, no reply, no
// tool use (the empty session that follows /clear ends like this).
func idle(f *handoff.Facts) bool {
	return len(f.Files) == 0 && len(f.Tasks) == 0 && len(f.Commands) == 0 && len(f.Errors) == 0 &&
		len(f.Prompts) == 0 && f.LastAssistant == ""
}

// handoffRequest says what a handoff is written from.
type handoffRequest struct {
	Name         string
	Event        string // pre-compact, session-end, manual
	Trigger      string
	Reason       string
	AgentSession string
	Transcript   string // path; "" for none
	SkipIfSame   bool   // SessionEnd: nothing new, nothing written
}

// writeHandoff writes a handoff for one work stream and returns its path
// relative to the root ("" when skipped) and a line saying what happened.
func writeHandoff(a *app, p *project.Project, r handoffRequest, now time.Time) (string, string, error) {
	facts := &handoff.Facts{}
	var warn []string
	if r.Transcript != "" {
		f, err := claude.ReadTranscriptFile(r.Transcript, p.Root, p.Redact)
		if err != nil {
			warn = append(warn, fmt.Sprintf("transcript not read (%v)", err))
		} else {
			facts = f
		}
	}
	hash := activityHash(facts)
	if r.SkipIfSame && idle(facts) {
		return "", "nothing happened in this session; no handoff", nil
	}
	var prev project.Session
	if r.AgentSession != "" {
		prev = p.LoadSession(r.AgentSession)
		if r.SkipIfSame && prev.HandoffHash == hash && prev.Handoff != "" {
			return "", "nothing new since " + prev.Handoff, nil
		}
	}
	l, _, lerr := loadLedger(p, r.Name)
	if lerr != nil {
		warn = append(warn, strings.Split(lerr.Error(), "\n")[0])
	}
	meta := handoff.Meta{Session: r.Name, Created: now.UTC(), Event: r.Event, Trigger: r.Trigger, Reason: r.Reason,
		AgentSession: r.AgentSession, Version: version}
	dirty := gitMeta(p, &meta, 400*time.Millisecond)
	// The ledger's files are the ones this session worked on; the handoff
	// also lists what else is uncommitted in the work tree.
	sessionFiles := facts.Files
	facts.Files = mergeFiles(facts.Files, notOurs(p, dirty))
	hdoc := handoff.Build(meta, facts, l)
	lpath, _ := p.LedgerPath(r.Name)
	hdoc.LedgerPath = p.Rel(lpath)
	dir, err := p.HandoffSessionDir(r.Name)
	if err != nil {
		return "", "", err
	}
	if prevPath, err := p.LatestHandoff(r.Name); err == nil {
		hdoc.Decisions = newDecisions(p, prevPath, hdoc.Decisions)
	}
	keepSections(hdoc, p.Config.Handoff.Sections)
	hdoc.Redact(p.Redact)
	tmpl := ""
	if t := p.Config.Handoff.Template; t != "" {
		b, err := safefile.Read(filepath.Join(p.Root, filepath.FromSlash(t)), p.WriteOptions())
		if err != nil {
			return "", "", fmt.Errorf("handoff template: %w", err)
		}
		tmpl = string(b)
	}
	body, err := handoff.RenderLimit(hdoc, tmpl, p.Config.Handoff.MaxBytes)
	if err != nil {
		return "", "", err
	}
	// Again on the whole file: a project's template may print more.
	body = []byte(p.Redact(string(body)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("create handoff directory: %w", err)
	}
	id := r.AgentSession
	if id == "" {
		// No session (a handoff written by hand): a random id, so two
		// people's handoffs of the same second never share a name.
		var b [4]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	base := handoff.FileName(meta.Created, r.Event, id)
	path := filepath.Join(dir, base)
	// A name taken in the same second gets "~2", "~3", …: only the file
	// name changes (a '~' in a directory above must not), and enough
	// tries that a burst of hooks never loses a handoff.
	for i := 2; ; i++ {
		err = safefile.Create(path, body, p.WriteOptions())
		if !errors.Is(err, fs.ErrExist) || i > 999 {
			break
		}
		path = filepath.Join(dir, fmt.Sprintf("%s~%d.md", strings.TrimSuffix(base, ".md"), i))
	}
	if err != nil {
		return "", "", err
	}
	rel := p.Rel(path)
	if l != nil {
		if err := updateLedgerFiles(a, p, r.Name, sessionFiles, now); err != nil {
			warn = append(warn, "ledger files not updated: "+strings.Split(err.Error(), "\n")[0])
		}
	}
	if r.AgentSession != "" {
		if err := p.UpdateSession(r.AgentSession, now, func(s *project.Session) {
			s.Ledger, s.Handoff, s.HandoffHash = r.Name, rel, hash
		}); err != nil {
			warn = append(warn, "local state: "+err.Error())
		}
	}
	msg := "wrote " + rel
	if len(warn) > 0 {
		return rel, msg, fmt.Errorf("wrote %s, but: %s", rel, strings.Join(warn, "; "))
	}
	return rel, msg, nil
}

// keepSections empties the sections of h that the configuration leaves out
// (none when keep is empty).
func keepSections(h *handoff.Handoff, keep []string) {
	if len(keep) == 0 {
		return
	}
	on := map[string]bool{}
	for _, k := range keep {
		on[k] = true
	}
	if !on["summary"] {
		h.Summary = ""
	}
	if !on["goal"] {
		h.Goal = ""
	}
	if !on["now"] {
		h.Now = ""
	}
	if !on["done"] {
		h.Done = nil
	}
	if !on["next"] {
		h.Next = nil
	}
	if !on["decisions"] {
		h.Decisions = nil
	}
	if !on["files"] {
		h.Files = nil
	}
	if !on["commands"] {
		h.Commands = nil
	}
	if !on["errors"] {
		h.Errors = nil
	}
	if !on["requests"] {
		h.Prompts = nil
	}
}

// newDecisions keeps the decisions the previous handoff did not report.
func newDecisions(p *project.Project, prevPath string, ds []ledger.Decision) []ledger.Decision {
	src, err := safefile.Read(prevPath, p.WriteOptions())
	if err != nil {
		return ds
	}
	prev, err := handoff.Parse(src)
	if err != nil {
		return ds
	}
	reported := prev.Sections["Decisions"]
	var out []ledger.Decision
	for _, d := range ds {
		if !strings.Contains(reported, d.Decision) {
			out = append(out, d)
		}
	}
	return out
}

// notOurs drops continuity's own directories (and their parents, which git
// reports when they are untracked) from a list of repository paths.
func notOurs(p *project.Project, paths []string) []string {
	own := []string{p.Rel(p.LedgerDir) + "/", p.Rel(p.HandoffDir) + "/"}
	var out []string
	for _, f := range paths {
		mine := f == project.ConfigFile
		for _, d := range own {
			if strings.HasPrefix(f, d) || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
				mine = true
			}
		}
		if !mine {
			out = append(out, f)
		}
	}
	return out
}

// mergeFiles joins two lists of paths without repeats, dropping a
// directory entry ("src/") when a path inside it is listed.
func mergeFiles(a, b []string) []string {
	all := append(append([]string{}, a...), b...)
	seen := map[string]bool{}
	var out []string
	for _, s := range all {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		if strings.HasSuffix(s, "/") && slices.ContainsFunc(all, func(o string) bool { return o != s && strings.HasPrefix(o, s) }) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// updateLedgerFiles adds the files a session touched (inside the
// repository) to the ledger's files list and refreshes updated.
func updateLedgerFiles(a *app, p *project.Project, name string, files []string, now time.Time) error {
	var rel []string
	for _, f := range notOurs(p, files) {
		if !filepath.IsAbs(f) && !strings.HasPrefix(f, "../") && !strings.HasSuffix(f, "/") {
			rel = append(rel, p.Redact(f))
		}
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return err
	}
	return safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, safefile.ErrNoChange
		}
		var edits []ledger.Edit
		if len(rel) > 0 {
			edits = append(edits, ledger.Append(ledger.KeyFiles, rel...))
		}
		out, err := ledger.Apply(old, now, edits...)
		if err != nil {
			if _, perr := ledger.Parse(p.Rel(path), old); perr != nil {
				return nil, perr
			}
		}
		return out, err
	})
}

func (h *hookRun) writeHandoff(event string) (string, error) {
	name, err := h.ledgerName()
	if errors.Is(err, project.ErrNoLedger) {
		name = gitfacts.Slug(gitfacts.Branch(h.p.Repo))
		if name == "" {
			name = "default"
		}
	} else if err != nil {
		return "", err
	}
	_, msg, err := writeHandoff(h.a, h.p, handoffRequest{
		Name: name, Event: event, Trigger: h.pl.Trigger, Reason: h.pl.Reason,
		AgentSession: h.pl.SessionID, Transcript: h.pl.TranscriptPath, SkipIfSame: event == "session-end",
	}, h.now)
	return msg, err
}

func (h *hookRun) postCompact() (string, error) {
	summary := h.p.Redact(handoff.CleanSummary(h.pl.CompactSummary))
	if summary == "" {
		return "no compaction summary in the payload", nil
	}
	s := h.p.LoadSession(h.pl.SessionID)
	if s.Handoff == "" {
		return "", errors.New("no handoff from PreCompact for this session; summary not recorded")
	}
	path := filepath.Join(h.p.Root, filepath.FromSlash(s.Handoff))
	err := safefile.Update(path, h.p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, fmt.Errorf("handoff %s: %w", s.Handoff, fs.ErrNotExist)
		}
		return handoff.SetSummary(old, summary)
	})
	if err != nil {
		return "", err
	}
	return "added the compaction summary to " + s.Handoff, nil
}
