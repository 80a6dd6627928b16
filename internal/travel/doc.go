// Package travel keeps a work stream's latest handoff, its ledger and a
// snapshot of the uncommitted work on git refs of continuity's own, and
// moves them through the repository's own remote.
//
// Layout. Each clone ("machine") writes only its own refs,
// refs/continuity/<machine>/<stream>, one per stream: a chain of commits
// whose tree holds meta.json, handoff.md, ledger.md and carry/ (the
// uncommitted files under carry/files/, what they were taken from in
// carry/carry.json). Two machines never write the same ref, so pushes
// never conflict; a push is a fast-forward of the machine's own refs and
// never carries another's. What a fetch brings lands in
// refs/continuity-fetched/<remote>/<machine>/<stream>: outside
// refs/heads and refs/remotes, it is no branch (git branch -a, a clone's
// default fetch and a host's branch list never show it) and is never
// pushed back.
//
// Everything is written with git plumbing (hash-object, update-index on a
// temporary index of its own, write-tree, commit-tree, update-ref with the
// old value checked): no checkout, and the worktree's index and files are
// never touched. What is read back from a fetched ref is data from another
// person's machine: sizes are capped, paths are checked, nothing runs.
package travel
