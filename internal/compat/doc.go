// Package compat reads other tools' ledgers and handoffs and converts them
// to continuity's native model (packages ledger and handoff):
// Continuous-Claude's section-style ledgers (CONTINUITY_CLAUDE-<name>.md, v2
// and v3), Codex-style root CONTINUITY.md files, and Continuous-Claude's v2
// markdown and v3 YAML handoffs. It is the edge where foreign formats come
// in: the use cases read ledgers through ParseLedger and handoffs through
// ParseHandoff, and import converts with Import; the ledger and handoff
// packages know only the native forms and never import this one.
package compat
