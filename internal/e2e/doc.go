// Package e2e holds continuity's end-to-end tests: they build the continuity
// binary, register its hooks in a temporary git repository, and drive the real
// Claude Code client (pinned version) offline against mockapi, a scripted
// stand-in for the Anthropic API. The tests assert on what the client sent to
// the model and on the files the hooks wrote. Set CONTINUITY_SKIP_E2E=1 to
// skip them; otherwise a missing client is a failure, not a skip. E2E_DEBUG=1
// logs what each of our SessionStart hook runs printed.
package e2e
