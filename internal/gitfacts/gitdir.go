package gitfacts

import (
	"os"
	"path/filepath"
)

// GitDirAt reports the git directory dir is in, when dir is one or lies
// inside one without a working tree above it: a bare repository, or a
// git directory entered by hand. A directory is a git directory when it
// holds a HEAD file and objects and refs directories, as git itself
// decides. It runs no subprocess.
func GitDirAt(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if isBareLike(d) {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

func isBareLike(d string) bool {
	head, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
