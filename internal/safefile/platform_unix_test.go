//go:build unix

package safefile_test

import (
	"os"
	"syscall"

	"github.com/continuity-md/continuity/internal/safefile"
)

// setUmask fixes the umask the permission tests expect.
func setUmask() { syscall.Umask(0o022) }

// deviceOf is the device number of the file fi describes.
func deviceOf(fi os.FileInfo) uint64 {
	dev, _ := safefile.FileID(fi)
	return dev
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
