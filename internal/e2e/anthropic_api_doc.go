package e2e

// The Anthropic stand-in: a scripted stand-in for the Anthropic Messages API, on
// 127.0.0.1 only, so that the real Claude Code client can run whole sessions
// (hooks, tools, compaction) offline in tests. It answers from a script, replies
// to compaction requests with a <summary> block, and records every request body
// so a test can assert exactly what the client sent to the model.
