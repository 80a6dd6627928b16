// Package install owns every installer continuity has: its hooks in a
// coding agent's JSON hooks file (Claude Code, Codex and Gemini CLI share the
// shape), the secret scan in the git pre-commit hook, and the ledger merge
// driver (a .gitattributes line and the repository's git config).
//
// Each has Add, Remove and Status. They are pure functions over a file's
// bytes wherever a file is edited: every byte outside what they add or
// remove survives, adding twice changes nothing, and removing after adding
// gives back the original. The callers read and write the files (atomically,
// through internal/safefile); git config goes through a Git runner the
// caller passes in, so this package starts no process.
package install
