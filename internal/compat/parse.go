package compat

import (
	"errors"

	"github.com/continuity-md/continuity/ledger"
)

// ErrSectionStyle reports an edit or merge attempted on a section-style
// ledger, which the CLI changes only once it is converted with Import.
var ErrSectionStyle = errors.New("section-style ledger: convert it with `continuity import` before editing")

// ParseLedger reads a ledger in any form continuity knows: the native front
// matter form (with the fields its body's sections carry where the front
// matter holds none), a section-style ledger, or a Codex-style
// CONTINUITY.md. Errors are ledger.Problems naming path and line.
func ParseLedger(path string, src []byte) (*ledger.Ledger, error) {
	if err := ledger.CheckConflict(path, src); err != nil {
		return nil, err
	}
	if ledger.HasFrontMatter(src) {
		l, err := ledger.Parse(path, src)
		if err != nil {
			return nil, err
		}
		present := make(map[string]bool, len(l.Present))
		for _, k := range l.Present {
			present[k] = true
		}
		fillFromBody(l, present)
		return l, nil
	}
	l, ok := parseSections(path, src)
	if !ok {
		return nil, ledger.Problems{{Path: path, Line: 1, Msg: "no front matter"}}
	}
	if err := ledger.CheckUTF8(path, src); err != nil {
		return nil, err
	}
	return l, nil
}

// IsSectionStyle reports whether src is a ledger of another tool's
// section form, which the CLI does not edit until it is imported.
func IsSectionStyle(src []byte) bool {
	if ledger.HasFrontMatter(src) {
		return false
	}
	_, ok := parseSections("", src)
	return ok
}
