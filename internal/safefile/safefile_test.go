package safefile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"

	"github.com/continuity-md/continuity/internal/safefile"
)

// setup returns a directory for user files and options whose LockDir lies
// elsewhere, as in the program (the lock dir is under .git).
func setup(t *testing.T) (dir string, opts safefile.Options) {
	t.Helper()
	base := testkit.TempDir(t)
	dir = filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, safefile.Options{LockDir: filepath.Join(base, "state", "locks")}
}

func write(t *testing.T, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names lists dir's entries, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// tempFiles lists every file under the LockDir's tmp directory.
func tempFiles(t *testing.T, lockDir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(lockDir, "tmp"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func appendLine(line string) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		return append(old, line+"\n"...), nil
	}
}

func TestUpdateNewFile(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "ledger.md")
	var got []byte
	called := false
	err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		called, got = true, old
		return []byte("hello\n"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !called || got != nil {
		t.Fatalf("fn called=%v with %q, want called with nil", called, got)
	}
	if s := read(t, path); s != "hello\n" {
		t.Fatalf("content %q", s)
	}
	fi, _ := os.Stat(path)
	if unixModes && fi.Mode().Perm() != 0o644 { // TestMain sets umask 022
		t.Fatalf("new file mode %v, want 0644", fi.Mode().Perm())
	}
	// Nothing but the file beside it: the lock lives in LockDir.
	if n := names(t, dir); len(n) != 1 || n[0] != "ledger.md" {
		t.Fatalf("directory holds %v", n)
	}
	// A synced target's lock file stays once the write is done (an older
	// binary locking it without checking the path could otherwise hold a
	// removed file while a new writer holds its successor), and it is the
	// only one; no temporary directory is left.
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	if locks, _ := filepath.Glob(filepath.Join(opts.LockDir, "*.lock")); len(locks) != 1 || locks[0] != safefile.LockPath(opts.LockDir, resolved) {
		t.Fatalf("lock files %v, want the target's alone", locks)
	}
	if tmps, _ := filepath.Glob(filepath.Join(opts.LockDir, "tmp", "*")); len(tmps) != 0 {
		t.Fatalf("temporary directories %v, want none", tmps)
	}
	if fi, err := os.Stat(opts.LockDir); err != nil || unixModes && fi.Mode().Perm() != 0o700 {
		t.Fatalf("lock dir: %v %v", fi, err)
	}
}

func TestUpdateEmptyFileIsNotNil(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "f")
	write(t, path, "", 0o644)
	err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, errors.New("existing empty file given as nil")
		}
		return []byte("x"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUpdateKeepsPermissions(t *testing.T) {
	needUnix(t, "permission bits")
	for _, perm := range []fs.FileMode{0o600, 0o640, 0o755, 0o444} {
		t.Run(perm.String(), func(t *testing.T) {
			dir, opts := setup(t)
			path := filepath.Join(dir, "f")
			write(t, path, "a\n", perm)
			if err := safefile.Update(path, opts, appendLine("b")); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != perm {
				t.Fatalf("mode %v after rewrite, want %v", fi.Mode().Perm(), perm)
			}
			if s := read(t, path); s != "a\nb\n" {
				t.Fatalf("content %q", s)
			}
		})
	}
}

func TestUpdateSymlinkWritesTarget(t *testing.T) {
	dir, opts := setup(t)
	real := filepath.Join(dir, "notes", "real.md")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, real, "one\n", 0o600)
	link := filepath.Join(dir, "link.md")
	symlink(t, "notes/real.md", link)       // relative
	link2 := filepath.Join(dir, "link2.md") // a link to the link
	symlink(t, link, link2)
	if err := safefile.Update(link2, opts, appendLine("two")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, link2} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink: %v %v", l, fi, err)
		}
	}
	if s := read(t, real); s != "one\ntwo\n" {
		t.Fatalf("target content %q", s)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v", fi.Mode().Perm())
	}
	if got, err := safefile.Read(link2, opts); err != nil || string(got) != "one\ntwo\n" {
		t.Fatalf("Read through link: %q %v", got, err)
	}
}

