package safefile_test

import (
	"errors"
	"os"
)

// setUmask: Windows has no umask.
func setUmask() {}

// deviceOf is not known on Windows (safefile.FileID is zero there).
func deviceOf(os.FileInfo) uint64 { return 0 }

// mkfifo: Windows has no FIFOs in the file system.
func mkfifo(string) error { return errors.ErrUnsupported }
