package copilot

import (
	"bytes"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/safefile"
)

// tailMax bounds the look back from the end of a session's events: past
// it, the hook decides as if no compaction were found (no refresh).
const tailMax = 256 << 10

// ourPrefix opens every context the core's renderer writes, so the events
// tell continuity's injections from other hooks'.
const ourPrefix = "continuity"

// compactedSinceInjection reports whether the events at path show a
// compaction (its start, or the preCompact hook announcing it) after the
// last context continuity injected (a hook whose output's additionalContext
// is continuity's) and after the start of the session's latest process.
// Copilot compacts while the turn goes on: the hook of
// the next tool result or prompt is the first that can give the model its
// goal again. Only a regular file inside Copilot's session-state directory
// is read, and only its last tailMax bytes: the compaction that matters
// is a few records back.
func (h Host) compactedSinceInjection(path string) bool {
	compacted := false
	h.scanTail(path, func(rec []byte) bool {
		switch recordSays(rec) {
		case sawCompaction:
			compacted = true
			return false
		case sawInjection:
			return false
		}
		return true
	})
	return compacted
}

// scanTail calls fn with the records of the last tailMax bytes of the
// events at path, the last first, until fn returns false. Only a regular
// file inside Copilot's session-state directory is read. It reports
// whether the file could be read.
func (h Host) scanTail(path string, fn func(rec []byte) bool) bool {
	dir := h.TranscriptDir(h.env, "")
	if dir == "" || path == "" {
		return false
	}
	f, fi, err := safefile.OpenRegular(path, dir)
	if err != nil {
		return false
	}
	defer f.Close()
	from := max(fi.Size()-tailMax, 0)
	buf := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return false
	}
	for end := len(buf); end > 0; {
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		if !fn(buf[start:end]) {
			break
		}
		end = start - 1
	}
	return true
}

// flushPoll is how often awaitRecord looks again.
const flushPoll = 50 * time.Millisecond

// awaitRecord waits, at most limit, until the events at path hold the
// hook.start record of this very call (its type, and the payload's
// timestamp): Copilot writes its events behind, about every half second,
// and a handoff read before then would miss the last tool calls and
// replies. It reports whether the record came.
func (h Host) awaitRecord(path, hookType string, at time.Time, limit time.Duration) bool {
	if at.IsZero() {
		return false
	}
	ms := at.UnixMilli()
	deadline := time.Now().Add(limit)
	for {
		found := false
		h.scanTail(path, func(rec []byte) bool {
			r := gjson.ParseBytes(rec)
			found = r.Get("type").Str == "hook.start" && r.Get("data.hookType").Str == hookType && r.Get("data.input.timestamp").Int() == ms
			return !found
		})
		if found || time.Now().After(deadline) {
			return found
		}
		time.Sleep(flushPoll)
	}
}

type tailMark int

const (
	sawNothing tailMark = iota
	sawCompaction
	sawInjection
)

// recordSays is what one event record says for a refresh.
func recordSays(rec []byte) tailMark {
	if len(rec) == 0 || !gjson.ValidBytes(rec) {
		return sawNothing
	}
	r := gjson.ParseBytes(rec)
	switch r.Get("type").Str {
	case "session.start", "session.resume":
		// A new process of the session: its sessionStart hook gives the
		// model the ledger afresh (an earlier process's injection is not
		// kept), so a compaction before it takes nothing away. Copilot
		// may run the first prompt's hook beside sessionStart's and write
		// that one's output after it; this record comes before both.
		return sawInjection
	case "session.compaction_start":
		return sawCompaction
	case "hook.start":
		if r.Get("data.hookType").Str == evPreCompact {
			return sawCompaction
		}
	case "hook.end":
		if strings.HasPrefix(r.Get("data.output.additionalContext").Str, ourPrefix) {
			return sawInjection
		}
	}
	return sawNothing
}
