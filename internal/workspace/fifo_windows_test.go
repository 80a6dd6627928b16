package workspace

import "errors"

// mkfifo: Windows has no FIFOs in the file system; a test that needs one
// fails with this error there.
func mkfifo(string) error { return errors.ErrUnsupported }
