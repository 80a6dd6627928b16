package claude

import (
	"encoding/json"
	"fmt"

	"github.com/continuity-md/continuity/internal/agent"
)

// Sample is how `continuity demo` plays a recorded Claude Code session: the
// command a person starts it with, the hook calls the client makes around a
// /compact, and the context its SessionStart answer injects. The demo knows
// no Claude Code name of its own.
type Sample struct{}

// Start is what a person types to start a session.
func (Sample) Start() string { return "claude" }

// Typed is the prompt before a command typed inside a session.
func (Sample) Typed() string { return ">" }

// Private reports an environment variable the client sets for hooks, which
// the demo's own hook calls must not see (they would write to the person's
// session).
func (Sample) Private(key string) bool { return key == "CLAUDE_ENV_FILE" }

// Compaction returns the payloads of the hook calls the client makes around
// a manual /compact of session id, whose transcript is in cwd: PreCompact,
// SessionStart with source compact, then PostCompact with summary.
func (Sample) Compaction(id, transcript, cwd, summary string) [][]byte {
	var out [][]byte
	for _, ev := range []agent.Event{
		{Kind: agent.BeforeCompact, Trigger: "manual"},
		{Kind: agent.Start, Source: "compact"},
		{Kind: agent.AfterCompact, Trigger: "manual", Summary: summary},
	} {
		ev.SessionID, ev.Transcript, ev.Cwd = id, transcript, cwd
		b, err := Payload(ev)
		if err != nil {
			panic(err) // each kind above is one the client sends
		}
		out = append(out, b)
	}
	return out
}

// Context is the context a SessionStart hook's output injects.
func (Sample) Context(out []byte) (string, error) {
	var o sessionStartOutput
	if err := json.Unmarshal(out, &o); err != nil {
		return "", fmt.Errorf("hook SessionStart: %w", err)
	}
	return o.HookSpecificOutput.AdditionalContext, nil
}

// Home is the environment that makes the client keep its configuration
// and its sessions' transcripts under dir: a demo's or a bench's own, so
// that the hooks they run find transcripts where the client keeps them
// (the only place a hook reads one from) without touching the person's.
func (Sample) Home(dir string) []string { return []string{"CLAUDE_CONFIG_DIR=" + dir} }
