// Package handoff turns a Claude Code session transcript into a handoff: a
// markdown file, committed with the code, that says what was done, what is
// next and which files moved, so the next session can pick up the thread.
// It holds the program's one transcript reader.
//
// The reader streams: lines of up to 64 KiB are decoded in bufio's buffer,
// longer ones are gathered up to MaxLineBytes (8 MiB) and skipped past
// that, never held. Most of a transcript's bytes are request blobs,
// attachments and tool output, so each line's first top-level keys decide,
// before any decoding, whether it can matter (only user and assistant
// entries can); the rest stream past uncopied. Kept lines must be valid
// JSON (a line cut short or joined to the next by a crash says nothing),
// then are read with gjson, which skips what it is not asked for without
// decoding it,
// and stops at the message: the copy of a tool's output the client keeps
// after it is never scanned. encoding/json over every line ran at about
// 80 MB/s on the benchmark transcript, too slow for a 1.5 s SessionEnd.
package handoff
