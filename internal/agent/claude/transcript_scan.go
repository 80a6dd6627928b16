package claude

import "bytes"

// Wants decides from the start of a line whether it can hold a fact:
// only user and assistant entries can, and progress entries (a subagent's
// messages, in Claude Code 2.0/2.1.x). It reads the top-level keys in
// order and stops at the first that tells: "type" names the entry (the
// client writes it first for most entries), "attachment" marks an
// attachment, "message" means a conversation entry. When the head does
// not tell, the line is kept, to be decided by decoding it.
func (c *collector) Wants(head []byte) bool {
	const window = 1024
	if len(head) > window {
		head = head[:window]
	}
	s := head
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return i >= len(s) && len(s) == window // all blanks: nothing here
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return true
		}
		if s[i] != '"' {
			return true // malformed or cut: let the decoder judge
		}
		end := stringEnd(s, i)
		if end < 0 {
			return true
		}
		key := s[i+1 : end]
		i = skipSpace(s, end+1)
		if i >= len(s) || s[i] != ':' {
			return true
		}
		i = skipSpace(s, i+1)
		switch string(key) {
		case "type":
			if i >= len(s) || s[i] != '"' {
				return true
			}
			e := stringEnd(s, i)
			if e < 0 {
				return true
			}
			t := string(s[i+1 : e])
			return t == "user" || t == "assistant" || t == "progress"
		case "attachment":
			return false
		case "message":
			return true
		}
		i = skipValue(s, i)
		if i < 0 {
			return true
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ',' {
			return true
		}
		i++
	}
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string that starts
// at s[i], or -1 when it does not close within s. It looks for quotes
// only (IndexByte is fast on long strings) and counts the backslashes
// before each: an odd run escapes it.
func stringEnd(s []byte, i int) int {
	for j := i + 1; j < len(s); {
		k := bytes.IndexByte(s[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && s[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
		j++
	}
	return -1
}

// skipValue returns the index just past the JSON value at s[i], or -1
// when it does not end within s.
func skipValue(s []byte, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		e := stringEnd(s, i)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				e := stringEnd(s, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		for j := i; j < len(s); j++ {
			switch s[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j
			}
		}
		return -1
	}
}

// maxRecoveryTries bounds the work spent on one malformed line.
const maxRecoveryTries = 256

// wholeRecords finds the whole records in a line a crash has garbled: a
// record cut short with the next one appended (`{"type":"us{"type":…}`),
// or two records run together (`{…}{…}`). A record starts at `{"` and is
// whole when it closes right before the next record or the end of the line.
func wholeRecords(b []byte) [][]byte {
	var out [][]byte
	tries := 0
	for i := 0; i < len(b) && tries < maxRecoveryTries; {
		k := bytes.Index(b[i:], []byte(`{"`))
		if k < 0 {
			break
		}
		start := i + k
		tries++
		e := skipValue(b, start)
		if e > 0 {
			if next := skipSpace(b, e); next == len(b) || b[next] == '{' {
				out = append(out, b[start:e])
				i = e
				continue
			}
		}
		i = start + 1
	}
	return out
}

// eachKey calls fn with each key of the JSON object raw and its value's
// raw bytes, until fn returns false or raw ends. Unlike gjson's ForEach it
// never unescapes a string it passes over: a tool result's text can be
// megabytes, and only its length matters here unless it is needed.
func eachKey(raw []byte, fn func(key, val []byte) bool) {
	objectKeys(raw, fn)
}

// objectKeys is eachKey, returning the index just past the object's
// closing brace, or -1 when the object is not whole (or fn stopped).
func objectKeys(raw []byte, fn func(key, val []byte) bool) int {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return -1
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return i + 1
	}
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] != '"' {
			return -1
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return -1
		}
		key := raw[i+1 : end]
		i = skipSpace(raw, end+1)
		if i >= len(raw) || raw[i] != ':' {
			return -1
		}
		i = skipSpace(raw, i+1)
		e := skipValue(raw, i)
		if e < 0 || !fn(key, raw[i:e]) {
			return -1
		}
		i = skipSpace(raw, e)
		if i >= len(raw) {
			return -1
		}
		switch raw[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// eachElem calls fn with the raw bytes of each element of the JSON array
// raw, until fn returns false or raw ends.
func eachElem(raw []byte, fn func(val []byte) bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == ']' {
			return
		}
		e := skipValue(raw, i)
		if e < 0 || !fn(raw[i:e]) {
			return
		}
		i = skipSpace(raw, e)
		if i >= len(raw) || raw[i] != ',' {
			return
		}
		i++
	}
}

// topLevel calls fn with each key of the JSON object b and its value's raw
// bytes, and reports whether b is one whole object and nothing else (a
// record cut short, or two run together, is not). It reads b once, stepping
// over strings with IndexByte: far cheaper than a full validation.
func topLevel(b []byte, fn func(key, val []byte)) bool {
	end := objectKeys(b, func(k, v []byte) bool { fn(k, v); return true })
	return end > 0 && skipSpace(b, end) == len(b)
}
