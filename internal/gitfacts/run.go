package gitfacts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds a git run whose context has no deadline, so no
// caller can make a hook wait on git forever.
const DefaultTimeout = 2 * time.Second

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

// Git is how continuity runs git: every git call in the project goes through
// Run, so none can hang a hook, prompt for input, or be pointed at another
// repository by the environment.
type Git struct {
	// Repo is where git runs. With GitDir set, git is told the repository
	// and work tree explicitly; with only Root set (git init, git
	// merge-file), git runs in Root and finds what it needs itself.
	Repo Repo
	// Index, when set, is the index file git reads and writes instead of
	// the repository's own (GIT_INDEX_FILE): the one a pre-commit hook was
	// given, which holds what is about to be committed. A relative path is
	// from Repo.Root.
	Index string
	// Timeout bounds a run whose context has no deadline; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Env adds variables to git's environment (NAME=value), after those
	// Run sets: a remote's transport settings, an author for a commit.
	Env []string
}

// Run runs git with args and returns its standard output. Optional locks
// are off and the repository comes from g, not the environment. It never
// outlives ctx (or the timeout when ctx has no deadline) by more than a
// moment, and returns whatever stdout held when it stopped. A failure is
// "git ARGS in ROOT: …" with git's first line of stderr; an exit status is
// kept in the chain (errors.As with *exec.ExitError).
func (g Git) Run(ctx context.Context, args ...string) ([]byte, error) {
	return g.RunInput(ctx, nil, args...)
}

// RunInput is Run with in as git's standard input (nil: none).
func (g Git) RunInput(ctx context.Context, in []byte, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		timeout := g.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	args = append([]string{"--no-optional-locks"}, args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Repo.Root
	cmd.Env = append(gitEnv(os.Environ(), g.Repo, g.Index), g.Env...)
	cmd.WaitDelay = waitDelay
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
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
		return stdout.Bytes(), fmt.Errorf("git %s in %s: %w", strings.Join(args[1:], " "), g.Repo.Root, err)
	}
	return stdout.Bytes(), nil
}

// ExitCode returns the exit status of the git run that failed with err, or
// -1 when git did not run to an exit (not found, killed, timed out).
func ExitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

func runGit(ctx context.Context, r Repo, args ...string) ([]byte, error) {
	return Git{Repo: r}.Run(ctx, args...)
}

// gitEnv drops variables that would point git at another repository or
// prompt for input, and turns optional locks off. The repository is named
// only when r knows its git directory; the index only when one is given.
func gitEnv(env []string, r Repo, index string) []string {
	out := make([]string, 0, len(env)+5)
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
	if r.GitDir != "" {
		out = append(out, "GIT_DIR="+r.GitDir, "GIT_WORK_TREE="+r.Root)
	}
	if index != "" {
		out = append(out, "GIT_INDEX_FILE="+index)
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// LogEntry is one commit as Log lists it.
type LogEntry struct {
	Hash    string // abbreviated
	Subject string
	Time    time.Time // committed
}

// maxLog bounds the commits Log lists.
const maxLog = 50

// Log lists the commits on the current branch made since the given time
// (by committer date), oldest first, at most maxLog of them. On a timeout or
// failure it returns what it read, with an error.
func Log(ctx context.Context, r Repo, since time.Time) ([]LogEntry, error) {
	out, err := runGit(ctx, r, "log", "--no-merges", "--format=%h%x00%ct%x00%s", "-n", fmt.Sprint(maxLog), "--since="+since.UTC().Format(time.RFC3339), "HEAD", "--")
	var entries []LogEntry
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		hash, rest, ok := strings.Cut(line, "\x00")
		secs, subject, ok2 := strings.Cut(rest, "\x00")
		if ok && ok2 && hash != "" {
			n, _ := strconv.ParseInt(secs, 10, 64)
			entries = append(entries, LogEntry{Hash: hash, Subject: subject, Time: time.Unix(n, 0)})
		}
	}
	for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
		entries[i], entries[j] = entries[j], entries[i]
	}
	return entries, err
}
