package core

// The sample session `continuity demo` runs on: a transcript recorded from the
// real Claude Code 2.1.328 (offline, against a scripted stand-in API) in
// which the agent creates two tasks, writes and edits src/auth/token.go, runs
// two commands (one fails), updates the tasks, and the session is then
// compacted with /compact.

import _ "embed"

// Transcript is the recorded session, byte for byte.
//
//go:embed demo_transcript.jsonl
var Transcript []byte

// ProjectDir is the project directory the transcript was recorded in; the
// demo rewrites it to its own temporary repository.
const ProjectDir = "/tmp/demo-rec/proj"

// SessionID is the recorded agent session's id.
const SessionID = "163a3853-845e-49d9-ba12-21c3e2d18c2e"

// CompactSummary is the compaction summary as the host sends it in the
// PostCompact payload (the stand-in model's reply, tags included).
const CompactSummary = "<analysis>mock</analysis>\n<summary>\nReplacing session cookies with short-lived JWTs. " +
	"Wrote the token refresh endpoint in src/auth/token.go (Refresh signs a new access token). " +
	"go test fails: the repository has no go.mod yet. Next: the logout endpoint, which revokes the refresh token.\n</summary>"
