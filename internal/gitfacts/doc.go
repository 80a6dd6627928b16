// Package gitfacts reads the git facts continuity records in handoffs and uses
// to name the active ledger: the repository's location, branch, commit,
// author and uncommitted files. Location, branch and commit are read from the
// git directory without running git; author and status run git under the
// caller's deadline, so a hook never hangs on a slow or locked repository.
package gitfacts
