package safefile

import "golang.org/x/sys/unix"

// exchange atomically swaps the files at a and b (renameat2 with
// RENAME_EXCHANGE). File systems without it give an error wrapping
// EINVAL or ENOSYS, and the caller falls back to a checked rename.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
