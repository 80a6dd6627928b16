package main

import (
	"bytes"
	"fmt"
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
	// The project's rules once it is open (the built-in ones and its
	// own, and the allow entries that name a value): the terminal shows
	// what the files hold, never a marker where a file keeps the value.
	out, _ := redact.Redact(r.buf.String())
	if r.p != nil {
		out = r.p.Redact(r.buf.String())
	}
	_, _ = io.WriteString(r.w, visible(out, r.json != nil && *r.json, styles))
	r.buf.Reset()
}

// allowanceNotes writes, after everything else, what the project's allow
// entries spared or were overruled on in this run (see
// workspace.AllowanceNotes): said on every run, on stderr.
func (r *redactedOut) allowanceNotes() {
	if r.p == nil {
		return
	}
	for _, n := range r.p.AllowanceNotes() {
		fmt.Fprintf(r, "continuity: %s\n", n)
	}
	r.flush()
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