func TestUpdateDanglingSymlinkCreatesTarget(t *testing.T) {
	dir, opts := setup(t)
	link := filepath.Join(dir, "link.md")
	symlink(t, "real.md", link)
	if err := safefile.Update(link, opts, appendLine("x")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if s := read(t, filepath.Join(dir, "real.md")); s != "x\n" {
		t.Fatalf("target content %q", s)
	}
}

func TestSymlinkLoop(t *testing.T) {
	dir, opts := setup(t)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	symlink(t, "b", a)
	symlink(t, "a", b)
	if err := safefile.Update(a, opts, appendLine("x")); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("Update on a loop: %v, want ELOOP", err)
	}
}

func TestOutsideRoot(t *testing.T) {
	base := testkit.TempDir(t)
	rootReal := filepath.Join(base, "repo")
	outside := filepath.Join(base, "secret")
	for _, d := range []string{rootReal, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The root is given through a symlink, as a checkout reached by a link.
	rootLink := filepath.Join(base, "repo-link")
	symlink(t, rootReal, rootLink)
	secret := filepath.Join(outside, "id")
	write(t, secret, "private\n", 0o600)
	evil := filepath.Join(rootReal, "ledger.md")
	symlink(t, secret, evil)
	opts := safefile.Options{LockDir: filepath.Join(base, "locks"), Root: rootLink}

	called := false
	err := safefile.Update(filepath.Join(rootLink, "ledger.md"), opts, func(old []byte) ([]byte, error) {
		called = true
		return []byte("owned\n"), nil
	})
	if !errors.Is(err, safefile.ErrOutsideRoot) || called {
		t.Fatalf("Update through a link out of the root: err %v, fn called %v", err, called)
	}
	if _, err := safefile.Read(evil, opts); !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Fatalf("Read: %v", err)
	}
	if err := safefile.Create(filepath.Join(outside, "new"), []byte("x"), opts); !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Fatalf("Create outside: %v", err)
	}
	if err := safefile.Update(filepath.Join(rootLink, "..", "secret", "id"), opts, appendLine("x")); !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Fatalf("Update via ..: %v", err)
	}
	if s := read(t, secret); s != "private\n" {
		t.Fatalf("outside file changed: %q", s)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Create wrote outside: %v", err)
	}
	// A file inside the root, named through the root's link or its real
	// path, and a sibling whose name starts like the root, are told apart.
	for _, p := range []string{filepath.Join(rootLink, "ok.md"), filepath.Join(rootReal, "ok.md")} {
		if err := safefile.Update(p, opts, appendLine("in")); err != nil {
			t.Fatalf("Update inside root via %s: %v", p, err)
		}
	}
	if s := read(t, filepath.Join(rootReal, "ok.md")); s != "in\nin\n" {
		t.Fatalf("inside content %q", s)
	}
	sibling := filepath.Join(base, "repo2")
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Update(filepath.Join(sibling, "f"), opts, appendLine("x")); !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Fatalf("sibling with the root's prefix: %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	dir, opts := setup(t)
	opts.MaxSize = 10
	path := filepath.Join(dir, "f")
	write(t, path, "0123456789", 0o644) // exactly the limit: fine
	if err := safefile.Update(path, opts, appendLine("")); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	called := false
	err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		called = true
		return nil, nil
	})
	if !errors.Is(err, safefile.ErrTooLarge) || called {
		t.Fatalf("over the limit: err %v, fn called %v", err, called)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name the path", err)
	}
	if s := read(t, path); s != "0123456789\n" {
		t.Fatalf("file changed: %q", s)
	}
	if _, err := safefile.Read(path, opts); !errors.Is(err, safefile.ErrTooLarge) {
		t.Fatalf("Read: %v", err)
	}
}

