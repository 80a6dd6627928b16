package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ErrNotScalar and ErrNotList report an edit whose kind does not match the
// key's value (setting a list, appending to a string).
var (
	ErrNotScalar = errors.New("not a single value")
	ErrNotList   = errors.New("not a list")
)

// errBrokenEdit reports an edit whose result would not parse: a bug, caught
// before any bytes reach a caller.
var errBrokenEdit = errors.New("internal error: the edit would break the ledger")

// checked returns out if it parses as a valid ledger, else errBrokenEdit.
func checked(out []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if _, err := parseChecked(out); err != nil {
		return nil, err
	}
	return out, nil
}

func errDecorated(key string) error {
	return fmt.Errorf("%s has a YAML tag, anchor or alias: edit it by hand", key)
}

var keyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`) })

func checkKey(key string) error {
	if key != "" && !keyRE().MatchString(key) {
		return fmt.Errorf("invalid key %q", key)
	}
	return nil
}

// editable parses src for an edit: front matter ledgers only, valid ones only.
func editable(src []byte, key string) (*frontDoc, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := checkConflict("", src); err != nil {
		return nil, err
	}
	d, err := parseFront("", src)
	if err != nil {
		return nil, err
	}
	if _, err := d.model(); err != nil {
		return nil, err
	}
	return d, nil
}

func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	return nil
}

// splice returns src[:start] + text + src[end:] in a new slice.
func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// insertPoint is where a missing key goes: before `updated` (and the comment
// lines directly above it), else at the end of the front matter.
func (d *frontDoc) insertPoint(key string) int {
	if key != KeyUpdated {
		if e := d.find(KeyUpdated); e != nil {
			p := e.lineStart
			for p > d.fmStart {
				prev := lineStartAt(d.src, p-1)
				if k, ind := classify(d.src, prev, p); k != lineComment || ind != 0 {
					break
				}
				p = prev
			}
			return p
		}
	}
	return d.fmEnd
}

// addLines inserts whole lines (text ends with d.eol) at a line start p.
func (d *frontDoc) addLines(p int, text string) []byte {
	if p > 0 && d.src[p-1] != '\n' {
		text = d.eol + text
	}
	return splice(d.src, p, p, text)
}

// checkSet checks a scalar edit's input.
func checkSet(key, value string) error {
	if listKeys[key] {
		return fmt.Errorf("set %s: %w", key, ErrNotScalar)
	}
	return checkText("value", value)
}

// setScalar is SetScalar on a parsed ledger, before its result is checked.
func (d *frontDoc) setScalar(key, value string) ([]byte, error) {
	src := d.src
	e := d.find(key)
	if e != nil && e.decorated {
		return nil, errDecorated(key)
	}
	if e == nil {
		line := key + ": " + formatScalar(value, styleAuto, false, "  ", d.eol) + d.eol
		return d.addLines(d.insertPoint(key), line), nil
	}
	v := e.val
	if v.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("set %s: %w", key, ErrNotScalar)
	}
	if v.Value == value && v.Tag != "!!null" {
		return src, nil
	}
	if v.Tag == "!!null" && v.Value == "" {
		if value == "" {
			return src, nil
		}
		// Spaces or a comment after the colon would end up inside a block
		// scalar's first line: then a multi-line value is double-quoted.
		style := styleAuto
		if le := lineEndAt(src, e.colonEnd); textEnd(src, e.colonEnd, le) > e.colonEnd && strings.Contains(value, "\n") {
			style = styleDouble
		}
		return splice(src, e.colonEnd, e.colonEnd, " "+formatScalar(value, style, false, "  ", d.eol)), nil
	}
	end := scalarEnd(src, v, e.valOff, e.limit, false, 0)
	style := styleOf(v)
	if v.Tag == "!!null" || v.Value == "" {
		// An empty value ("" in a new ledger) says nothing of how the
		// person writes: the value is plain where YAML allows, as people
		// write it by hand.
		style = styleAuto
	}
	indent := "  "
	if style == styleBlock {
		if hdr := lineEndAt(src, e.valOff); hdr < end {
			_, n := classify(src, hdr, lineEndAt(src, hdr))
			indent = strings.Repeat(" ", n)
		}
	}
	return splice(src, e.valOff, end, formatScalar(value, style, false, indent, d.eol)), nil
}

// Touch sets `updated` to now, adding the key if it is missing.
func Touch(src []byte, now time.Time) ([]byte, error) {
	return SetScalar(src, KeyUpdated, FormatTime(now))
}

// blockItems returns, for a block sequence, each item's lines: from the
// start of its "-" line to the end of its last content line.
func (d *frontDoc) blockItems(e *entry) ([][2]int, error) {
	seq := e.val
	dashCol := seq.Column
	starts := make([]int, 0, len(seq.Content))
	for _, it := range seq.Content {
		// The item's "-" is on the item's line, or on an earlier one.
		p := lineStartAt(d.src, d.offset(it.Line, it.Column))
		for {
			dash := runeOffset(d.src, p, dashCol)
			if dash < len(d.src) && d.src[dash] == '-' {
				if _, ind := classify(d.src, p, dash+1); ind == dash-p {
					break
				}
			}
			if p <= e.valOff {
				return nil, fmt.Errorf("%s: cannot find the list item on line %d", e.key.Value, d.fileLine(it))
			}
			p = lineStartAt(d.src, p-1)
		}
		starts = append(starts, p)
	}
	out := make([][2]int, len(starts))
	for i, s := range starts {
		limit := e.limit
		if i+1 < len(starts) {
			limit = starts[i+1]
		}
		first := lineEndAt(d.src, s)
		if first > limit {
			first = limit
		}
		end := lastContentLineEnd(d.src, first, limit, 0, true)
		if end < first {
			end = first
		}
		out[i] = [2]int{s, end}
	}
	return out, nil
}

// itemIndent returns, for a block list item line, the bytes before the "-"
// and the column (in bytes) where the item's content starts.
func itemIndent(src []byte, lineStart int) (string, int) {
	i := lineStart
	for src[i] == ' ' || src[i] == '\t' {
		i++
	}
	pre := string(src[lineStart:i])
	j := i + 1
	for j < len(src) && src[j] == ' ' {
		j++
	}
	if j == i+1 {
		j = i + 2
	}
	return pre, j - lineStart
}

// listIndent is the indentation of new block lists: that of the file's
// first block list, else two spaces.
func (d *frontDoc) listIndent() string {
	for _, e := range d.entries {
		if e.val.Kind == yaml.SequenceNode && e.val.Style&yaml.FlowStyle == 0 && len(e.val.Content) > 0 {
			p := lineStartAt(d.src, d.offset(e.val.Line, e.val.Column))
			pre, _ := itemIndent(d.src, p)
			if strings.Trim(pre, " ") == "" {
				return pre
			}
		}
	}
	return "  "
}

// appendTo adds new items to key's list: block writes them as block list
// lines (given the text before the "-" and the item content's column),
// flowItem as the text to insert after a non-empty flow list's last item.
func (d *frontDoc) appendTo(key string, block func(pre string, col int) string, flowItem func() string) ([]byte, error) {
	e := d.find(key)
	if e != nil && e.decorated {
		return nil, errDecorated(key)
	}
	if e == nil {
		pre := d.listIndent()
		return d.addLines(d.insertPoint(key), key+":"+d.eol+block(pre, len(pre)+2)), nil
	}
	v := e.val
	if isEmptyValue(v) {
		// Empty in any spelling (nothing, ~, null, "", []) becomes a block list.
		tokEnd := e.colonEnd
		if v.Kind == yaml.SequenceNode {
			tokEnd = flowEnd(d.src, e.valOff, e.limit)
		} else if v.Tag != "!!null" || v.Value != "" {
			tokEnd = scalarEnd(d.src, v, e.valOff, e.limit, false, 0)
		}
		if tokEnd < e.colonEnd {
			return nil, fmt.Errorf("%s: cannot find the end of the value", key)
		}
		le := lineEndAt(d.src, tokEnd)
		pre := d.listIndent()
		text := block(pre, len(pre)+2)
		if le == len(d.src) || d.src[le-1] != '\n' {
			text = d.eol + text
		}
		out := make([]byte, 0, len(d.src)+len(text))
		out = append(out, d.src[:e.colonEnd]...)
		if tokEnd < len(d.src) && !isSpaceOrBreak(d.src[tokEnd]) {
			out = append(out, ' ') // "next: []#c" must not become "next:#c"
		}
		out = append(out, d.src[tokEnd:le]...)
		out = append(out, text...)
		return append(out, d.src[le:]...), nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("append to %s: %w", key, ErrNotList)
	}
	if v.Style&yaml.FlowStyle != 0 {
		last := v.Content[len(v.Content)-1]
		off := d.offset(last.Line, last.Column)
		end := d.nodeEnd(last, off, e.limit)
		if end < 0 {
			return nil, fmt.Errorf("%s: cannot find the end of the list", key)
		}
		return splice(d.src, end, end, flowItem()), nil
	}
	items, err := d.blockItems(e)
	if err != nil {
		return nil, err
	}
	lastItem := items[len(items)-1]
	pre, col := itemIndent(d.src, lastItem[0])
	return d.addLines(lastItem[1], block(pre, col)), nil
}

// nodeEnd returns the end of a node inside a flow collection.
func (d *frontDoc) nodeEnd(n *yaml.Node, off, limit int) int {
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		return flowEnd(d.src, off, limit)
	}
	return scalarEnd(d.src, n, off, limit, true, 0)
}

// checkAppend checks a list append's input.
func checkAppend(key string, items []string) error {
	if scalarKeys[key] || key == KeyDecisions {
		return fmt.Errorf("append to %s: %w", key, ErrNotList)
	}
	for _, it := range items {
		if err := checkText("item", it); err != nil {
			return err
		}
	}
	return nil
}

// appendItems is AppendItems on a parsed ledger, before its result is checked.
func (d *frontDoc) appendItems(key string, items ...string) ([]byte, error) {
	src := d.src
	var present map[string]bool
	var style scalarStyle
	if e := d.find(key); e != nil && e.val.Kind == yaml.SequenceNode {
		present = make(map[string]bool, len(e.val.Content)+len(items))
		for _, it := range e.val.Content {
			present[it.Value] = true
		}
		if n := len(e.val.Content); n > 0 {
			style = styleOf(e.val.Content[n-1])
			if style == styleBlock {
				style = styleAuto
			}
		}
	}
	if present == nil {
		present = make(map[string]bool, len(items))
	}
	var add []string
	for _, it := range items {
		if it != "" && !present[it] {
			present[it] = true
			add = append(add, it)
		}
	}
	if len(add) == 0 {
		return src, nil
	}
	block := func(pre string, _ int) string {
		var b strings.Builder
		for _, it := range add {
			b.WriteString(pre + "- " + formatScalar(it, style, false, "", d.eol) + d.eol)
		}
		return b.String()
	}
	flowItem := func() string {
		var b strings.Builder
		for _, it := range add {
			b.WriteString(", " + formatScalar(it, style, true, "", d.eol))
		}
		return b.String()
	}
	return d.appendTo(key, block, flowItem)
}

// checkDecision checks a decision's input.
func checkDecision(dec Decision) error {
	if strings.TrimSpace(dec.Decision) == "" {
		return errors.New("a decision needs its text")
	}
	for _, s := range []string{dec.Decision, dec.Why, dec.Date} {
		if err := checkText("decision", s); err != nil {
			return err
		}
	}
	return nil
}

// addDecision is AddDecision on a parsed ledger, before its result is checked.
func (d *frontDoc) addDecision(dec Decision) ([]byte, error) {
	src := d.src
	if e := d.find(KeyDecisions); e != nil && e.val.Kind == yaml.SequenceNode {
		for _, it := range e.val.Content {
			if got, ok := decisionOf(it); ok && got == dec {
				return src, nil
			}
		}
	}
	fields := [][2]string{{"decision", dec.Decision}, {"why", dec.Why}, {"date", dec.Date}}
	block := func(pre string, col int) string {
		var b strings.Builder
		first := true
		for _, f := range fields {
			if f[1] == "" && f[0] != "decision" {
				continue
			}
			if first {
				b.WriteString(pre + "- ")
				first = false
			} else {
				b.WriteString(strings.Repeat(" ", col))
			}
			b.WriteString(f[0] + ": " + formatScalar(f[1], styleAuto, false, "", d.eol) + d.eol)
		}
		return b.String()
	}
	flowItem := func() string {
		var parts []string
		for _, f := range fields {
			if f[1] != "" || f[0] == "decision" {
				parts = append(parts, f[0]+": "+formatScalar(f[1], styleAuto, true, "", d.eol))
			}
		}
		return ", {" + strings.Join(parts, ", ") + "}"
	}
	return d.appendTo(KeyDecisions, block, flowItem)
}

// RemoveItem removes every item equal to item from a list field and reports
// whether anything was removed. A decision matches on its decision text.
func RemoveItem(src []byte, key, item string) ([]byte, bool, error) {
	if err := checkRemove(key); err != nil {
		return nil, false, err
	}
	removed := false
	for {
		d, err := editable(src, key)
		if err != nil {
			return nil, false, err
		}
		out, changed, again, err := d.removeItem(key, item)
		if err != nil {
			return nil, false, err
		}
		if !changed {
			return src, removed, nil
		}
		if out, err = checked(out, nil); err != nil {
			return nil, false, err
		}
		src, removed = out, true
		if !again {
			return src, true, nil
		}
	}
}

// checkRemove checks a list removal's input.
func checkRemove(key string) error {
	if scalarKeys[key] {
		return fmt.Errorf("remove from %s: %w", key, ErrNotList)
	}
	return nil
}

// removeItem removes items equal to item from key's list, before the result
// is checked: every match of a block list at once, one of a flow list
// (again: look for more in the result).
func (d *frontDoc) removeItem(key, item string) (out []byte, changed, again bool, err error) {
	src := d.src
	e := d.find(key)
	if e != nil && e.decorated {
		return nil, false, false, errDecorated(key)
	}
	if e == nil || isEmptyValue(e.val) {
		return src, false, false, nil
	}
	if e.val.Kind != yaml.SequenceNode {
		return nil, false, false, fmt.Errorf("remove from %s: %w", key, ErrNotList)
	}
	var match []int
	for i, it := range e.val.Content {
		if it.Kind == yaml.ScalarNode && it.Value == item {
			match = append(match, i)
		} else if dec, ok := decisionOf(it); ok && key == KeyDecisions && dec.Decision == item {
			match = append(match, i)
		}
	}
	if len(match) == 0 {
		return src, false, false, nil
	}
	if e.val.Style&yaml.FlowStyle == 0 {
		// Block items own disjoint lines: remove them all in one pass.
		items, err := d.blockItems(e)
		if err != nil {
			return nil, false, false, err
		}
		var b []byte
		at := 0
		if len(match) == len(items) {
			// Every item goes: the key stays a list ("next: []"), not an
			// empty value YAML reads as null.
			if colon := d.keyColon(e); colon >= 0 && colon < items[0][0] {
				b, at = append(append(b, src[:colon+1]...), " []"...), colon+1
			}
		}
		for _, i := range match {
			b = append(b, src[at:items[i][0]]...)
			at = items[i][1]
		}
		return append(b, src[at:]...), true, false, nil
	}
	out, err = d.removeAt(e, match[len(match)-1])
	if err != nil {
		return nil, false, false, err
	}
	return out, true, len(match) > 1, nil
}

// removeAt removes the idx-th item of e's list.
func (d *frontDoc) removeAt(e *entry, idx int) ([]byte, error) {
	seq := e.val
	if seq.Style&yaml.FlowStyle == 0 {
		items, err := d.blockItems(e)
		if err != nil {
			return nil, err
		}
		out := splice(d.src, items[idx][0], items[idx][1], "")
		if len(items) == 1 {
			// The last item gone, the key stays a list ("next: []").
			if colon := d.keyColon(e); colon >= 0 && colon < items[0][0] {
				out = splice(out, colon+1, colon+1, " []")
			}
		}
		return out, nil
	}
	n := len(seq.Content)
	start := func(i int) int { return d.offset(seq.Content[i].Line, seq.Content[i].Column) }
	end := func(i int) int { return d.nodeEnd(seq.Content[i], start(i), e.limit) }
	var from, to int
	switch {
	case n == 1:
		from, to = start(0), end(0)
		for to >= 0 && to < e.limit && (d.src[to] == ' ' || d.src[to] == '\t') {
			to++
		}
		if to < 0 || to >= e.limit || d.src[to] != ',' {
			to = end(0)
		} else {
			to++
		}
	case idx < n-1:
		from, to = start(idx), start(idx+1)
	default:
		from, to = end(idx-1), end(idx)
	}
	if from < 0 || to < from {
		return nil, fmt.Errorf("%s: cannot find the list item", e.key.Value)
	}
	return splice(d.src, from, to, ""), nil
}

// keyColon is the offset of the colon after e's key, -1 when it is not on
// the key's line.
func (d *frontDoc) keyColon(e *entry) int {
	start := d.offset(e.key.Line, e.key.Column)
	if start < 0 {
		return -1
	}
	end := bytes.IndexByte(d.src[start:], '\n')
	if end < 0 {
		end = len(d.src) - start
	}
	line := d.src[start : start+end]
	// The key as written (quoted or plain), then its colon.
	i := len(e.key.Value)
	if len(line) > 0 && (line[0] == '"' || line[0] == '\'') {
		if j := bytes.IndexByte(line[1:], line[0]); j >= 0 {
			i = j + 2
		}
	}
	if i > len(line) {
		return -1
	}
	c := bytes.IndexByte(line[i:], ':')
	if c < 0 {
		return -1
	}
	return start + i + c
}

// SetScalar sets a scalar field (goal, now, session, updated, or any other
// scalar key), adding the key if it is missing. The value keeps the old
// one's quoting style where it can; a new one is quoted only if YAML needs it.
func SetScalar(src []byte, key, value string) ([]byte, error) {
	return checked(Set(key, value).once(src))
}

// AppendItems appends items to a list field, adding the key if missing.
// Items already present (exact text) are skipped, so appending is idempotent.
// An empty list (nothing, ~, [] or "") becomes a block list.
func AppendItems(src []byte, key string, items ...string) ([]byte, error) {
	return checked(Append(key, items...).once(src))
}

// AddDecision appends a decision to the decisions list. A decision already
// recorded with the same text, reason and date is not added again.
func AddDecision(src []byte, dec Decision) ([]byte, error) {
	return checked(Decide(dec).once(src))
}
