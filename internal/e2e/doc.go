// Package e2e holds continuity's end-to-end tests and the stand-in model
// APIs they run the real clients against: the tests build the continuity
// binary, register its hooks in a temporary git repository, and drive the
// real Claude Code, Codex CLI and Gemini CLI (pinned versions) offline
// against scripted stand-ins for the Anthropic, OpenAI and Gemini APIs on
// 127.0.0.1 (anthropic_api*.go, openai_api*.go, gemini_api*.go in this package; what
// they share in standin.go). The tests assert on what the client sent to the
// model and on the files the hooks wrote. They are long tests: they run with
// CONTINUITY_LONG=1 (script/test sets it); CONTINUITY_SKIP_E2E=1 skips them,
// CONTINUITY_REQUIRE_E2E=1 (CI) makes a missing client a failure. E2E_DEBUG=1
// logs what each SessionStart hook run printed.
package e2e
