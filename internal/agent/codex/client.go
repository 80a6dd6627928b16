package codex

// ClientNames are the command names of Codex's client process: the native
// binary the node launcher (bin/codex.js) starts. A hook finds it as the
// client even at a session's start, when it is younger than a second:
// SessionStart is the only hook a session killed in its first turn ran
// (Codex has no hook on tool calls registered), and the terminal above it
// would outlive it.
func (Host) ClientNames() []string { return []string{"codex"} }
