package core

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Change is one edit of a ledger from the command line.
type Change struct {
	Verb   string   // goal, now, done, next, question, constraint, decide
	Items  []string // for goal, now and decide: one text
	Why    string   // decide
	Remove bool     // take the items out instead
}

// keys maps a verb to the ledger key it edits.
var keys = map[string]string{
	"goal": ledger.KeyGoal, "now": ledger.KeyNow, "done": ledger.KeyDone, "next": ledger.KeyNext,
	"question": ledger.KeyQuestions, "constraint": ledger.KeyConstraints, "decide": ledger.KeyDecisions,
}

// Key is the ledger key verb edits.
func Key(verb string) string { return keys[verb] }

// edits are c's ledger edits, its text passed through red (which redacts
// secrets).
func (c Change) edits(red func(string) string, now time.Time) []ledger.Edit {
	key := Key(c.Verb)
	clean := make([]string, len(c.Items))
	for i, it := range c.Items {
		clean[i] = red(it)
	}
	switch {
	case c.Verb == "decide":
		return []ledger.Edit{ledger.Decide(ledger.Decision{Decision: clean[0], Why: red(strings.TrimSpace(c.Why)), Date: now.UTC().Format("2006-01-02")})}
	case key == ledger.KeyNow:
		return []ledger.Edit{ledger.Begin(clean[0])}
	case key == ledger.KeyGoal:
		return []ledger.Edit{ledger.Set(key, clean[0])}
	case c.Remove:
		var edits []ledger.Edit
		for _, it := range clean {
			edits = append(edits, ledger.RemoveExisting(key, it))
		}
		return edits
	case c.Verb == "done":
		return []ledger.Edit{ledger.Finish(clean...)}
	}
	return []ledger.Edit{ledger.Append(key, clean...)}
}

// Edit makes c on the ledger at path under the lock, refreshing `updated`,
// and returns its bytes before and after. A ledger that does not parse is
// left untouched.
func Edit(p *workspace.Workspace, path string, now time.Time, c Change) (before, after []byte, err error) {
	before, after, _, err = edit(p, path, now, c)
	return before, after, err
}

// edit is Edit, also returning the edits as they were last applied (they
// say what they did: see ledger.Edit.Moved).
func edit(p *workspace.Workspace, path string, now time.Time, c Change) (before, after []byte, applied []ledger.Edit, err error) {
	rel := p.Rel(path)
	err = safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, LedgerNotFound(p, ledger.SessionFromPath(path), path)
		}
		// Apply parses and checks the ledger itself (a YAML parse less
		// on a long ledger); only a failed edit is explained by the
		// ledger's own problems, with its path and lines. The edits are
		// built afresh for each attempt (Update tries again when an editor
		// saved in between, and an edit such as Finish runs in steps).
		applied = c.edits(p.Redact, now)
		out, err := ledger.Apply(old, now, applied...)
		if err != nil {
			if compat.IsSectionStyle(old) {
				return nil, fmt.Errorf("ledger %s: %w", rel, compat.ErrSectionStyle)
			}
			if _, perr := compat.ParseLedger(rel, old); perr != nil {
				return nil, perr
			}
			return nil, ledger.WithPath(err, rel)
		}
		before, after = old, out
		return out, nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, LedgerNotFound(p, ledger.SessionFromPath(path), path)
	}
	return before, after, applied, err
}

// Edited is what a ledger edit did (the edit commands' --json output).
type Edited struct {
	Path    string   `json:"path"`
	Key     string   `json:"key"`
	Value   *string  `json:"value,omitempty"` // goal, now
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Now     *string  `json:"now,omitempty"` // done: now after the edit, when it moved
	verb    string
}

// Apply makes c on the ledger at path (see Edit) and says what it did.
func Apply(p *workspace.Workspace, path string, now time.Time, c Change) (Edited, error) {
	rel := p.Rel(path)
	_, _, applied, err := edit(p, path, now, c)
	if err != nil {
		return Edited{}, err
	}
	res := Edited{Path: rel, Key: Key(c.Verb), verb: c.Verb}
	switch {
	case res.Key == ledger.KeyGoal || res.Key == ledger.KeyNow:
		res.Value = &c.Items[0]
	case c.Remove:
		res.Removed = c.Items
	default:
		res.Added = c.Items
	}
	// done moves now on when it finished now: say so.
	for _, e := range applied {
		if m := e.Moved(); m.On {
			res.Now = &m.Now
		}
	}
	return res, nil
}

// Lines say what the edit did, for a person.
func (e Edited) Lines() []string {
	var out []string
	switch {
	case e.verb == "decide":
		out = append(out, fmt.Sprintf("decision recorded (%s)", e.Path))
	case e.Value != nil && *e.Value == "":
		out = append(out, fmt.Sprintf("%s: cleared (%s)", e.Key, e.Path))
	case e.Value != nil:
		out = append(out, fmt.Sprintf("%s: %s (%s)", e.Key, *e.Value, e.Path))
	case e.Removed != nil:
		out = append(out, fmt.Sprintf("%s removed from %s (%s)", items(len(e.Removed)), e.Key, e.Path))
	default:
		out = append(out, fmt.Sprintf("%s added to %s (%s)", items(len(e.Added)), e.Key, e.Path))
	}
	switch {
	case e.Now != nil && *e.Now == "":
		out = append(out, "now: cleared (next is empty)")
	case e.Now != nil:
		out = append(out, fmt.Sprintf("now: %s (was first in next)", *e.Now))
	}
	return out
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}
