//go:build !windows

package travel

import (
	"os/exec"
	"syscall"
)

// detach puts the process in a session of its own: no terminal to prompt
// on, and the client's end of the session does not signal it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
