package travel

import (
	"os"
	"os/exec"
)

// Spawn starts exe with args in dir as a process of its own, detached
// from the caller (its own session, no terminal, standard streams on the
// null device), and does not wait for it: a hook hands its network work to
// it and returns. The process bounds itself (PushTimeout, FetchTimeout).
func Spawn(exe, dir string, args ...string) error {
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
