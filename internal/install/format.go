package install

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// object and array are JSON values to emit, with object keys in order.
type (
	object []field
	array  []any
	field  struct {
		key string
		val any
	}
)

// matcherGroup is the group Add registers for ev.
func matcherGroup(h Hook, ev string) object {
	hook := object{{"type", "command"}, {"command", h.Command}}
	if t := h.Timeouts[ev]; t > 0 {
		hook = append(hook, field{"timeout", t})
	}
	return object{{"matcher", h.Matchers[ev]}, {"hooks", array{hook}}}
}

// fresh is the settings file Add writes when there was none.
func fresh(h Hook) []byte {
	hooks := object{}
	for _, ev := range h.Events {
		hooks = append(hooks, field{ev, array{matcherGroup(h, ev)}})
	}
	f := style{pretty: true, unit: "  ", nl: "\n", spaced: true}
	var b strings.Builder
	f.emit(&b, object{{"hooks", hooks}}, "", true)
	b.WriteString("\n")
	return []byte(b.String())
}

// style is how a settings file is laid out, so added parts match it.
type style struct {
	pretty bool   // the document spans several lines
	unit   string // one level of indentation
	nl     string // "\n" or "\r\n"
	spaced bool   // a space follows ':' in single-line objects
}

// format detects the document's layout.
func (d *doc) format() style {
	f := style{unit: "  ", nl: "\n"}
	if bytes.Contains(d.src, []byte("\r\n")) {
		f.nl = "\r\n"
	}
	root := d.root
	f.pretty = len(root.vals) == 0 || bytes.IndexByte(d.src[root.start:root.end], '\n') >= 0
	if u := d.indentUnit(); u != "" {
		f.unit = u
	}
	if len(root.vals) > 0 {
		between := d.src[root.keys[0].end:root.vals[0].start]
		f.spaced = bytes.ContainsAny(between, " \t")
	} else {
		f.spaced = true
	}
	return f
}

// indentUnit is the indentation of the root's first member relative to the
// root, or else the smallest indentation of any line; "" when there is none.
func (d *doc) indentUnit() string {
	root := d.root
	if len(root.vals) > 0 && startsLine(d.src, root.keys[0].start) {
		base := lineIndent(d.src, root.start)
		if in := lineIndent(d.src, root.keys[0].start); len(in) > len(base) && strings.HasPrefix(in, base) {
			return in[len(base):]
		}
	}
	best := ""
	for _, line := range bytes.Split(d.src, []byte("\n")) {
		n := len(line) - len(bytes.TrimLeft(line, " \t"))
		if n == 0 || n == len(line) || (best != "" && n >= len(best)) {
			continue
		}
		best = string(line[:n])
	}
	return best
}

// colon is the separator between a key and its value.
func (f style) colon(pretty bool) string {
	if pretty || f.spaced {
		return ": "
	}
	return ":"
}

// emit writes v; indent is the indentation of the line v starts on.
func (f style) emit(b *strings.Builder, v any, indent string, pretty bool) {
	comma := ","
	if !pretty && f.spaced {
		comma = ", "
	}
	switch v := v.(type) {
	case object:
		b.WriteByte('{')
		for i, fl := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			if pretty {
				b.WriteString(f.nl + indent + f.unit)
			}
			b.WriteString(quote(fl.key))
			b.WriteString(f.colon(pretty))
			f.emit(b, fl.val, indent+f.unit, pretty)
		}
		if pretty && len(v) > 0 {
			b.WriteString(f.nl + indent)
		}
		b.WriteByte('}')
	case array:
		b.WriteByte('[')
		for i, el := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			if pretty {
				b.WriteString(f.nl + indent + f.unit)
			}
			f.emit(b, el, indent+f.unit, pretty)
		}
		if pretty && len(v) > 0 {
			b.WriteString(f.nl + indent)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(quote(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	}
}

// quote encodes s as a JSON string without escaping <, > and &.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
