// Package handoff is the native handoff: a session's State (where the work
// stands: task, plan, checks, commits, uncommitted paths, calls in flight,
// the working set), the one typed record of its facts from the transcript
// engine's accumulator (internal/transcript, which fills Facts) through
// Build (a Handoff from the facts and the ledger) and Render (a markdown
// file whose front matter, written here and not by the template, carries
// the Meta, the State and the lists' Work) to Parse, which reads them back
// for every reader (Substantial, log, injection), and the sections of
// handoffs written before from their text. Names sort by time and never
// collide. It makes no file system calls: the use cases in internal/core
// read and write the files; other tools' handoffs are read by
// internal/compat.
package handoff
