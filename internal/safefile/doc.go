// Package safefile is continuity's one writer for files: every write is atomic
// (a temporary file renamed over the target) and serialised between processes
// by a lock, with the target re-read under the lock so no concurrent change is
// lost. Reads are bounded and refuse anything but regular files.
//
// Symlinks are resolved and their targets written, so a person's symlinked
// ledger stays a symlink. With [Options.Root] set, a target that resolves
// outside the root is refused, for reads as for writes.
//
// The package relies on POSIX rename, link and flock semantics (as renameio
// does) and builds on Unix-like systems only.
package safefile
