package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// An Edit is one change to a ledger's front matter (Set, Append, Remove,
// Decide). Apply makes several at once; SetScalar, AppendItems, RemoveItem
// and AddDecision make one.
type Edit struct {
	key   string
	check func() error // the edit's own input, before any parse
	// apply makes the edit on a parsed ledger. again asks for another run
	// on the result (a flow list with more items to remove).
	apply func(d *frontDoc) (out []byte, again bool, err error)
	// reset, when set, forgets the steps of an edit that runs in several
	// (Finish), so the same Edit can be applied again to other bytes.
	reset func()
	// moved is what a Finish did to now (see Moved).
	moved *NowMove
}

// NowMove is what a Finish edit did to now once Apply has run it: On says
// now was finished and moved on, to Now (the first next item; "" when
// next was empty and now was cleared).
type NowMove struct {
	On  bool
	Now string
}

// Moved is what the edit, once applied, did to now (nothing for any edit
// but Finish): the edit knows, so nobody parses the ledger again to tell.
func (e Edit) Moved() NowMove {
	if e.moved == nil {
		return NowMove{}
	}
	return *e.moved
}

// Set sets a scalar field, adding the key if it is missing (see SetScalar).
func Set(key, value string) Edit {
	return Edit{key: key, check: func() error { return checkSet(key, value) }, apply: func(d *frontDoc) ([]byte, bool, error) {
		out, err := d.setScalar(key, value)
		return out, false, err
	}}
}

// Begin sets now to value and takes the same step (see sameStep) out of
// next: what a person starts is no longer also still to do. It runs in
// steps: build one per Apply.
func Begin(value string) Edit {
	var stage int
	var tried map[string]bool
	reset := func() { stage, tried = 0, map[string]bool{} }
	reset()
	return Edit{key: KeyNow, check: func() error { return checkSet(KeyNow, value) }, reset: reset, apply: func(d *frontDoc) ([]byte, bool, error) {
		if stage == 0 {
			stage = 1
			out, err := d.setScalar(KeyNow, value)
			return out, value != "", err
		}
		l, err := d.model()
		if err != nil {
			return nil, false, err
		}
		for _, it := range l.Next {
			if sameStep(it) == sameStep(value) && !tried[it] {
				out, _, again, err := d.removeItem(KeyNext, it)
				tried[it] = !again // a flow list may need another run
				return out, true, err
			}
		}
		return d.src, false, nil
	}}
}

// Append appends items to a list field (see AppendItems).
func Append(key string, items ...string) Edit {
	return Edit{key: key, check: func() error { return checkAppend(key, items) }, apply: func(d *frontDoc) ([]byte, bool, error) {
		out, err := d.appendItems(key, items...)
		return out, false, err
	}}
}

// Remove removes every item equal to item from a list field (see
// RemoveItem); nothing to remove is no error.
func Remove(key, item string) Edit { return remove(key, item, false) }

// RemoveExisting is Remove, failing with ErrNoItem when the list has no
// such item.
func RemoveExisting(key, item string) Edit { return remove(key, item, true) }

// ErrNoItem reports a removal of an item that is not in the list.
var ErrNoItem = errors.New("no such item")

// noItemError names the list and the item that is not in it; it is ErrNoItem.
type noItemError struct{ key, item string }

func (e noItemError) Error() string        { return fmt.Sprintf("%s has no item %q", e.key, e.item) }
func (e noItemError) Is(target error) bool { return target == ErrNoItem }

func remove(key, item string, strict bool) Edit {
	return Edit{key: key, check: func() error { return checkRemove(key) }, apply: func(d *frontDoc) ([]byte, bool, error) {
		out, changed, again, err := d.removeItem(key, item)
		// A run is repeated only while matches remain, so only the first
		// can find none.
		if err == nil && !changed && strict {
			return nil, false, noItemError{key, item}
		}
		return out, again, err
	}}
}

// Decide appends a decision (see AddDecision).
func Decide(dec Decision) Edit {
	return Edit{key: KeyDecisions, check: func() error { return checkDecision(dec) }, apply: func(d *frontDoc) ([]byte, bool, error) {
		out, err := d.addDecision(dec)
		return out, false, err
	}}
}

// Finish records items as done: each is appended to done (once) and removed
// from next (matched without case or extra spaces: see sameStep). When one
// of them is now, now moves on to the first item left in
// next, which leaves next; with next empty, now is cleared. So a finished
// step is never what the next session is told to work on. The edit runs in
// steps (each on the last one's checked result): build one per Apply.
func Finish(items ...string) Edit {
	finished := map[string]bool{}
	for _, it := range items {
		finished[sameStep(it)] = true
	}
	var stage int
	var tried map[string]bool
	var promoted string
	moved := &NowMove{}
	reset := func() { stage, tried, promoted, *moved = 0, map[string]bool{}, "", NowMove{} }
	reset()
	return Edit{key: KeyDone, check: func() error { return checkAppend(KeyDone, items) }, reset: reset, moved: moved, apply: func(d *frontDoc) ([]byte, bool, error) {
		l, err := d.model()
		if err != nil {
			return nil, false, err
		}
		if stage == 0 { // into done, as the ledger spells the step
			stage = 1
			out, err := d.appendItems(KeyDone, spelled(items, l)...)
			return out, true, err
		}
		if stage == 1 { // out of next, one item a step
			for _, it := range l.Next {
				if finished[sameStep(it)] && !tried[it] {
					out, _, again, err := d.removeItem(KeyNext, it)
					tried[it] = !again // a flow list may need another run
					return out, true, err
				}
			}
			stage = 2
		}
		if stage == 2 { // now moves on
			stage = 3
			if !finished[sameStep(l.Now)] {
				return d.src, false, nil
			}
			if len(l.Next) > 0 {
				promoted = l.Next[0]
			}
			*moved = NowMove{On: true, Now: promoted}
			out, err := d.setScalar(KeyNow, promoted)
			return out, promoted != "", err
		}
		// The promoted item leaves next.
		out, _, again, err := d.removeItem(KeyNext, promoted)
		return out, again, err
	}}
}

