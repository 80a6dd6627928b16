package project

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/continuity-md/continuity/internal/proc"
)

// marshalSession is json.MarshalIndent(s, "", "  "), byte for byte
// (TestMarshalSessionAsJSON), written out field by field: every hook call
// writes its session's state, and encoding/json's first use in a process
// (its reflection over the types, its caches, the page faults of its code)
// cost a session start more than the rest of that write.
func marshalSession(s *Session) []byte {
	w := jsonWriter{b: make([]byte, 0, 1024)}
	w.open('{')
	w.str("id", s.ID)
	w.strOmit("ledger", s.Ledger)
	w.strOmit("handoff", s.Handoff)
	w.strOmit("handoff_hash", s.HandoffHash)
	w.time("updated", s.Updated)
	if len(s.Runs) > 0 {
		w.key("runs")
		w.open('[')
		for _, r := range s.Runs {
			w.item()
			w.open('{')
			w.str("event", r.Event)
			w.time("at", r.At)
			w.key("ok")
			w.b = strconv.AppendBool(w.b, r.OK)
			w.strOmit("message", r.Message)
			w.strOmit("duration", r.Duration)
			w.close('}')
		}
		w.close(']')
	}
	w.strOmit("handoff_content", s.HandoffContent)
	w.strOmit("agent", s.Agent)
	w.identity("client", s.Client)
	w.identity("candidate", s.Candidate)
	w.strOmit("transcript", s.Transcript)
	w.strOmit("transcript_root", s.TranscriptRoot)
	if !s.Seen.IsZero() {
		w.time("seen", s.Seen)
	}
	if s.Ended {
		w.key("ended")
		w.b = append(w.b, "true"...)
	}
	w.strOmit("recovered", s.Recovered)
	w.strOmit("pending", s.Pending)
	if !s.Claimed.IsZero() {
		w.time("claimed", s.Claimed)
	}
	w.close('}')
	return w.b
}

// jsonWriter writes indented JSON as MarshalIndent with "  " does.
type jsonWriter struct {
	b     []byte
	depth int
	first bool // nothing yet in the object or array just opened
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	for range w.depth {
		w.b = append(w.b, ' ', ' ')
	}
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = true
}

func (w *jsonWriter) close(c byte) {
	w.depth--
	if !w.first {
		w.newline()
	}
	w.b = append(w.b, c)
	w.first = false
}

// item starts an array element.
func (w *jsonWriter) item() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.newline()
}

func (w *jsonWriter) key(k string) {
	w.item()
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':', ' ')
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jsonWriter) strOmit(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jsonWriter) time(k string, t time.Time) {
	w.key(k)
	w.b = append(w.b, '"')
	w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	w.b = append(w.b, '"')
}

func (w *jsonWriter) identity(k string, id *proc.Identity) {
	if id == nil {
		return
	}
	w.key(k)
	w.open('{')
	w.key("pid")
	w.b = strconv.AppendInt(w.b, int64(id.PID), 10)
	w.key("start")
	w.b = strconv.AppendUint(w.b, id.Start, 10)
	w.strOmit("where", id.Where)
	w.close('}')
}

// appendJSONString appends s quoted as encoding/json quotes it: its
// HTML-safe escapes, \u2028 and \u2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
