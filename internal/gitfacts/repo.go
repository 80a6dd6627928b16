package gitfacts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRepo reports that no git repository contains the directory.
var ErrNotRepo = errors.New("not a git repository")

// Repo locates one git working tree.
type Repo struct {
	Root      string // the working tree's top directory
	GitDir    string // this worktree's git directory (holds HEAD and the index)
	CommonDir string // the directory shared by all worktrees (holds refs and objects)
}

// Find walks up from dir to the nearest git working tree. It understands a
// .git directory and a .git file ("gitdir: …", as in linked worktrees and
// submodules), whose git directory may name the shared one in a commondir
// file. It runs no subprocess and ignores GIT_DIR. It returns ErrNotRepo when
// no ancestor of dir is a working tree.
func Find(dir string) (Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, fmt.Errorf("find git repository from %s: %w", dir, err)
	}
	for d := abs; ; {
		dotgit := filepath.Join(d, ".git")
		st, err := os.Stat(dotgit)
		if err == nil {
			var gitDir string
			if st.IsDir() {
				gitDir = dotgit
			} else {
				gitDir, err = readGitFile(dotgit)
				if err != nil {
					return Repo{}, err
				}
			}
			if isGitDir(gitDir) {
				return Repo{Root: d, GitDir: gitDir, CommonDir: commonDir(gitDir)}, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Repo{}, fmt.Errorf("%s: %w", abs, ErrNotRepo)
		}
		d = parent
	}
}

// readGitFile reads a .git file's "gitdir: PATH" line; a relative PATH is
// relative to the file's directory.
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return "", fmt.Errorf("read %s: not a gitdir file", path)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target), nil
}

// isGitDir tells a git directory from a stray .git entry: git itself needs HEAD.
func isGitDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil && !st.IsDir()
}

// commonDir returns the shared git directory named by gitDir's commondir
// file, or gitDir itself.
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return gitDir
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// head returns the HEAD file's content: a symbolic ref ("refs/heads/x") or a sha.
func head(r Repo) (ref, sha string) {
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", ""
	}
	s := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(s, "ref:"); ok {
		return strings.TrimSpace(target), ""
	}
	if isSHA(s) {
		return "", s
	}
	return "", ""
}

// reftable reports a repository whose refs are kept in the reftable format,
// which is binary and not read here.
func reftable(r Repo) bool {
	st, err := os.Stat(filepath.Join(r.CommonDir, "reftable"))
	return err == nil && st.IsDir()
}

// Branch returns the checked-out branch's short name ("feature/auth" for
// refs/heads/feature/auth), or "" for a detached HEAD, an unreadable HEAD or
// a repository using the reftable ref format.
func Branch(r Repo) string {
	ref, _ := head(r)
	if ref == "" || reftable(r) {
		return ""
	}
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return b
	}
	return ""
}

// Commit returns the first 12 hex digits of the commit HEAD points at,
// resolved from a loose ref file, then packed-refs, then a detached HEAD. It
// returns "" on an unborn branch (no commit yet), when the ref cannot be
// resolved, or for a reftable repository.
func Commit(r Repo) string {
	sha := FullCommit(r)
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// FullCommit is Commit without the shortening.
func FullCommit(r Repo) string {
	if reftable(r) {
		return ""
	}
	ref, sha := head(r)
	for depth := 0; ref != "" && depth < 5; depth++ {
		ref, sha = resolveRef(r, ref)
	}
	return sha
}

// resolveRef resolves one level of ref: a loose file (which may itself be
// symbolic) in the worktree's or the common git directory, then packed-refs.
// RefValue is the object ref (a full name, "refs/…") points at, read from
// the ref files without running git: "" when the ref does not exist. ok is
// false when the files cannot say (a reftable repository, a symbolic
// ref): ask git then.
func RefValue(r Repo, ref string) (sha string, ok bool) {
	if reftable(r) || !strings.HasPrefix(ref, "refs/") {
		return "", false
	}
	next, sha := resolveRef(r, ref)
	if next != "" {
		return "", false
	}
	return sha, true
}

func resolveRef(r Repo, ref string) (next, sha string) {
	if strings.Contains(ref, "..") {
		return "", ""
	}
	for _, dir := range []string{r.GitDir, r.CommonDir} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref)))
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		if target, ok := strings.CutPrefix(s, "ref:"); ok {
			return strings.TrimSpace(target), ""
		}
		if isSHA(s) {
			return "", s
		}
	}
	return "", packedRef(r.CommonDir, ref)
}

// packedRef looks ref up in dir/packed-refs.
func packedRef(dir, ref string) string {
	f, err := os.Open(filepath.Join(dir, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		sha, name, ok := bytes.Cut(line, []byte{' '})
		if ok && string(bytes.TrimSpace(name)) == ref && isSHA(string(sha)) {
			return string(sha)
		}
	}
	return ""
}

// isSHA accepts a SHA-1 or SHA-256 object name in lowercase hex.
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
