package safefile

import "golang.org/x/sys/unix"

// exchange atomically swaps the files at a and b (renamex_np with
// RENAME_SWAP). File systems without it give an error, and the caller
// falls back to a checked rename.
func exchange(a, b string) error {
	return unix.RenamexNp(a, b, unix.RENAME_SWAP)
}
