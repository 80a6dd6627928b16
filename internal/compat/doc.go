// Package compat reads the ledger forms of other tools and converts them to
// continuity's native model (package ledger): Continuous-Claude's
// section-style ledgers (CONTINUITY_CLAUDE-<name>.md, v2 and v3) and
// Codex-style root CONTINUITY.md files. It is the edge where foreign formats
// come in: import, list, resume and the injected context read ledgers
// through ParseLedger; the ledger package itself knows only the native
// front matter form and never imports this one.
package compat
