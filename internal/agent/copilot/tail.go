package copilot

import (
	"bytes"
	"strings"

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
// is continuity's). Copilot compacts while the turn goes on: the hook of
// the next tool result or prompt is the first that can give the model its
// goal again. Only a regular file inside Copilot's session-state directory
// is read, and only its last tailMax bytes: the compaction that matters
// is a few records back.
func (h Host) compactedSinceInjection(path string) bool {
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
		switch recordSays(buf[start:end]) {
		case sawCompaction:
			return true
		case sawInjection:
			return false
		}
		end = start - 1
	}
	return false
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