func TestDefaultMaxSize(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "big")
	if err := os.WriteFile(path, make([]byte, safefile.DefaultMaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := safefile.Read(path, opts); !errors.Is(err, safefile.ErrTooLarge) {
		t.Fatalf("Read of 16 MiB + 1: %v", err)
	}
}

func TestNotRegular(t *testing.T) {
	dir, opts := setup(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	for _, p := range []string{sub, fifo, "/dev/null"} {
		called := false
		err := safefile.Update(p, opts, func([]byte) ([]byte, error) {
			called = true
			return []byte("x"), nil
		})
		if !errors.Is(err, safefile.ErrNotRegular) || called {
			t.Errorf("Update %s: err %v, fn called %v", p, err, called)
		}
		if _, err := safefile.Read(p, opts); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("Read %s: %v", p, err)
		}
	}
	if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
		t.Fatalf("directory replaced: %v %v", fi, err)
	}
}

func TestNoChange(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "f")
	write(t, path, "keep\n", 0o644)
	before, _ := os.Stat(path)
	if err := safefile.Update(path, opts, func([]byte) ([]byte, error) { return nil, safefile.ErrNoChange }); err != nil {
		t.Fatalf("ErrNoChange: %v", err)
	}
	// Returning the same bytes also leaves the file (same inode) alone.
	if err := safefile.Update(path, opts, func(old []byte) ([]byte, error) { return old, nil }); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) || read(t, path) != "keep\n" {
		t.Fatal("file rewritten despite no change")
	}
	// A missing file stays missing.
	missing := filepath.Join(dir, "missing")
	if err := safefile.Update(missing, opts, func([]byte) ([]byte, error) { return nil, safefile.ErrNoChange }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file created: %v", err)
	}
	// A rewrite does replace the file: the checks above can fail.
	if err := safefile.Update(path, opts, appendLine("more")); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(path); os.SameFile(before, again) {
		t.Fatal("rewrite kept the inode; the no-change check proves nothing")
	}
}

func TestFnErrorWritesNothing(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "f")
	write(t, path, "keep\n", 0o644)
	boom := errors.New("boom")
	if err := safefile.Update(path, opts, func([]byte) ([]byte, error) { return []byte("x"), boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if s := read(t, path); s != "keep\n" {
		t.Fatalf("file changed: %q", s)
	}
}

func TestLockDirRequired(t *testing.T) {
	dir, _ := setup(t)
	if err := safefile.Update(filepath.Join(dir, "f"), safefile.Options{}, appendLine("x")); err == nil {
		t.Fatal("Update without LockDir succeeded")
	}
}

func TestReadMissing(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "nope")
	_, err := safefile.Read(path, opts)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "read "+path) {
		t.Fatalf("Read missing: %v", err)
	}
}

