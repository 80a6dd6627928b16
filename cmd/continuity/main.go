// Command continuity keeps a coding agent's work continuous across context
// compaction, /clear, restarts and teammates. See README.md.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	lessGC(os.Getenv)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// gcPercent is the garbage collector's target for a run of continuity: a
// process lives for milliseconds and its live heap is small (a ledger, a
// handoff, a window of a transcript), so the default (100: collect each
// time the heap doubles from 4 MB) spends the CPU of an edit of a long
// ledger on collections whose memory is returned at exit anyway. At 400
// the heap may grow to five times what is live before a collection.
const gcPercent = 400

// lessGC sets gcPercent unless the person set GOGC themselves.
func lessGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
