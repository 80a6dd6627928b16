package safefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"

	"github.com/continuity-md/continuity/internal/safefile"
)

func TestOpenRegularRefusesWhatCouldBlock(t *testing.T) {
	dir, other := testkit.TempDir(t), testkit.TempDir(t)
	good := filepath.Join(dir, "t.jsonl")
	mustDo(t, os.WriteFile(good, []byte("{}\n"), 0o644))
	elsewhere := filepath.Join(other, "t.jsonl")
	mustDo(t, os.WriteFile(elsewhere, []byte("{}\n"), 0o644))
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		symlink(t, to, p)
		return p
	}
	for _, c := range []struct {
		path  string
		roots []string
		want  error
	}{
		{path: good},
		{path: good, roots: []string{dir}},
		{path: link("ok-link", good), roots: []string{dir}},
		{path: elsewhere, roots: []string{dir}, want: safefile.ErrOutsideRoot},
		{path: link("out-link", elsewhere), roots: []string{dir}, want: safefile.ErrOutsideRoot},
		{path: fifo, want: safefile.ErrNotRegular},
		{path: link("fifo-link", fifo), want: safefile.ErrNotRegular},
		{path: dir, want: safefile.ErrNotRegular},
		{path: "/proc/self/fd/0", want: safefile.ErrPseudoFile},
		{path: link("stdout", "/proc/self/fd/1"), want: safefile.ErrPseudoFile},
		{path: "/proc/kmsg", want: safefile.ErrPseudoFile},
		{path: "/dev/zero", want: safefile.ErrPseudoFile},
		{path: link("zero", "/dev/zero"), want: safefile.ErrPseudoFile},
		{path: "/sys/kernel/notes", want: safefile.ErrPseudoFile},
	} {
		done := make(chan error, 1)
		go func() {
			f, _, err := safefile.OpenRegular(c.path, c.roots...)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("OpenRegular(%s, %v) = %v, want %v", c.path, c.roots, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenRegular(%s) blocked", c.path)
		}
	}
}

// TestReadRefusesKernelFiles: /proc and /sys hold files whose mode says
// regular but whose reading never ends or changes as it goes; Read refuses
// them, named directly or through a symlink (a committed one, say).
func TestReadRefusesKernelFiles(t *testing.T) {
	needUnix(t, "/proc")
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	link := filepath.Join(testkit.TempDir(t), "settings.json")
	symlink(t, "/proc/self/status", link)
	for _, path := range []string{"/proc/self/status", link} {
		if _, err := safefile.Read(path, safefile.Options{}); !errors.Is(err, safefile.ErrPseudoFile) {
			t.Errorf("Read(%s): %v, want ErrPseudoFile", path, err)
		}
	}
}