func TestLeftoversRemoved(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "ledger.md")
	write(t, path, "a\n", 0o644)
	if err := safefile.Update(path, opts, appendLine("b")); err != nil {
		t.Fatal(err)
	}
	// What a writer killed mid-write leaves: renameio's temp name beside the
	// file (fallback) or in the target's tmp dir (which a writer that ends
	// removes).
	tmpDirs, _ := filepath.Glob(filepath.Join(opts.LockDir, "tmp", "*"))
	if len(tmpDirs) != 0 {
		t.Fatalf("tmp dirs %v left by a write that ended", tmpDirs)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	lock := safefile.LockPath(opts.LockDir, resolved)
	killedDir := filepath.Join(opts.LockDir, "tmp", strings.TrimSuffix(filepath.Base(lock), ".lock"))
	if err := os.MkdirAll(killedDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(killedDir, ".ledger.md4242"), "half", 0o644)
	write(t, filepath.Join(dir, ".ledger.md1234567"), "half", 0o644)
	// Not ours: kept.
	keep := []string{".ledger.md.swp", ".ledger.mdx1", ".other.md123", "ledger.md123"}
	for _, k := range keep {
		write(t, filepath.Join(dir, k), "user", 0o644)
	}
	if err := safefile.Update(path, opts, appendLine("c")); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"ledger.md"}, keep...)
	sort.Strings(want)
	if got := names(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("directory holds %v, want %v", got, want)
	}
	if left := tempFiles(t, opts.LockDir); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestCreate(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "handoff.md")
	if err := safefile.Create(path, []byte("first\n"), opts); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); unixModes && fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	err := safefile.Create(path, []byte("second\n"), opts)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Create over existing: %v", err)
	}
	if s := read(t, path); s != "first\n" {
		t.Fatalf("existing file clobbered: %q", s)
	}
	// A dangling symlink is a name taken too.
	link := filepath.Join(dir, "link.md")
	symlink(t, "nowhere.md", link)
	if err := safefile.Create(link, []byte("x"), opts); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over a dangling link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Create wrote through a dangling link")
	}
	if got := names(t, dir); fmt.Sprint(got) != "[handoff.md link.md]" {
		t.Fatalf("directory holds %v", got)
	}
	if left := tempFiles(t, opts.LockDir); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestCreateRace(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "handoff.md")
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = safefile.Create(path, bytes.Repeat([]byte{byte('a' + i)}, 4096), opts)
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("both %d and %d created the file", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, fs.ErrExist):
			t.Fatalf("creator %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("nobody created the file")
	}
	if s := read(t, path); s != strings.Repeat(string(rune('a'+winner)), 4096) {
		t.Fatalf("content is not the winner's whole data")
	}
}

// TestCrossDevice puts LockDir on another file system: temp files must then
// go beside the target (a rename cannot cross devices) and be gone after.
func TestCrossDevice(t *testing.T) {
	dir, _ := setup(t)
	other, err := os.MkdirTemp("/dev/shm", "safefile-test")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	if fo, err := os.Stat(other); err != nil {
		t.Skip(err)
	} else if fd, err := os.Stat(dir); err != nil || deviceOf(fo) == deviceOf(fd) {
		t.Skip("/dev/shm is on the test directory's file system")
	}
	opts := safefile.Options{LockDir: filepath.Join(other, "locks")}
	path := filepath.Join(dir, "f")
	for i := range 3 {
		if err := safefile.Update(path, opts, appendLine(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := safefile.Create(filepath.Join(dir, "g"), []byte("g"), opts); err != nil {
		t.Fatal(err)
	}
	if s := read(t, path); s != "0\n1\n2\n" {
		t.Fatalf("content %q", s)
	}
	if got := names(t, dir); fmt.Sprint(got) != "[f g]" {
		t.Fatalf("directory holds %v", got)
	}
}

// canWriteAnyway reports whether a file can be created in dir although its
// mode forbids it (the tests may run as root).
func canWriteAnyway(dir string) bool {
	probe := filepath.Join(dir, ".probe")
	f, err := os.Create(probe)
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(probe)
	return true
}

func TestReadOnlyDirectory(t *testing.T) {
	dir, opts := setup(t)
	path := filepath.Join(dir, "f")
	write(t, path, "keep\n", 0o644)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if canWriteAnyway(dir) {
		t.Skip("can write to a read-only directory (root); see TestReadOnlyFileSystem")
	}
	err := safefile.Update(path, opts, appendLine("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "write "+path) {
		t.Fatalf("Update in a read-only directory: %v", err)
	}
	if err := safefile.Create(filepath.Join(dir, "g"), []byte("x"), opts); err == nil {
		t.Fatal("Create in a read-only directory succeeded")
	}
	if s := read(t, path); s != "keep\n" {
		t.Fatalf("file changed: %q", s)
	}
	if got := names(t, dir); fmt.Sprint(got) != "[f]" {
		t.Fatalf("directory holds %v", got)
	}
	if left := tempFiles(t, opts.LockDir); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}