// spelled returns items with each one that is the ledger's now or a next
// item (see sameStep) as the ledger writes it.
func spelled(items []string, l *Ledger) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it
		for _, s := range append([]string{l.Now}, l.Next...) {
			if s != "" && sameStep(s) == sameStep(it) {
				out[i] = s
				break
			}
		}
	}
	return out
}

// sameStep is a step's text as Finish compares it: without case, runs of
// white space as one space, and a final period dropped, so "done 'write
// the changelog'" finishes the step a person wrote "Write the changelog.".
func sameStep(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".")
}

// start readies the edits for a run on new bytes.
func start(edits []Edit) {
	for _, e := range edits {
		if e.reset != nil {
			e.reset()
		}
	}
}

// once makes the edit on src, before its result is checked. An edit that
// asks to run again is run on its (checked) result until it is done.
func (e Edit) once(src []byte) ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	start([]Edit{e})
	for {
		d, err := editable(src, e.key)
		if err != nil {
			return nil, err
		}
		out, again, err := e.apply(d)
		if err != nil || !again {
			return out, err
		}
		if src, err = checked(out, nil); err != nil {
			return nil, err
		}
	}
}

// Apply makes edits on src in order, then sets `updated` to now, and
// checks that the result parses: one full parse before the edits, one
// between two edits, one of the result. src must be a valid front matter
// ledger; nothing is returned unless every edit succeeds.
func Apply(src []byte, now time.Time, edits ...Edit) ([]byte, error) {
	for _, e := range edits {
		if err := checkKey(e.key); err != nil {
			return nil, err
		}
		if err := e.check(); err != nil {
			return nil, err
		}
	}
	first, err := editable(src, "")
	if err != nil {
		return nil, err
	}
	start(edits)
	d := first
	out := src
	for i := 0; i < len(edits); {
		var again bool
		if out, again, err = edits[i].apply(d); err != nil {
			return nil, err
		}
		if !again {
			i++
		}
		if i == len(edits) && !again {
			break
		}
		if d, err = parseChecked(out); err != nil {
			return nil, err
		}
	}
	// `updated` is usually far from what the edits changed: set it on the
	// first parse, whose offsets still hold where the edits left the bytes
	// alone, and check the result once.
	stamp := FormatTime(now)
	touched, err := first.setScalar(KeyUpdated, stamp)
	if err != nil {
		return nil, err
	}
	if merged, ok := mergeSplice(src, out, touched); ok {
		if d, err := parseChecked(merged); err == nil && d.updatedIs(stamp) {
			return merged, nil
		}
	}
	// Otherwise the long way: parse what the edits made, then set it.
	if d, err = parseChecked(out); err != nil {
		return nil, err
	}
	touched, err = d.setScalar(KeyUpdated, stamp)
	if err != nil {
		return nil, err
	}
	return checked(touched, nil)
}

// parseChecked parses an edit's result; one that does not parse is a bug in
// the edit, reported as errBrokenEdit.
func parseChecked(out []byte) (*frontDoc, error) {
	d, err := parseFront("", out)
	if err == nil {
		_, err = d.model()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBrokenEdit, err)
	}
	return d, nil
}

// updatedIs reports whether the ledger's `updated` is the scalar stamp.
func (d *frontDoc) updatedIs(stamp string) bool {
	e := d.find(KeyUpdated)
	return e != nil && e.val.Value == stamp
}

// mergeSplice combines two edits of base: a, and b, which changed one range
// of base. It returns a with b's change made in it, when b's range lies in
// bytes a left alone, away from a's own change (at least one byte between
// them, so that no insertion point is shared).
func mergeSplice(base, a, b []byte) ([]byte, bool) {
	// b's change: base[bs:be] became b[bs:len(b)-(len(base)-be)].
	bs := commonPrefix(base, b)
	be := len(base) - commonSuffix(base[bs:], b[bs:])
	if bs == len(base) && len(b) == len(base) {
		return a, true // b changed nothing
	}
	repl := b[bs : len(b)-(len(base)-be)]
	pa := commonPrefix(base, a)
	sa := commonSuffix(base, a)
	switch {
	case be < pa:
		return splice(a, bs, be, string(repl)), true
	case bs > len(base)-sa:
		shift := len(a) - len(base)
		return splice(a, bs+shift, be+shift, string(repl)), true
	}
	return nil, false
}

// commonBlock is how many bytes commonPrefix and commonSuffix compare at
// once before they go byte by byte.
const commonBlock = 64

func commonPrefix(x, y []byte) int {
	n := min(len(x), len(y))
	i := 0
	for i+commonBlock <= n && bytes.Equal(x[i:i+commonBlock], y[i:i+commonBlock]) {
		i += commonBlock
	}
	for i < n && x[i] == y[i] {
		i++
	}
	return i
}

func commonSuffix(x, y []byte) int {
	n := min(len(x), len(y))
	i := 0
	for i+commonBlock <= n && bytes.Equal(x[len(x)-i-commonBlock:len(x)-i], y[len(y)-i-commonBlock:len(y)-i]) {
		i += commonBlock
	}
	for i < n && x[len(x)-1-i] == y[len(y)-1-i] {
		i++
	}
	return i
}
