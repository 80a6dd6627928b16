package ledger

// Temporary stubs so callers compile; the ledger implementation replaces this file.

import (
	"errors"
	"time"
)

var errTODO = errors.New("not implemented yet")

// Parse reads a ledger of either format. A ledger that cannot be used returns
// Problems (each "path:line: problem"); a ledger is never half-parsed.
func Parse(path string, src []byte) (*Ledger, error) { return nil, errTODO }

// New returns the bytes of a fresh ledger from the embedded template.
func New(session, goal string, now time.Time) []byte { return nil }

// SetScalar sets a scalar field (goal, now, session, updated, or any other
// scalar key), adding the key if it is missing.
func SetScalar(src []byte, key, value string) ([]byte, error) { return nil, errTODO }

// AppendItems appends items to a list field, adding the key if missing.
// Items already present (exact text) are skipped, so appending is idempotent.
func AppendItems(src []byte, key string, items ...string) ([]byte, error) { return nil, errTODO }

// RemoveItem removes every item equal to item from a list field and reports
// whether anything was removed.
func RemoveItem(src []byte, key, item string) ([]byte, bool, error) { return nil, false, errTODO }

// AddDecision appends a decision to the decisions list.
func AddDecision(src []byte, d Decision) ([]byte, error) { return nil, errTODO }

// Touch sets `updated` to now, adding the key if it is missing.
func Touch(src []byte, now time.Time) ([]byte, error) { return nil, errTODO }

// Import converts a section-style ledger to the front matter form.
func Import(path string, src []byte, now time.Time) ([]byte, error) { return nil, errTODO }
