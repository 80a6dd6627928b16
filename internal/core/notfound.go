package core

import (
	"strings"

	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// NotFoundError is a work stream or its ledger that does not exist, with
// the names of those that do and look like it (a typo's likely meaning).
// It wraps ledger.ErrNotFound.
type NotFoundError struct {
	What    string // "ledger thoughts/ledgers/CONTINUITY_x.md: ledger not found", "no work stream x"
	Similar []string
}

func (e *NotFoundError) Error() string {
	msg := e.What
	if len(e.Similar) > 0 {
		msg += "; did you mean " + strings.Join(e.Similar, " or ") + "?"
	}
	return msg + " (see `continuity list`)"
}

func (e *NotFoundError) Unwrap() error { return ledger.ErrNotFound }

// LedgerNotFound is the error for work stream name's missing ledger at path.
func LedgerNotFound(p *workspace.Workspace, name, path string) error {
	return &NotFoundError{What: "ledger " + p.Rel(path) + ": " + ledger.ErrNotFound.Error(), Similar: Similar(Names(p), name)}
}

// StreamNotFound is the error for a work stream with neither a ledger nor
// handoffs.
func StreamNotFound(p *workspace.Workspace, name string) error {
	return &NotFoundError{What: "no work stream " + name, Similar: Similar(Names(p), name)}
}

// HasStream reports whether work stream name has a ledger or handoffs.
func HasStream(p *workspace.Workspace, name string) bool {
	for _, n := range Names(p) {
		if n == name {
			return true
		}
	}
	return false
}

// Similar returns at most three names close to name, the closest first:
// equal but for case, starting with it, or a few edits apart (a third of
// its letters; at least one, two from four letters up).
func Similar(names []string, name string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	low := strings.ToLower(name)
	limit := max(1, len([]rune(name))/3)
	if len(name) >= 4 {
		limit = max(limit, 2) // a swap of two letters
	}
	for _, n := range names {
		if n == name {
			continue
		}
		ln := strings.ToLower(n)
		d := distance(ln, low)
		if ln == low || len(low) >= 3 && strings.HasPrefix(ln, low) {
			d = 0
		}
		if d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	var out []string
	for d := 0; d <= limit; d++ {
		for _, c := range cs {
			if c.d == d && len(out) < 3 {
				out = append(out, c.n)
			}
		}
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
