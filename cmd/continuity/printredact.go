package main

import (
	"bytes"
	"io"

	"github.com/continuity-md/continuity/internal/redact"
)

// redactedOut holds what a command prints and writes it redacted when the
// command ends: a secret edited into a ledger or a handoff by hand must not
// reach the terminal, or the agent that ran the command (its output goes
// into the transcript and the model's context), through show, list,
// search, config or an error message. The built-in rules apply (the
// project's own are applied where the project is open).
type redactedOut struct {
	w   io.Writer
	buf bytes.Buffer
}

func (r *redactedOut) Write(p []byte) (int, error) { return r.buf.Write(p) }

// flush writes what was printed, redacted.
func (r *redactedOut) flush() {
	if r.buf.Len() == 0 {
		return
	}
	out, _ := redact.Redact(r.buf.String())
	_, _ = io.WriteString(r.w, out)
	r.buf.Reset()
}

// printsUserText reports whether the command line's output may hold text
// from the project's files: everything but the hook (its own output is
// redacted as it is built), the merge driver and shell completion.
func printsUserText(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "hook", "merge", "completion", "__complete", "__completeNoDesc":
		return false
	}
	return true
}
