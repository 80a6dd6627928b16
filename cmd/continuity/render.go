package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// outTerminal reports whether the command's output is a terminal (colour
// or not): a hook whose output is one was run by a person, not an agent.
func (a *app) outTerminal() bool {
	w := a.out
	if r, ok := w.(*redactedOut); ok {
		w = r.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// isTerminal reports whether w is a terminal that wants colour (NO_COLOR
// unset). The redacting writer every command prints through is looked
// through to the file it writes to.
func (a *app) isTerminal(w io.Writer) bool {
	if r, ok := w.(*redactedOut); ok {
		w = r.w
	}
	f, ok := w.(*os.File)
	if !ok || a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
