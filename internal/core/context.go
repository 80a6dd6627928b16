package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/gitfacts"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Sources are the reasons a session starts.
var Sources = []string{"startup", "resume", "clear", "compact", "fork"}

// Injection is what a session is given: the text for the model and the
// line for the person, both redacted, the text within the host's budget.
type Injection struct {
	Text    string // "" when the project's policy for the source is none
	Message string
	Problem string       // the ledger's problem, one line ("" when none)
	Input   inject.Input // what it was rendered from
}

// Context is what a session of work stream name started for source is
// given; agentSession, for source compact, finds the handoff that session
// just wrote. The error is the ledger's: wrapping ledger.ErrNotFound when it
// is missing (Injection is then empty), else its problem (and Injection
// still holds what could be read: see inject's ledger text).
func Context(p *workspace.Workspace, e Env, name, source, agentSession string) (Injection, error) {
	in, err := contextInput(p, e, name, source, agentSession, false)
	if errors.Is(err, ledger.ErrNotFound) {
		return Injection{Input: in}, err
	}
	return injection(p, in, err), err
}

// Refresh is the short reminder (goal, now, next) given before a prompt
// when the host compacted the context since it was last given.
func Refresh(p *workspace.Workspace, e Env, name string) (Injection, error) {
	in, err := contextInput(p, e, name, "compact", "", true)
	if errors.Is(err, ledger.ErrNotFound) {
		return Injection{Input: in}, err
	}
	return injection(p, in, err), err
}

// message is the line for the person, redacted: the ledger's now is
// redacted before the line cuts it (a token cut short is no longer
// recognised), and the whole line again.
func message(p *workspace.Workspace, in inject.Input) string {
	if in.Ledger != nil {
		l := *in.Ledger
		l.Now = p.Redact(l.Now)
		in.Ledger = &l
	}
	return p.Redact(inject.Message(in))
}

// injection renders an injection from its input and the ledger's problem.
func injection(p *workspace.Workspace, in inject.Input, lerr error) Injection {
	if in.Policy == "none" && !in.Refresh {
		return Injection{Input: in}
	}
	inj := Injection{Input: in, Text: renderContext(p, in), Message: message(p, in)}
	if lerr != nil {
		inj.Problem = firstLine(lerr)
	}
	return inj
}

// contextInput gathers what an injection for source (or the refresh after
// a compaction) is made from.
func contextInput(p *workspace.Workspace, e Env, name, source, agentSession string, refresh bool) (inject.Input, error) {
	lpath, _ := p.LedgerPath(name)
	lim := e.Host.Limits()
	in := inject.Input{Source: source, Name: name, LedgerPath: p.Rel(lpath), Now: e.Now,
		Budget: budget(p.Config.Budget, lim), Unit: lim.InjectUnit, Policy: policy(p, source),
		StaleAfter: time.Duration(p.Config.StaleAfter), Host: e.Host.Name(), Refresh: refresh}
	l, raw, err := LoadLedger(p, name)
	switch {
	case err != nil:
		in.LedgerRaw = raw
		in.LedgerProblem = firstLine(err)
	case l == nil:
		return in, fmt.Errorf("ledger %s: %w", in.LedgerPath, ledger.ErrNotFound)
	default:
		in.Ledger, in.Notes = l, inject.LedgerNotes(l)
	}
	shared := p.Config.Worktrees != "isolated" && p.Repo.Root != ""
	if !refresh && p.Repo.Root != "" {
		var files []string
		if in.Ledger != nil {
			files = in.Ledger.Files
		}
		sessions := p.Local.RepoSessions(false) // at work in any worktree
		if len(sessions) > crowded && pruneRepoSessions(p, e.Now) > 0 {
			sessions = p.Local.RepoSessions(false)
		}
		in.Others = others(p, sessions, name, agentSession, e.Client, files, e.Now)
	}
	if in.Short() {
		if shared {
			fromOtherWorktrees(p, e, &in, name, false)
		}
		return in, err
	}
	var hpath string
	if source == "compact" && agentSession != "" {
		if s := p.Local.LoadSession(agentSession); s.Handoff != "" {
			hpath = filepath.Join(p.Root, filepath.FromSlash(s.Handoff))
		}
	}
	latest := hpath == ""
	if latest {
		hpath, _ = p.LatestHandoff(name, e.Now)
	}
	if hpath != "" {
		if src, herr := safefile.Read(hpath, p.WriteOptions()); herr == nil {
			parsed, herr := compat.ParseHandoff(src)
			if herr != nil {
				parsed = nil
			}
			if latest {
				// The latest with substance, never a chat-only one;
				// the sessions since the stream was last given, a line each.
				hpath, parsed, in.Ended = chooseHandoff(p, name, hpath, parsed, lastGiven(p, name))
			}
			if parsed != nil {
				in.Handoff = parsed
				in.HandoffPath = p.Rel(hpath)
				if !writtenHere(p, parsed, hpath) {
					in.HandoffCommitAuthor = commitAuthor(p, hpath)
				}
			}
		}
	}
	if shared && source != "compact" {
		// After a compaction the session is given the handoff it just wrote.
		fromOtherWorktrees(p, e, &in, name, true)
	}
	if source != "compact" {
		fromOtherMachines(p, e, &in, name) // what the last fetch brought
	}
	if agentSession != "" && !refresh {
		markGiven(p, name, e.Now)
	}
	return in, err
}

