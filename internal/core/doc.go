// Package core holds every use case of continuity, whatever the agent: what
// a hook does for each neutral event (the context a session starts with, a
// handoff before context is lost, a compaction summary added, a turn
// checkpointed, a dead session recovered, a subagent given its context, the
// session recorded among the repository's sessions across worktrees), and
// what the commands do (edit, list, search, lint, thin, prune, import, scan,
// status, init, uninstall, doctor, merge-ledger, demo). It speaks agent.Event and agent.Answer and asks an
// agent.Host only for what differs between agents; it never knows an agent's
// names, payloads, paths or variables. The commands in cmd/continuity turn
// flags into a call here and print what it returns.
package core
