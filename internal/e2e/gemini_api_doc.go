package e2e

// The Gemini stand-in: a scripted stand-in for the Gemini API
// (generativelanguage v1beta: streamGenerateContent, generateContent,
// countTokens), on 127.0.0.1 only, so that the real Gemini CLI can run whole
// sessions (hooks, tools, compression) offline in tests, through
// GOOGLE_GEMINI_BASE_URL. It answers the main loop from a script, the
// compression's two calls with a <state_snapshot>, the CLI's utility calls
// (the model router, JSON-schema checks) with schema-shaped JSON, and records
// every request so a test can assert exactly what the client sent.
