package gitfacts

import (
	"context"
	"errors"
	"os/exec"
)

// Tracked reports whether path (relative to the repository root, forward
// slashes) is a file git tracks: in the index, so neither untracked nor
// ignored.
func Tracked(ctx context.Context, r Repo, path string) (bool, error) {
	_, err := runGit(ctx, r, "ls-files", "--error-unmatch", "--", path)
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return false, nil
	}
	return err == nil, err
}
