//go:build unix

package localstate

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/continuity-md/continuity/internal/safefile"
)

// listing is every path under dir, with its mode.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			b.WriteString(p + " " + fi.Mode().String() + "\n")
		}
		return nil
	})
	return b.String()
}

// TestLockDirPrivate: when local state cannot be written, locks and
// temporary files go to a directory private to the user (0700, owned, not
// a symlink) under the runtime or cache directory, never to the shared,
// predictable one another user can plant a symlink at; a symlink planted
// where the private one goes is refused, not followed; a write and the
// clean-up at exit leave the victim's directory as it was, and the private
// one gone.
func TestLockDirPrivate(t *testing.T) {
	for _, plant := range []string{"tmp", "runtime", "cache"} {
		t.Run(plant, func(t *testing.T) {
			root := t.TempDir()
			tmp, runtime, cache, victim := filepath.Join(root, "tmp"), filepath.Join(root, "run"), filepath.Join(root, "cache"), filepath.Join(root, "victim")
			for _, d := range []string{tmp, runtime, cache, filepath.Join(victim, "tmp", "0123456789abcdef")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", tmp)
			t.Setenv("XDG_RUNTIME_DIR", runtime)
			t.Setenv("XDG_CACHE_HOME", cache)
			work := filepath.Join(root, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			// Local state that cannot be written: a file where its directory should be.
			state := filepath.Join(root, "state")
			if err := os.WriteFile(state, nil, 0o444); err != nil {
				t.Fatal(err)
			}
			s := &State{Dir: state}
			sum := sha256.Sum256([]byte(filepath.Join(state, "locks")))
			name := "locks-" + hex.EncodeToString(sum[:8])
			switch plant {
			case "tmp": // the shared, predictable place of old
				must(t, os.Symlink(victim, filepath.Join(tmp, "continuity-"+name)))
			case "runtime":
				must(t, os.Symlink(victim, filepath.Join(runtime, "continuity")))
			case "cache":
				must(t, os.MkdirAll(filepath.Join(runtime, "continuity"), 0o700))
				must(t, os.Symlink(victim, filepath.Join(runtime, "continuity", name)))
				must(t, os.MkdirAll(filepath.Join(cache, "continuity"), 0o700))
				must(t, os.Symlink(victim, filepath.Join(cache, "continuity", name)))
			}
			before := listing(t, victim)
			dir := s.LockDir()
			fi, err := os.Lstat(dir)
			if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || int(fi.Sys().(*syscall.Stat_t).Uid) != os.Geteuid() {
				t.Fatalf("lock dir %s: %v, %v", dir, fi, err)
			}
			if real, _ := filepath.EvalSymlinks(dir); strings.HasPrefix(real, victim) {
				t.Fatalf("lock dir %s is the victim's", dir)
			}
			target := filepath.Join(work, "ledger.md")
			for i := range 3 {
				must(t, safefile.Update(target, safefile.Options{LockDir: s.LockDir(), Root: work}, func([]byte) ([]byte, error) { return []byte{byte('a' + i)}, nil }))
			}
			ReleaseLocks()
			if after := listing(t, victim); after != before {
				t.Errorf("victim's directory changed:\n%s\nwas:\n%s", after, before)
			}
			if _, err := os.Lstat(dir); err == nil {
				t.Errorf("lock dir %s left behind: %s", dir, listing(t, dir))
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
