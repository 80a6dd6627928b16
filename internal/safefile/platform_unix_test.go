//go:build unix

package safefile_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/continuity-md/continuity/internal/safefile"
)

// unixModes: files keep the permission bits they are given.
const unixModes = true

// setUmask fixes the umask the permission tests expect.
func setUmask() { syscall.Umask(0o022) }

// deviceOf is the device number of the file fi describes.
func deviceOf(fi os.FileInfo) uint64 {
	dev, _ := safefile.FileID(fi)
	return dev
}

// needUnix skips a test of what only Unix has (see the Windows version).
func needUnix(*testing.T, string) {}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	mustDo(t, syscall.Mkfifo(path, 0o644))
}

// killedExitCode is what a process killed by Process.Kill exits with
// (-1: killed by a signal).
const killedExitCode = -1

// renameOver renames tmp over path, as an editor saves.
func renameOver(tmp, path string) error { return os.Rename(tmp, path) }
