// Package safefile is continuity's one writer for files: every write is atomic
// (a temporary file renamed over the target) and serialised between processes
// by a lock, with the target re-read under the lock so no concurrent change is
// lost. Reads are bounded and refuse anything but regular files.
//
// Symlinks are resolved and their targets written, so a person's symlinked
// ledger stays a symlink. With [Options.Root] set, a target that resolves
// outside the root is refused, for reads as for writes.
//
// On Unix it relies on POSIX rename, link and flock semantics (renameio
// writes the temporary files). On Windows (platform_windows.go) the
// replace is MoveFileEx's, retried while another program holds the target
// open; the locks are LockFileEx's, which Windows enforces; reads open the
// last element without following a reparse point; and a file's identity
// there is its size and times (no inode).
package safefile
