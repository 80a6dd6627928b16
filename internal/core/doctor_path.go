package core

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// shellTimeout bounds the login shell doctor starts: a slow profile must
// not hang doctor.
const shellTimeout = 5 * time.Second

// pathCheck checks that the name the agent is told to run, `continuity`,
// resolves in a login shell of the user's $SHELL: the agents run the
// commands of the injected context in one (Codex runs bash -lc), where a
// profile may set a PATH that the terminal's does not. Without it the
// agent's `continuity done …` fails (exit 127) and the ledger goes stale
// while the hooks, which run the binary by its full path, keep working.
func pathCheck(o DoctorOptions) Check {
	c := Check{Name: "on PATH"}
	shell := o.Getenv("SHELL")
	if runtime.GOOS == "windows" || shell == "" {
		c.OK, c.Info = true, "not checked: no $SHELL"
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), shellTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-l", "-c", "command -v continuity")
	cmd.Stdin, cmd.Dir = nil, o.Project.Root
	out, err := cmd.Output()
	found := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(found, '\n'); i >= 0 {
		found = found[i+1:] // a profile's own output comes first
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		c.OK, c.Warn = true, true
		c.Info = "not checked: a login shell of " + shell + " took over " + shellTimeout.String() + " to start"
	case err == nil && found != "":
		c.OK, c.Info = true, "`continuity` runs in a login shell ("+shell+"): "+found
	default:
		c.Info = "`continuity` is not found in a login shell (" + shell + " -l): the agent runs the injected context's `continuity …` commands in one, and they fail (exit 127) while the hooks work"
		c.Fix = pathFix()
	}
	return c
}

// pathFix says how to put this binary on a login shell's PATH.
func pathFix() string {
	self, err := os.Executable()
	if err != nil {
		return "put the continuity binary in a directory on your login shell's PATH (~/.profile)"
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	return "link it into a directory on your login shell's PATH, e.g. `ln -s " + self + " /usr/local/bin/continuity`, or add `export PATH=\"" + filepath.Dir(self) + ":$PATH\"` to ~/.profile"
}
