// Package hookio is the Claude Code hook protocol: decoding the payload a hook
// receives on stdin, whatever its shape, and encoding the one JSON object it
// may print on stdout.
package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxPayload bounds how much of stdin is read; larger payloads are refused.
const MaxPayload = 4 << 20

// Payload holds the fields continuity uses. Unknown fields are ignored; a
// field of the wrong type reads as empty.
type Payload struct {
	SessionID          string
	TranscriptPath     string
	Cwd                string
	Event              string
	Source             string // SessionStart
	Trigger            string // PreCompact, PostCompact
	CustomInstructions string // PreCompact
	CompactSummary     string // PostCompact
	Reason             string // SessionEnd
}

// ErrEmpty reports an empty payload.
var ErrEmpty = errors.New("empty payload")

// Read reads and decodes one payload from r.
func Read(r io.Reader) (Payload, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return Payload{}, fmt.Errorf("read payload: %w", err)
	}
	if len(data) > MaxPayload {
		return Payload{}, fmt.Errorf("payload larger than %d MiB", MaxPayload>>20)
	}
	return Decode(data)
}

// Decode decodes a payload. It fails only when data is not a JSON object.
func Decode(data []byte) (Payload, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Payload{}, ErrEmpty
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		if err == nil {
			err = errors.New("null")
		}
		return Payload{}, fmt.Errorf("payload is not a JSON object: %v", err)
	}
	str := func(key string) string {
		var s string
		if v, ok := raw[key]; ok && json.Unmarshal(v, &s) == nil {
			return clean(s)
		}
		return ""
	}
	return Payload{
		SessionID:          str("session_id"),
		TranscriptPath:     str("transcript_path"),
		Cwd:                str("cwd"),
		Event:              str("hook_event_name"),
		Source:             str("source"),
		Trigger:            str("trigger"),
		CustomInstructions: str("custom_instructions"),
		CompactSummary:     str("compact_summary"),
		Reason:             str("reason"),
	}, nil
}

// clean drops NUL bytes and replaces invalid UTF-8, so nothing downstream
// (paths, files, JSON) ever sees them.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ReplaceAll(s, "\x00", "")
}

// SessionStartOutput is the JSON a SessionStart hook prints.
type SessionStartOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// SessionStart builds the output that injects context and shows message to the person.
func SessionStart(context, message string) SessionStartOutput {
	var o SessionStartOutput
	o.HookSpecificOutput.HookEventName = "SessionStart"
	o.HookSpecificOutput.AdditionalContext = context
	o.SystemMessage = message
	return o
}

// Write encodes v as one JSON line on w.
func Write(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
