package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"
)

// unixModes: Windows keeps no Unix permission bits (Go reports 0666, or
// 0444 for a read-only file).
const unixModes = false

// setUmask: Windows has no umask.
func setUmask() {}

// deviceOf is not known on Windows (safefile.FileID is zero there).
func deviceOf(os.FileInfo) uint64 { return 0 }

// needUnix skips a test of what Windows has not, or what CI's Wine cannot
// show: FIFOs, /proc, and symlinks (making one on Windows needs a
// privilege, and under Wine a symlink is a Unix one that Lstat reads as
// its target, so no test of them there would mean anything).
func needUnix(t *testing.T, what string) {
	t.Helper()
	t.Skipf("%s: not on Windows", what)
}

func mkfifo(t *testing.T, _ string) {
	t.Helper()
	needUnix(t, "FIFOs")
}

// killedExitCode is what a process killed by Process.Kill exits with
// (TerminateProcess's code, 1).
const killedExitCode = 1

// renameOver renames tmp over path as a Windows editor saves: while
// another program replaces or opens the file, Windows refuses the rename
// (access denied), and editors there try again.
func renameOver(tmp, path string) error {
	deadline := time.Now().Add(time.Second)
	for {
		err := os.Rename(tmp, path)
		if err == nil || !errors.Is(err, fs.ErrPermission) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}
