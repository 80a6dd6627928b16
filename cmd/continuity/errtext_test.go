package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// TestErrorTextHidesTemporaryPaths: a write that failed on the atomic
// writer's temporary file (its creation, its write, its rename) says what
// was being written and why, never the temporary path; other errors are
// left as they are.
func TestErrorTextHidesTemporaryPaths(t *testing.T) {
	tmp := "/home/kim/.local/state/continuity/tmp/.CONTINUITY_auth.md2718281828"
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("write %s: %w", "thoughts/ledgers/CONTINUITY_auth.md", &fs.PathError{Op: "open", Path: tmp, Err: syscall.ENOSPC}),
			"write thoughts/ledgers/CONTINUITY_auth.md: no space left on device"},
		{fmt.Errorf("write %s: %w", "thoughts/ledgers/CONTINUITY_auth.md", fmt.Errorf("commit: %w", &os.LinkError{Op: "rename", Old: tmp, New: "/r/thoughts/ledgers/CONTINUITY_auth.md", Err: syscall.EXDEV})),
			"write thoughts/ledgers/CONTINUITY_auth.md: commit: invalid cross-device link"},
		{fmt.Errorf("read %s: %w", "x.md", &fs.PathError{Op: "open", Path: "/r/x.md", Err: syscall.ENOENT}), "read x.md: open /r/x.md: no such file or directory"},
		{errors.New("plain"), "plain"},
		{fmt.Errorf("reworded (%w) here", &fs.PathError{Op: "open", Path: tmp, Err: syscall.ENOSPC}), "reworded (open " + tmp + ": no space left on device) here"},
	} {
		if got := errorText(c.err); got != c.want {
			t.Errorf("errorText(%q)\n = %q\nwant %q", c.err, got, c.want)
		}
	}
}
