// Package handoff is the native handoff: the facts a session's transcript
// gave (Facts, built by the transcript engine in internal/transcript from
// any agent's records), a handoff built from them and the ledger (Build),
// rendered as a markdown file with front matter (Render), read back
// (Parse), and named so that names sort by time and never collide. It makes
// no file system calls: the use cases in internal/core read and write the
// files.
package handoff
