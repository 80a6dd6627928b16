// Package handoff turns a Claude Code session transcript into a handoff: a
// markdown file, committed with the code, that says what was done, what is
// next and which files moved, so the next session can pick up the thread.
// It holds the program's one transcript reader.
package handoff
