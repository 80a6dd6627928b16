package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// payload holds the fields of a Claude Code hook payload that continuity
// uses. Unknown fields are ignored; a field of the wrong type reads as empty.
type payload struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	Event          string
	Source         string // SessionStart
	Trigger        string // PreCompact, PostCompact
	CompactSummary string // PostCompact
	Reason         string // SessionEnd
	AgentID        string // a subagent's hooks: its id (session_id is its parent's)
}

// errEmpty reports an empty payload.
var errEmpty = errors.New("empty payload")

// decodePayload decodes a payload. It fails only when data is not a JSON object.
func decodePayload(data []byte) (payload, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return payload{}, errEmpty
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		if err == nil {
			err = errors.New("null")
		}
		return payload{}, fmt.Errorf("payload is not a JSON object: %v", err)
	}
	str := func(key string) string {
		var s string
		if v, ok := raw[key]; ok && json.Unmarshal(v, &s) == nil {
			return clean(s)
		}
		return ""
	}
	return payload{
		SessionID:      str("session_id"),
		TranscriptPath: str("transcript_path"),
		Cwd:            str("cwd"),
		Event:          str("hook_event_name"),
		Source:         str("source"),
		Trigger:        str("trigger"),
		CompactSummary: str("compact_summary"),
		Reason:         str("reason"),
		AgentID:        str("agent_id"),
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

// sessionStartOutput is the JSON a SessionStart (or SubagentStart) hook prints.
type sessionStartOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// sessionStart builds the output of the start event (SessionStart or
// SubagentStart) that injects context and shows message to the person.
func sessionStart(event, context, message string) sessionStartOutput {
	var o sessionStartOutput
	o.HookSpecificOutput.HookEventName = event
	o.HookSpecificOutput.AdditionalContext = context
	o.SystemMessage = message
	return o
}

// encodeLine encodes v as one JSON line.
func encodeLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
