package core

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/ledger"
)

// ledgerFields is what an injection takes from a ledger: its fields and
// its notes, remembered from one start to the next (project.Parsed).
type ledgerFields struct {
	Ledger *ledger.Ledger `json:"ledger"`
	Notes  string         `json:"notes"`
}

// startLedger is LoadLedger for an injection: nil and no error when the
// ledger is missing; the ledger's bytes with its problem when it does not
// parse.
func startLedger(p *project.Project, name string) (*ledgerFields, []byte, error) {
	path, err := p.LedgerPath(name)
	if err != nil {
		return nil, nil, err
	}
	var raw []byte
	l, err := project.Parsed(p, "ledger-"+name, path, func(src []byte) (*ledgerFields, error) {
		l, err := compat.ParseLedger(p.Rel(path), src)
		if err != nil {
			raw = src
			return nil, err
		}
		return &ledgerFields{Ledger: l, Notes: inject.LedgerNotes(l)}, nil
	}, ledgerCodec)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil && raw == nil:
		return nil, nil, fmt.Errorf("read ledger %s: %w", p.Rel(path), err)
	}
	return l, raw, err
}

// ledgerCodec remembers what an injection takes from a ledger: every
// field but its bytes (Body, Src), which Notes stands for.
var ledgerCodec = project.Codec[*ledgerFields]{
	Encode: func(e *project.Enc, f *ledgerFields) {
		l := f.Ledger
		e.Str(f.Notes)
		e.Int(int64(l.Format))
		for _, s := range []string{l.Path, l.Session, l.Goal, l.Now, l.Updated} {
			e.Str(s)
		}
		for _, ss := range [][]string{l.Constraints, l.Done, l.Next, l.Questions, l.Files} {
			e.Strs(ss)
		}
		if l.Decisions == nil {
			e.Int(-1)
		} else {
			e.Int(int64(len(l.Decisions)))
		}
		for _, d := range l.Decisions {
			e.Str(d.Decision)
			e.Str(d.Why)
			e.Str(d.Date)
		}
	},
	Decode: func(d *project.Dec) *ledgerFields {
		f := &ledgerFields{Notes: d.Str(), Ledger: &ledger.Ledger{Format: ledger.Format(d.Int())}}
		l := f.Ledger
		for _, s := range []*string{&l.Path, &l.Session, &l.Goal, &l.Now, &l.Updated} {
			*s = d.Str()
		}
		for _, ss := range []*[]string{&l.Constraints, &l.Done, &l.Next, &l.Questions, &l.Files} {
			*ss = d.Strs()
		}
		if n := d.Count(3); n >= 0 {
			l.Decisions = make([]ledger.Decision, n)
			for i := range l.Decisions {
				l.Decisions[i] = ledger.Decision{Decision: d.Str(), Why: d.Str(), Date: d.Str()}
			}
		}
		return f
	},
}

// handoffCodec remembers a parsed handoff whole.
var handoffCodec = project.Codec[*handoff.Parsed]{
	Encode: func(e *project.Enc, h *handoff.Parsed) {
		m := h.Meta
		for _, s := range []string{m.Session, m.Event, m.Trigger, m.Reason, m.AgentSession, m.Agent, m.Model, m.Branch, m.Commit, m.Author, m.Version} {
			e.Str(s)
		}
		e.Time(m.Created)
		e.Int(int64(m.Tokens))
		e.Int(int64(m.Dirty))
		e.Strs(h.Order)
		if h.Sections == nil {
			e.Int(-1)
		} else {
			e.Int(int64(len(h.Sections)))
		}
		for k, v := range h.Sections {
			e.Str(k)
			e.Str(v)
		}
		e.Str(h.Form)
		e.Str(h.Goal)
		e.Str(h.Now)
		e.Strs(h.Next)
	},
	Decode: func(d *project.Dec) *handoff.Parsed {
		h := &handoff.Parsed{}
		m := &h.Meta
		for _, s := range []*string{&m.Session, &m.Event, &m.Trigger, &m.Reason, &m.AgentSession, &m.Agent, &m.Model, &m.Branch, &m.Commit, &m.Author, &m.Version} {
			*s = d.Str()
		}
		m.Created = d.Time()
		m.Tokens = int(d.Int())
		m.Dirty = int(d.Int())
		h.Order = d.Strs()
		if n := d.Count(2); n >= 0 {
			h.Sections = make(map[string]string, n)
			for range n {
				k := d.Str()
				h.Sections[k] = d.Str()
			}
		}
		h.Form = d.Str()
		h.Goal = d.Str()
		h.Now = d.Str()
		h.Next = d.Strs()
		return h
	},
}
