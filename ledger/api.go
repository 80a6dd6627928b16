package ledger

// This file fixes the package's API for its callers (cmd, handoff, inject).
// Bodies are filled in by the implementation files.

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotFound reports that no ledger exists under a given name.
var ErrNotFound = errors.New("ledger not found")

// Format tells how a ledger stores its fields.
type Format int

const (
	// FrontMatter ledgers keep fields in YAML front matter (the native form).
	FrontMatter Format = iota
	// Sections ledgers keep fields as markdown sections (Continuous-Claude's form).
	Sections
)

// Decision is one entry of the decisions list.
type Decision struct {
	Decision string `json:"decision"`
	Why      string `json:"why,omitempty"`
	Date     string `json:"date,omitempty"`
}

// Ledger is the parsed model of a ledger file. Src keeps the exact bytes it
// was parsed from; edits are computed against Src.
type Ledger struct {
	Path        string     `json:"path"`
	Format      Format     `json:"-"`
	Stream      string     `json:"stream"`
	Goal        string     `json:"goal"`
	Constraints []string   `json:"constraints"`
	Done        []string   `json:"done"`
	Now         string     `json:"now"`
	Next        []string   `json:"next"`
	Decisions   []Decision `json:"decisions"`
	Questions   []string   `json:"questions"`
	Files       []string   `json:"files"`
	Updated     string     `json:"updated"`
	// Body is the markdown after the front matter (the whole file for
	// section-style ledgers).
	Body []byte `json:"-"`
	Src  []byte `json:"-"`
	// Present names the keys the front matter holds, in order (a reader of
	// other formats fills only the fields a ledger does not carry).
	Present []string `json:"-"`
	// Extra is the front matter's lines of keys the ledger does not know,
	// verbatim (a conversion keeps them as they were written).
	Extra string `json:"-"`
}

// Problem is one validation failure, printed as "path:line: message".
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) Error() string {
	if p.Path == "" {
		if p.Line > 0 {
			return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
		}
		return p.Msg
	}
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Msg)
}

// Problems is a non-empty list of validation failures; it is the error Parse
// returns for a ledger that cannot be used.
type Problems []Problem

func (ps Problems) Error() string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += "\n"
		}
		s += p.Error()
	}
	return s
}

// WithPath returns err with path set on each Problem, for the Problems that
// the edit functions (which take bytes, not a path) return; any other error
// is returned as it is.
func WithPath(err error, path string) error {
	var ps Problems
	if !errors.As(err, &ps) {
		return err
	}
	out := make(Problems, len(ps))
	for i, p := range ps {
		p.Path = path
		out[i] = p
	}
	return out
}

// FormatTime renders t as the ledger's `updated` value (UTC, RFC 3339, seconds).
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