// budget is the project's budget (inject.DefaultBudget when unset), kept
// a hundredth under the host's cliff, in the host's unit.
func budget(configured int, lim agent.Limits) int {
	b := configured
	if b <= 0 {
		b = inject.DefaultBudget
	}
	if lim.InjectMax > 0 {
		b = min(b, lim.InjectMax-lim.InjectMax/100)
	}
	return min(b, inject.MaxBudget)
}

// renderContext renders an injection with secrets redacted. A marker may
// be longer than the secret it replaces: when that takes the text over the
// budget, it is rendered again with less room.
func renderContext(p *workspace.Workspace, in inject.Input) string {
	b := in.Budget
	if b <= 0 {
		b = inject.DefaultBudget
	}
	b = min(b, inject.MaxBudget)
	size := func(s string) int { return inject.Size(s, in.Unit) }
	in.Budget = b
	text := p.Redact(inject.Render(in))
	for try := 0; try < 5 && size(text) > b && in.Budget > 500; try++ {
		// Shrink by how much redaction grew this render, not by a fixed
		// step: markers may grow the text by half.
		in.Budget = max(in.Budget*b/size(text)-1, 500)
		text = p.Redact(inject.Render(in))
	}
	return text
}

// Resume makes work stream name active in this worktree and returns the
// context a new session of it would be given.
func Resume(p *workspace.Workspace, e Env, name string) (Injection, error) {
	path, err := p.LedgerPath(name)
	if err != nil {
		return Injection{}, err
	}
	if l, raw, err := LoadLedger(p, name); err == nil && l == nil && raw == nil {
		if inj, ok := handoffOnly(p, e, name); ok {
			return inj, nil
		}
		return Injection{}, LedgerNotFound(p, name, path)
	}
	if err := p.SetActive(name); err != nil {
		return Injection{}, err
	}
	return Context(p, e, name, "startup", "")
}

// handoffOnly is what resuming a work stream that has handoffs but no
// ledger here (a teammate's) gives: its latest handoff, redacted, and how
// to start a ledger for it. Nothing is made active: hooks would find no
// ledger.
func handoffOnly(p *workspace.Workspace, e Env, name string) (Injection, bool) {
	path, err := p.LatestHandoff(name, e.Now)
	if err != nil {
		return Injection{}, false
	}
	src, err := safefile.Read(path, p.WriteOptions())
	if err != nil {
		return Injection{}, false
	}
	h, err := compat.ParseHandoff(src)
	if err != nil {
		return Injection{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "continuity: work stream %q has no ledger here, only handoffs. The latest (%s): %s\n\n", name, inject.Byline(h.Meta, e.Now), p.Rel(path))
	for _, sec := range h.Order {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", sec, h.Sections[sec])
	}
	fmt.Fprintf(&b, "Start a ledger for it with `continuity new %s --goal TEXT`; then `continuity resume %s`.", name, name)
	return Injection{Text: p.Redact(b.String())}, true
}

// unitName names a host's unit for people.
func unitName(u agent.Unit) string {
	if u == agent.Bytes {
		return "bytes"
	}
	return "characters"
}

// SubagentSource is the source of a subagent's start: it is given what
// the configuration's subagents says.
const SubagentSource = "subagent"

// policy is what an injection for source holds: full, short or none.
func policy(p *workspace.Workspace, source string) string {
	if source == SubagentSource {
		return p.Config.Subagents
	}
	return p.Config.Sources[source]
}

// writtenHere reports a handoff this worktree's local state says one of
// its sessions wrote at path: its author is who wrote it here, and asking
// git (a process per start) can be spared.
func writtenHere(p *workspace.Workspace, h *handoff.Parsed, path string) bool {
	id := h.Meta.AgentSession
	return id != "" && p.Local.LoadSession(id).Handoff == p.Rel(path)
}

// commitAuthor is who git says last committed the file at path ("" when
// it is not committed, or git cannot say within a moment): a committed
// handoff's front matter may claim anyone. Git is asked once for each
// version of the file and of the branch's commit; the answer is kept in
// local state, since the process costs a start as much as all the rest.
func commitAuthor(p *workspace.Workspace, path string) string {
	if p.Repo.Root == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	key := fmt.Sprintf("%s %d %d", gitfacts.FullCommit(p.Repo), fi.ModTime().UnixNano(), fi.Size())
	sum := sha256.Sum256([]byte(p.Rel(path)))
	slot := "author-" + hex.EncodeToString(sum[:8])
	if b, _, err := p.Local.Memo(slot); err == nil {
		if k, author, ok := strings.Cut(string(b), "\n"); ok && k == key {
			return author
		}
	}
	out, err := gitfacts.Git{Repo: p.Repo, Timeout: 500 * time.Millisecond}.Run(context.Background(),
		"log", "-1", "--no-mailmap", "--format=%an", "--", p.Rel(path))
	if err != nil {
		return ""
	}
	author := strings.TrimSpace(string(out))
	_ = p.Local.SetMemo(slot, []byte(key+"\n"+author)) // a cache: without it, git is asked again
	return author
}
