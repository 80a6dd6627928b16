package core

// Loading a stream's ledger and handoff for a session, whatever the agent.

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Env is what a use case takes from outside the project: the host it
// serves, the environment, the clock and the tool's version.
type Env struct {
	Host    agent.Served
	Getenv  func(string) string
	Now     time.Time
	Version string
	// Roots are transcript directories recorded for the session at hand
	// by its own hooks (a recovery's, run from another session's
	// environment): a transcript under one is accepted as under the
	// host's own.
	Roots []string
	// Client is the client process the call runs for, when known: its own
	// sessions are never named as others at work.
	Client *localstate.Process
	// Self is the continuity binary background work (a push, a fetch) is
	// started from; "" starts none.
	Self string
}

// LoadLedger reads and parses work stream name's ledger; a missing one is
// (nil, nil, nil). A ledger that does not parse returns its bytes and the
// problem.
func LoadLedger(p *workspace.Workspace, name string) (*ledger.Ledger, []byte, error) {
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
	l, err := compat.ParseLedger(p.Rel(path), src)
	if err != nil {
		return nil, src, err
	}
	return l, src, nil
}

// LedgerFor is the work stream agent session id belongs to: the one its
// earlier hooks used, else the active ledger (workspace.ErrNoLedger when
// there is none).
func LedgerFor(p *workspace.Workspace, getenv func(string) string, id string) (string, error) {
	if id != "" {
		if s := p.Local.LoadSession(id); s.Ledger != "" && workspace.CheckName(s.Ledger) == nil {
			return s.Ledger, nil
		}
	}
	name, _, err := p.Active(getenv)
	return name, err
}

// streamFor is the work stream a handoff goes to: the session's ledger, or
// with no ledger at all the branch's slug ("default" outside a branch).
func streamFor(p *workspace.Workspace, getenv func(string) string, id string) (string, error) {
	name, err := LedgerFor(p, getenv, id)
	if errors.Is(err, workspace.ErrNoLedger) {
		if name = gitfacts.Slug(gitfacts.Branch(p.Repo)); name == "" {
			name = "default"
		}
		return name, nil
	}
	return name, err
}

// firstLine is an error's first line: one line per problem on stderr.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// oneLineCut folds s onto one line of at most n characters.
func oneLineCut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
