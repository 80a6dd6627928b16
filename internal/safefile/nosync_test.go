package safefile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"

	"github.com/continuity-md/continuity/internal/safefile"
)

// NoSync writes like Update: new files 0644 less the umask, old files keep
// their bits, concurrent read-modify-writes lose nothing, and no temporary
// file is left behind.
func TestUpdateNoSync(t *testing.T) {
	dir := testkit.TempDir(t)
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "state.json")
	add := func(old []byte) ([]byte, error) { return append(old, 'x'), nil }
	if err := safefile.Update(path, opts, add); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || unixModes && fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v, %v; want 0644", fi.Mode(), err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if err := safefile.Update(path, opts, add); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != strings.Repeat("x", 17) {
		t.Fatalf("after 17 updates: %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); unixModes && fi.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v, want 0600 kept", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "state.json" && e.Name() != "locks" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// An unsynced write makes no temp dir under the lock dir (its temporary
// file goes beside the target), and the writes of one directory share one
// lock file, made once and kept: no inode made and freed per write.
func TestUpdateNoSyncMakesNoTempDir(t *testing.T) {
	dir := testkit.TempDir(t)
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	var lock os.FileInfo
	for _, name := range []string{"a.json", "b.json", "c.json", "a.json"} {
		if err := safefile.Update(filepath.Join(dir, name), opts, func(old []byte) ([]byte, error) { return append(old, name...), nil }); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); !strings.HasSuffix(string(got), name) {
			t.Errorf("%s holds %q", name, got)
		}
		locks, _ := filepath.Glob(filepath.Join(opts.LockDir, "*.lock"))
		if len(locks) != 1 {
			t.Fatalf("lock files after writing %s: %v, want the directory's one", name, locks)
		}
		fi, err := os.Stat(locks[0])
		if err != nil {
			t.Fatal(err)
		}
		if lock != nil && !os.SameFile(lock, fi) {
			t.Errorf("the lock file was made again for %s", name)
		}
		lock = fi
	}
	if tmp, _ := filepath.Glob(filepath.Join(opts.LockDir, "tmp", "*")); len(tmp) != 0 {
		t.Errorf("temp dirs %v made for unsynced writes", tmp)
	}
}

// What an unsynced writer killed mid-write leaves (its one temporary name)
// is removed by the next unsynced write, and the directory is not listed
// for others: a file of another target's pattern stays.
func TestUpdateNoSyncLeftover(t *testing.T) {
	dir := testkit.TempDir(t)
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "s.json")
	left := filepath.Join(dir, ".s.json0")
	other := filepath.Join(dir, ".t.json123")
	for _, f := range []string{left, other} {
		if err := os.WriteFile(f, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := safefile.Update(path, opts, func([]byte) ([]byte, error) { return []byte("x"), nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("leftover %s kept (%v)", left, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another target's file removed: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "x" {
		t.Errorf("content %q", got)
	}
}

// Readers that take no lock (a hook reading a session's state) see whole
// versions of an unsynced target while writers replace it: never one cut
// short, empty or mixed. (Overwriting in place the file a reader may still
// hold open, say the version two writes back, would show it one.)
func TestUpdateNoSyncReadersSeeWholeVersions(t *testing.T) {
	dir := testkit.TempDir(t)
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "s.json")
	version := func(k int) []byte {
		body := strings.Repeat(string(rune('a'+k%26)), 1000+(k*7919)%30000)
		return []byte(fmt.Sprintf("<%d|%s|%d>", k, body, k))
	}
	whole := func(b []byte) bool {
		s := string(b)
		if !strings.HasPrefix(s, "<") || !strings.HasSuffix(s, ">") {
			return false
		}
		parts := strings.Split(s[1:len(s)-1], "|")
		var k int
		if len(parts) != 3 || parts[0] != parts[2] {
			return false
		}
		if _, err := fmt.Sscan(parts[0], &k); err != nil {
			return false
		}
		return string(version(k)) == s
	}
	if err := safefile.Update(path, opts, func([]byte) ([]byte, error) { return version(0), nil }); err != nil {
		t.Fatal(err)
	}
	var next atomic.Int64
	var writers sync.WaitGroup
	for range 4 {
		writers.Go(func() {
			for range 150 {
				k := int(next.Add(1))
				if err := safefile.Update(path, opts, func([]byte) ([]byte, error) { return version(k), nil }); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { writers.Wait(); close(done) }()
	reads, torn := 0, 0
	for {
		select {
		case <-done:
			if reads < 100 {
				t.Errorf("only %d reads while the writers ran", reads)
			}
			if torn > 0 {
				t.Errorf("%d of %d unlocked reads saw a version cut short, empty or mixed", torn, reads)
			}
			return
		default:
		}
		// As a hook reads local state: through safefile (on Windows its
		// open lets a writer rename over the file meanwhile).
		b, err := safefile.Read(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		reads++
		if !whole(b) {
			torn++
		}
	}
}
