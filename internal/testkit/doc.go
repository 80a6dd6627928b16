// Package testkit is the one kit of test helpers: a temporary git repository
// fixture (New), the golden-file check with the one -update flag (Check), the
// txtar sections goldens are kept in, and the secrets corpus redaction is
// tested on. It imports no package of continuity's domain (ledger, handoff,
// transcript), so every package's own tests can use it; the transcript
// engine's checks, which drive the engine, stay beside it in
// internal/transcript/transcripttest.
package testkit
