package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal that wants colour (NO_COLOR unset).
func (a *app) isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
