package gitfacts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// defaultTimeout bounds a git run whose context has no deadline, so no
// caller can make a hook wait on git forever.
const defaultTimeout = 2 * time.Second

// waitDelay bounds how long we wait for git's output pipes after it is
// killed (a child process such as an fsmonitor may hold them open).
const waitDelay = 100 * time.Millisecond

// Author returns the configured user.name for the repository, or "" when it
// is unset or git fails or runs out of time.
func Author(ctx context.Context, r Repo) string {
	out, err := runGit(ctx, r, "config", "user.name")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Dirty returns the number of uncommitted entries: changed, staged, deleted
// and untracked paths, as `git status --porcelain --untracked-files=normal`
// lists them (an untracked directory counts once). On a timeout or failure it
// returns what git reported before stopping, with an error.
func Dirty(ctx context.Context, r Repo) (int, error) {
	paths, err := Status(ctx, r)
	return len(paths), err
}

// Status returns the paths of the uncommitted entries, relative to the
// repository root with forward slashes, in git's order (for a rename, the new
// path). Untracked files are included; an untracked directory is one entry
// ending in "/". On a timeout or failure it returns the entries git printed
// before stopping, with an error.
func Status(ctx context.Context, r Repo) ([]string, error) {
	out, err := runGit(ctx, r, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=dirty")
	return parsePorcelainZ(out), err
}

// parsePorcelainZ reads `git status --porcelain=v1 -z` output. Each entry is
// "XY path\0"; renames and copies add the original path as one more field.
// A truncated last entry is dropped.
func parsePorcelainZ(out []byte) []string {
	var paths []string
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if i == len(fields)-1 || len(f) < 4 || f[2] != ' ' {
			// The last field follows the final NUL: empty, or cut short.
			continue
		}
		paths = append(paths, string(f[3:]))
		if f[0] == 'R' || f[0] == 'C' || f[1] == 'R' || f[1] == 'C' {
			i++ // skip the original path
		}
	}
	return paths
}

// runGit runs git in the repository's root with optional locks off and
// the repository location taken from r, not from the environment. It never
// outlives ctx (or defaultTimeout when ctx has no deadline) by more than
// waitDelay, and returns whatever stdout held when it stopped.
func runGit(ctx context.Context, r Repo, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	args = append([]string{"--no-optional-locks"}, args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Root
	cmd.Env = gitEnv(os.Environ(), r)
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		} else if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, firstLine(msg))
		} else if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 && len(args) > 1 && args[1] == "config" {
			// git config exits 1 for an unset key: not a failure worth a message.
			err = fmt.Errorf("%w: not set", err)
		}
		return stdout.Bytes(), fmt.Errorf("git %s in %s: %w", strings.Join(args[1:], " "), r.Root, err)
	}
	return stdout.Bytes(), nil
}

// gitEnv drops variables that would point git at another repository or
// prompt for input, and turns optional locks off.
func gitEnv(env []string, r Repo) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
			"GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
			"GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT":
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"GIT_DIR="+r.GitDir,
		"GIT_WORK_TREE="+r.Root,
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_TERMINAL_PROMPT=0",
	)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
