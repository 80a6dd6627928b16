package main

import (
	"bytes"
	"io"

	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/workspace"
)

// redactedOut holds what a command prints and writes it redacted when the
// command ends: a secret edited into a ledger or a handoff by hand must not
// reach the terminal, or the agent that ran the command (its output goes
// into the transcript and the model's context), through show, list,
// search, config or an error message. The built-in rules apply, and the
// project's own (redact.extra) once the command has opened the project.
//
// It is also the one place that keeps a file's text from acting on the
// terminal: controls, bidi and invisible characters are made visible, or
// escaped in JSON (see visible).
type redactedOut struct {
	w    io.Writer
	buf  bytes.Buffer
	p    *workspace.Workspace // the project the command opened, if any
	json *bool                // the command prints JSON
}

func (r *redactedOut) Write(p []byte) (int, error) { return r.buf.Write(p) }

// flush writes what was printed, redacted.
func (r *redactedOut) flush() {
	if r.buf.Len() == 0 {
		return
	}
	out, _ := redact.Redact(r.buf.String())
	if r.p != nil {
		// Markers are never redacted again, and an allow pattern of the
		// project's does not bring back what the built-in rules took.
		out = r.p.Redact(out)
	}
	_, _ = io.WriteString(r.w, visible(out, r.json != nil && *r.json, styles))
	r.buf.Reset()
}

// projectOpened tells the command's redacted outputs (when it prints
// through them) the project it opened, so that its rules apply too.
func (a *app) projectOpened(p *workspace.Workspace) {
	for _, w := range []io.Writer{a.out, a.errw} {
		if r, ok := w.(*redactedOut); ok && p != nil {
			r.p = p
		}
	}
}

// printsUserText reports whether the command line's output may hold text
// from the project's files: everything but the hook (its own output is
// redacted as it is built), the merge driver, shell completion and serve
// (which prints its address at once, and redacts every page it serves).
func printsUserText(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "hook", "merge", "completion", "__complete", "__completeNoDesc", "serve":
		return false
	}
	return true
}
