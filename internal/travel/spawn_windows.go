//go:build windows

package travel

import (
	"os/exec"
	"syscall"
)

// detach starts the process without a console and in a process group of
// its own, so the client's console closing does not end it.
func detach(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008
	const createNewProcessGroup = 0x00000200
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess | createNewProcessGroup, HideWindow: true}
}
